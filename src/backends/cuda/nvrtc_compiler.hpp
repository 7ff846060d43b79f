// The compile-only half of the CUDA backend: stub source to CUBIN (or PTX) with
// NVRTC. Needs libnvrtc only, no driver and no GPU, so it also serves compiling for
// an architecture named with STUBJIT_CUDA_ARCH on a machine without a device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_target.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "backends/toolchain.hpp"

namespace stubjit::detail {

class NvrtcCompiler {
 public:
  NvrtcCompiler(std::shared_ptr<const NvrtcLibrary> nvrtc, CudaTarget target);

  const CudaTarget& target() const { return target_; }
  std::string compiler_id() const { return nvrtc_->id(); }  // "nvrtc 13.0"
  const NvrtcLibrary& library() const { return *nvrtc_; }

  // The NVRTC options for a job: the target architecture, C++17, unannotated
  // functions (the kernel's helpers) as __device__, then the job's own options.
  std::vector<std::string> options(const CompileJob& job) const;

  // A "cubin" or "ptx" Binary (PTX with its terminating NUL, as the driver loads it).
  // Throws CompileError carrying NVRTC's log, mapped to the user's body lines.
  Binary compile(const CompileJob& job) const;

 private:
  std::shared_ptr<const NvrtcLibrary> nvrtc_;
  CudaTarget target_;
};

}  // namespace stubjit::detail
