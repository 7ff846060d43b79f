// The HIP backend: hipRTC + the HIP runtime, both loaded with dlopen at run time.
//
// With an AMD GPU it compiles for the device's gfx target and runs stubs there.
// Without one it offers a toolchain alone when STUBJIT_HIP_ARCH names a target: a
// runtime that names the backend is then compile-only (stubs compile and are cached;
// memory and launches throw BackendError), and automatic selection skips it.
#pragma once

#include <string>

#include "backends/hip/hip_library.hpp"
#include "backends/registry.hpp"

namespace stubjit::detail {

// hipRTC for a gfx target id ("gfx90a", "gfx90a:xnack-"); BackendError without
// hipRTC, for a target its comgr does not know, or under AddressSanitizer.
std::unique_ptr<Toolchain> hip_toolchain_for(const std::string& target_id,
                                             const std::string& compiler_id = "");

// On the process-wide HIP runtime (hip::runtime_library()).
OpenedBackend open_hip_backend(const BackendConfig& config);

// On `runtime`, or without one (nullptr, `no_runtime` saying why): what
// open_hip_backend does, for a runtime library opened elsewhere (the tests open a
// fake one built in the test tree to check which device each call acts on).
OpenedBackend open_hip_backend_on(const hip::RuntimeLibrary* runtime, const std::string& no_runtime,
                                  const BackendConfig& config);

}  // namespace stubjit::detail
