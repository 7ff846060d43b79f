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

// NVRTC's -minimal (NVRTC 12.4 and later) leaves out texture and surface functions,
// the device runtime (launches from device code, cuda... functions) and the runtime
// API's types, and takes about 13 % off a compile (bench/results/cuda.md). A stub is
// compiled with it first when its user code (helpers, body and options) cannot name
// any of that: no "cuda", "tex", "surf" or "<<<" in any case,
// nothing the scan cannot see (support/name_scan.hpp). Should that compile fail, the
// stub is compiled again without it, so -minimal never turns a stub that compiles into
// one that does not; what it would leave out has no effect on code that compiles both
// ways (a test compares the PTX).
enum class MinimalFirst {
  when_user_code_allows,
  always,  // tests: the fallback, whatever the scan says
  never,   // tests: the stub as compiled without it
};

class NvrtcCompiler {
 public:
  NvrtcCompiler(std::shared_ptr<const NvrtcLibrary> nvrtc, CudaTarget target,
                MinimalFirst minimal = MinimalFirst::when_user_code_allows);

  const CudaTarget& target() const { return target_; }
  std::string compiler_id() const { return nvrtc_->id(); }  // "nvrtc 13.0"
  const NvrtcLibrary& library() const { return *nvrtc_; }

  // The NVRTC options a job is compiled with first: the target architecture, C++17,
  // unannotated functions (the kernel's helpers) as __device__, -minimal where it
  // applies, then the job's own options.
  std::vector<std::string> options(const CompileJob& job) const;
  bool compiles_minimal_first(const CompileJob& job) const;

  // A "cubin" or "ptx" Binary (PTX with its terminating NUL, as the driver loads it).
  // Throws CompileError carrying NVRTC's log, mapped to the user's body lines. With
  // `diagnostics`, what NVRTC said about a compile that succeeded (its warnings, in the
  // same form; empty when it said nothing): generated code must leave it empty.
  Binary compile(const CompileJob& job, std::string* diagnostics = nullptr) const;

 private:
  std::vector<std::string> options(const CompileJob& job, bool minimal) const;
  Binary compile(const CompileJob& job, const std::vector<std::string>& options,
                 std::string* diagnostics) const;

  std::shared_ptr<const NvrtcLibrary> nvrtc_;
  CudaTarget target_;
  MinimalFirst minimal_;
};

}  // namespace stubjit::detail
