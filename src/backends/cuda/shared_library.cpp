#include "backends/cuda/shared_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

namespace stubjit::detail {
namespace {

// A candidate the loader could not find at all, as opposed to one that exists and
// failed to load (wrong architecture, missing dependency, ...): only the latter is
// worth a line in a reason.
bool not_found(const std::string& candidate, const char* error) {
  if (candidate.find('/') != std::string::npos) return ::access(candidate.c_str(), F_OK) != 0;
  return !error || std::string(error).find("No such file or directory") != std::string::npos;
}

}  // namespace

std::shared_ptr<SharedLibrary> SharedLibrary::open_first(const std::vector<std::string>& candidates,
                                                         std::string& why) {
  why.clear();
  for (const std::string& candidate : candidates) {
    // RTLD_NODELETE: vendor runtimes install handlers that must outlive any handle;
    // unloading libcuda while the process runs is known to crash some drivers.
    if (void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
      return std::shared_ptr<SharedLibrary>(new SharedLibrary(handle, candidate));
    }
    const char* error = ::dlerror();
    if (not_found(candidate, error)) continue;
    why += (why.empty() ? "" : "; ") + (error ? std::string(error) : candidate + ": not loadable");
  }
  if (why.empty()) why = "not found";
  return nullptr;
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void* SharedLibrary::find(const char* symbol) const { return ::dlsym(handle_, symbol); }

}  // namespace stubjit::detail
