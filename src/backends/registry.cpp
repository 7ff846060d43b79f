#include "backends/registry.hpp"

#include <mutex>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

struct Registry {
  std::mutex mutex;
  // Automatic selection takes the first available: a GPU before the host.
  std::vector<BackendEntry> entries = {
      {"cuda", &open_cuda_backend, &cuda_toolchain_for},
      {"hip", &open_hip_backend, &hip_toolchain_for},
      {"cpu", &open_cpu_backend, &cpu_toolchain_for},
  };
};

Registry& registry() {
  static Registry instance;
  return instance;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 32 || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::vector<BackendEntry> backend_registry() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.entries;
}

BackendEntry backend_named(const std::string& name) {
  for (const BackendEntry& entry : backend_registry())
    if (entry.name == name) return entry;
  throw BackendError("unknown backend '" + name + "'");
}

bool register_backend(BackendEntry entry) {
  // The name becomes a cache directory and a value of STUBJIT_BACKEND.
  if (!valid_name(entry.name) || !entry.open) {
    throw BackendError("cannot register backend '" + entry.name +
                       "': its name must be a lower-case identifier of at most 32 characters, "
                       "and it needs an open function");
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const BackendEntry& known : r.entries) {
    if (known.name == entry.name)
      throw BackendError("cannot register backend '" + entry.name + "': the name is taken");
  }
  r.entries.push_back(std::move(entry));
  return true;
}

}  // namespace stubjit::detail
