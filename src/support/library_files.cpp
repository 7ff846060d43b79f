#include "support/library_files.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>

namespace stubjit::detail {

std::string find_beside_library(const std::string& name, const char* build_tree_path,
                                bool executable) {
  const int mode = executable ? X_OK : R_OK;
  Dl_info info{};
  bool in_shared_library = false;
  if (::dladdr(reinterpret_cast<void*>(&find_beside_library), &info) != 0 && info.dli_fname) {
    const std::filesystem::path holder(info.dli_fname);
    in_shared_library = holder.filename().string().rfind("libstubjit.so", 0) == 0;
    for (const std::filesystem::path& candidate :
         {holder.parent_path() / "stubjit" / name, holder.parent_path() / name}) {
      if (::access(candidate.c_str(), mode) == 0) return candidate.string();
    }
  }
  if (build_tree_path && !in_shared_library && ::access(build_tree_path, mode) == 0)
    return build_tree_path;
  return "";
}

}  // namespace stubjit::detail
