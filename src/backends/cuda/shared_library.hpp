// A dlopen'ed shared library, closed when the last handle goes. Vendor libraries are
// opened this way so that nothing of them is needed to build or to run on a machine
// without them.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace stubjit::detail {

class SharedLibrary {
 public:
  // Opens the first candidate that loads (names go through the dynamic linker's
  // search, paths are used as given). On failure returns null and sets `why` to
  // dlerror's reason for each candidate that exists but did not load, or to "not
  // found" when none exists: short enough for a one-line skip reason.
  static std::shared_ptr<SharedLibrary> open_first(const std::vector<std::string>& candidates,
                                                   std::string& why);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // The candidate that loaded.
  const std::string& name() const { return name_; }
  // The address of `symbol`, or nullptr.
  void* find(const char* symbol) const;

  // Resolves `symbol` into `out`; adds the name to `missing` when absent.
  template <class F>
  void resolve(F& out, const char* symbol, std::string& missing) const {
    out = reinterpret_cast<F>(find(symbol));
    if (!out) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  }

 private:
  SharedLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

}  // namespace stubjit::detail
