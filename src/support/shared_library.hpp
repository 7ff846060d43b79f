// The one loader of shared libraries at run time (dlopen). Vendor libraries (the CUDA
// driver, NVRTC, the HIP runtime, hipRTC, comgr) are opened this way, so that nothing
// of them is needed to build stubjit or to run it on a machine without them.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace stubjit::detail {

class SharedLibrary {
 public:
  // How the library's own references to symbols are bound.
  enum class Scope {
    local,  // RTLD_LOCAL: its symbols are not offered to libraries loaded later
    // RTLD_LOCAL | RTLD_DEEPBIND: it also prefers its own definitions to those already
    // in the process (comgr's LLVM against stubjit's, see backends/hip/comgr.hpp).
    own_first,
  };

  // Opens `candidate` (a name goes through the dynamic linker's search, a path is
  // used as given). Libraries are never unmapped (RTLD_NODELETE): vendor runtimes
  // install handlers that must outlive any handle, and unloading libcuda while the
  // process runs is known to crash some drivers. On failure returns null and sets
  // `why` to dlerror's reason, or to "not found" when the candidate does not exist.
  static std::shared_ptr<SharedLibrary> open(const std::string& candidate, std::string& why,
                                             Scope scope = Scope::local);
  // Opens the first candidate that loads. On failure returns null and sets `why` to
  // dlerror's reason for each candidate that exists but did not load, or to "not
  // found" when none exists: short enough for a one-line skip reason.
  static std::shared_ptr<SharedLibrary> open_first(const std::vector<std::string>& candidates,
                                                   std::string& why, Scope scope = Scope::local);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // The candidate that loaded.
  const std::string& name() const { return name_; }
  // The address of `symbol`, or nullptr.
  void* find(const char* symbol) const;

  // Resolves `symbol` into `out`; false when absent.
  template <class F>
  bool bind(F& out, const char* symbol) const {
    out = reinterpret_cast<F>(find(symbol));
    return out != nullptr;
  }
  // Resolves `symbol` into `out`; adds the name to `missing` when absent.
  template <class F>
  void resolve(F& out, const char* symbol, std::string& missing) const {
    if (!bind(out, symbol)) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  }

 private:
  SharedLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

}  // namespace stubjit::detail
