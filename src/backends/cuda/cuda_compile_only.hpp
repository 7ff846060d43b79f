// The CUDA backend without a device: compiles stubs for the architecture named by
// STUBJIT_CUDA_ARCH (CI, cache warming on build machines) and refuses everything
// that needs a GPU with a BackendError saying why.
#pragma once

#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "backends/cuda/nvrtc_compiler.hpp"

namespace stubjit::detail {

// `why_no_device`: the reason the device backend did not open, repeated in errors.
std::unique_ptr<Backend> make_cuda_compile_only_backend(NvrtcCompiler compiler,
                                                        std::string why_no_device);

}  // namespace stubjit::detail
