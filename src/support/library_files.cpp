#include "support/library_files.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace stubjit::detail {
namespace {

// The file /proc/self/maps shows mapped at `address` (absolute), or an empty path.
std::filesystem::path mapped_file_holding(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // "start-end perms offset dev inode   path"
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    const std::size_t dash = range.find('-');
    if (dash == std::string::npos || path.empty() || path[0] != '/') continue;
    const std::uintptr_t start = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (address >= start && address < end) return path;
  }
  return {};
}

// The absolute path of the file that holds this code: libstubjit.so, or the program
// linked with the static archive. dladdr names the main program as it was started
// (possibly a relative argv[0]), so a program is read from /proc/self/exe instead.
std::filesystem::path image_holding_this_code(bool& in_shared_library) {
  in_shared_library = false;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&find_beside_library), &info) == 0 || !info.dli_fname)
    return {};
  std::filesystem::path holder(info.dli_fname);
  in_shared_library = holder.filename().string().rfind("libstubjit.so", 0) == 0;
  if (in_shared_library && !holder.is_absolute()) {
    // Loaded through a relative LD_LIBRARY_PATH entry: the kernel's map of this process
    // names the file absolutely.
    holder = mapped_file_holding(reinterpret_cast<std::uintptr_t>(&find_beside_library));
    return holder;
  }
  if (!in_shared_library) {
    std::error_code error;
    holder = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return {};
  }
  return holder.is_absolute() ? holder : std::filesystem::path();
}

}  // namespace

std::string find_beside_library(const std::string& name, const char* build_tree_path,
                                bool executable) {
  const int mode = executable ? X_OK : R_OK;
  bool in_shared_library = false;
  const std::filesystem::path holder = image_holding_this_code(in_shared_library);
  if (holder.empty()) return "";
  std::filesystem::path candidate = holder.parent_path() / "stubjit" / name;
  if (::access(candidate.c_str(), mode) == 0) return candidate.string();
  // A program installed in <libdir>/stubjit/ (the compile worker) finds its neighbours.
  if (!in_shared_library) {
    candidate = holder.parent_path() / name;
    if (::access(candidate.c_str(), mode) == 0) return candidate.string();
  }
#ifdef STUBJIT_BUILD_DIR
  // Only a program of the build tree itself (the tests) may use the build tree's
  // files: never libstubjit.so, and never a program installed elsewhere that was
  // linked with the static archive (the installed compile worker).
  if (build_tree_path && !in_shared_library && lies_inside(holder.string(), STUBJIT_BUILD_DIR) &&
      ::access(build_tree_path, mode) == 0)
    return build_tree_path;
#else
  static_cast<void>(build_tree_path);
#endif
  return "";
}

bool lies_inside(const std::string& path, const std::string& folder) {
  // weakly_canonical: the parts that exist have their links resolved, the rest is
  // normalized; a path that cannot be read at all is compared as written.
  const auto resolved = [](const std::string& p) {
    std::error_code error;
    std::filesystem::path out = std::filesystem::weakly_canonical(p, error);
    return error ? std::filesystem::path(p).lexically_normal() : out;
  };
  const std::string prefix = (resolved(folder) / "").string();
  return resolved(path).string().rfind(prefix, 0) == 0;
}

}  // namespace stubjit::detail
