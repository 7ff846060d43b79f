// The HIP backend: hipRTC + the HIP runtime, both loaded with dlopen at run time.
//
// With an AMD GPU it compiles for the device's gfx target and runs stubs there.
// Without one it is unavailable, unless the backend is named (RuntimeOptions::backend
// or STUBJIT_BACKEND=hip) and STUBJIT_HIP_ARCH names a target: it then opens
// compile-only (stubs compile and are cached; memory and launches throw
// BackendError), which automatic selection never picks.
#pragma once

#include <string>

#include "backends/backend.hpp"
#include "backends/hip/hip_library.hpp"

namespace stubjit::detail {

// On the process-wide HIP runtime (hip::runtime_library()).
BackendProbe open_hip_backend(const BackendConfig& config);

// On `runtime`, or without one (nullptr, `no_runtime` saying why): what
// open_hip_backend does, for a runtime library opened elsewhere (the tests open a
// fake one built in the test tree to check which device each call acts on).
BackendProbe open_hip_backend_on(const hip::RuntimeLibrary* runtime, const std::string& no_runtime,
                                 const BackendConfig& config);

}  // namespace stubjit::detail
