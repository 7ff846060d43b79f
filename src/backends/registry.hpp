// The backends stubjit knows. Each backend lives in its own folder and is listed here
// by one registration line (registry.cpp); a backend outside the library (a test's, a
// plug-in's) registers itself with register_backend before runtimes are created.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/toolchain.hpp"

namespace stubjit::detail {

struct BackendConfig {
  int device = 0;
  unsigned cpu_threads = 0;
};

// What opening a backend found. A toolchain without a device is a compile-only
// backend: a runtime uses one only when the application named the backend.
struct OpenedBackend {
  std::unique_ptr<Toolchain> toolchain;  // null: the backend is not available
  std::unique_ptr<Device> device;        // null: no device here
  std::string reason;                    // why no toolchain, or why no device
};

struct BackendEntry {
  std::string name;  // "cuda", "hip", "cpu": what RuntimeOptions::backend names
  OpenedBackend (*open)(const BackendConfig& config);
  // The toolchain for a target named by its id (Toolchain::target_id), without a
  // device: what a compile worker process makes to compile for a runtime (and what
  // compiling for another machine's target needs). Throws BackendError when the
  // target cannot be compiled for here. Null: the backend's compiles stay in the
  // runtime's process. `compiler_id` (Toolchain::compiler_id), where not empty, names the
  // compiler the runtime's own toolchain uses: a backend with several (NVRTC versions)
  // takes that one, so that a worker's binary is the one the runtime would make; the
  // worker refuses a toolchain whose compiler differs.
  std::unique_ptr<Toolchain> (*toolchain_for)(const std::string& target_id,
                                              const std::string& compiler_id) = nullptr;
};

// The entry named `name`; throws BackendError when there is none.
BackendEntry backend_named(const std::string& name);

// Every known backend in automatic-selection order: the library's own, then those
// registered, in registration order.
std::vector<BackendEntry> backend_registry();

// Adds a backend; returns true, so that a static initializer can register one. Throws
// BackendError when the name is taken or is not a lower-case identifier.
bool register_backend(BackendEntry entry);

}  // namespace stubjit::detail
