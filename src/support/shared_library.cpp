#include "support/shared_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

namespace stubjit::detail {
namespace {

// A candidate the loader could not find at all, as opposed to one that exists and
// failed to load (wrong architecture, missing dependency, ...): only the latter is
// worth a line in a reason.
bool not_found(const std::string& candidate, const char* error) {
  if (candidate.find('/') != std::string::npos) return ::access(candidate.c_str(), F_OK) != 0;
  // The loader names the file it could not open: the candidate itself, or a library the
  // candidate needs (then the candidate exists, and that reason is worth reporting).
  if (!error) return true;
  const std::string text = error;
  return text.rfind(candidate + ":", 0) == 0 &&
         text.find("No such file or directory") != std::string::npos;
}

}  // namespace

std::shared_ptr<SharedLibrary> SharedLibrary::open(const std::string& candidate, std::string& why,
                                                   Scope scope) {
  int flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
  if (scope == Scope::own_first) flags |= RTLD_DEEPBIND;
  if (void* handle = ::dlopen(candidate.c_str(), flags)) {
    why.clear();
    return std::shared_ptr<SharedLibrary>(new SharedLibrary(handle, candidate));
  }
  const char* error = ::dlerror();
  why = not_found(candidate, error) ? "not found"
                                    : (error ? std::string(error) : candidate + ": not loadable");
  return nullptr;
}

std::shared_ptr<SharedLibrary> SharedLibrary::open_first(const std::vector<std::string>& candidates,
                                                         std::string& why, Scope scope) {
  std::string reasons;
  for (const std::string& candidate : candidates) {
    std::string problem;
    if (auto library = open(candidate, problem, scope)) {
      why.clear();
      return library;
    }
    if (problem != "not found") reasons += (reasons.empty() ? "" : "; ") + problem;
  }
  why = reasons.empty() ? "not found" : reasons;
  return nullptr;
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void* SharedLibrary::find(const char* symbol) const { return ::dlsym(handle_, symbol); }

}  // namespace stubjit::detail
