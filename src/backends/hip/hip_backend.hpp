// The HIP backend: hipRTC + the HIP runtime, both loaded with dlopen at run time.
//
// With an AMD GPU it compiles for the device's gfx target and runs stubs there.
// Without one it is unavailable, unless the backend is named (RuntimeOptions::backend
// or STUBJIT_BACKEND=hip) and STUBJIT_HIP_ARCH names a target: it then opens
// compile-only (stubs compile and are cached; memory and launches throw
// BackendError), which automatic selection never picks.
#pragma once

#include "backends/backend.hpp"

namespace stubjit::detail {

BackendProbe open_hip_backend(const BackendConfig& config);

}  // namespace stubjit::detail
