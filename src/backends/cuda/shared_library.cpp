#include "backends/cuda/shared_library.hpp"

#include <dlfcn.h>

namespace stubjit::detail {

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
    why += (why.empty() ? "" : "; ") + (error ? std::string(error) : candidate + ": not loadable");
  }
  if (candidates.empty()) why = "no candidate library names";
  return nullptr;
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void* SharedLibrary::find(const char* symbol) const { return ::dlsym(handle_, symbol); }

}  // namespace stubjit::detail
