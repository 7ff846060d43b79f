// The CUDA backend: NVRTC (the toolchain) and the CUDA driver API (the device), both
// loaded at run time.
#pragma once

#include <memory>

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_device.hpp"
#include "backends/cuda/nvrtc_compiler.hpp"
#include "backends/registry.hpp"

namespace stubjit::detail {

// NVRTC for one target: CUBIN (or PTX) for the device's sm_XY, or for the
// architecture STUBJIT_CUDA_ARCH names where there is no device.
std::unique_ptr<Toolchain> make_cuda_toolchain(NvrtcCompiler compiler);
std::unique_ptr<Device> make_cuda_device(std::shared_ptr<const CudaContext> context,
                                         CudaDeviceInfo device);

// Needs NVRTC; with the driver and device `config.device`, a toolchain for that
// device's architecture and the device. Without a usable device, a toolchain alone
// (compile-only) when STUBJIT_CUDA_ARCH names an architecture, and the reason.
// STUBJIT_CUDA_PTX=1 compiles stubs to PTX rather than CUBIN (docs/cuda.md).
OpenedBackend open_cuda_backend(const BackendConfig& config);
// NVRTC for "sm_XY" (CUBIN) or "compute_XY" (PTX); BackendError without NVRTC or for
// an architecture it does not know.
std::unique_ptr<Toolchain> cuda_toolchain_for(const std::string& target_id,
                                              const std::string& compiler_id = "");

}  // namespace stubjit::detail
