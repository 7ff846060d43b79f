// The compile-only half of the HIP backend: stub source to an AMDGPU code object
// for one target with hipRTC. It needs no AMD GPU, so it serves the backend with a
// device, the backend without one (STUBJIT_HIP_ARCH) and the compile tests alike.
#pragma once

#include <string>

#include "backends/hip/hip_library.hpp"
#include "backends/toolchain.hpp"

namespace stubjit::detail::hip {

// The source hipRTC compiles for a stub. The kernel's helpers are written without
// __device__ (NVRTC compiles them as device code with -default-device); hipRTC has no
// such option, so the stub is wrapped in clang's force_cuda_host_device pragma,
// which makes every function without an explicit __host__/__device__ attribute
// callable on both sides. Functions that have one (the prelude, the kernel, the
// entry) keep it.
std::string device_default_source(const std::string& stub_source);

class HiprtcCompiler {
 public:
  // Throws BackendError when hipRTC cannot be loaded (with every path tried), when
  // `target_id` is not a target id such as "gfx90a" or "gfx90a:xnack-", or when this
  // hipRTC's comgr does not know it (ROCm 5.2's hipRTC would abort the process).
  explicit HiprtcCompiler(std::string target_id);

  const std::string& target_id() const { return target_; }
  // "hiprtc 5.2.21153 (libamdhip64.so.5)": what a cached binary depends on.
  std::string compiler_id() const;

  // Compiles device_default_source(job.source) for the target: -O3, C++17, launch
  // bounds from the stub. Throws CompileError with hipRTC's log (whose #line
  // locations name the user's body and helpers) and the source compiled,
  // BackendError when hipRTC fails otherwise.
  Binary compile(const CompileJob& job) const;

  // The options hipRTC gets for `job`, in order (exposed for tests and the benchmark).
  std::vector<std::string> options_for(const CompileJob& job) const;

 private:
  const RtcLibrary* library_;
  std::string target_;
};

}  // namespace stubjit::detail::hip
