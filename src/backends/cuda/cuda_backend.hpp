// The CUDA backend: NVRTC + the CUDA driver API, both loaded at run time.
#pragma once

#include "backends/backend.hpp"

namespace stubjit::detail {

// Needs NVRTC, the driver and a device `config.device`; otherwise reports why not.
// When the backend is named (config.named) and STUBJIT_CUDA_ARCH is set on a machine
// without a usable device, opens compile-only for that architecture instead.
// STUBJIT_CUDA_PTX=1 compiles stubs to PTX rather than CUBIN (docs/cuda.md).
BackendProbe open_cuda_backend(const BackendConfig& config);

}  // namespace stubjit::detail
