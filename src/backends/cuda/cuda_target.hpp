// CUDA architectures and the compile target of a stub.
#pragma once

#include <string>
#include <vector>

#include "stubjit/plan.hpp"

namespace stubjit::detail {

// A compute capability, e.g. 9.0 ("sm_90") or 10.0 with the family suffix ("sm_100f").
struct CudaArch {
  int major = 0;
  int minor = 0;
  std::string suffix;  // "", "a" (architecture-specific) or "f" (family-specific)

  int number() const { return major * 10 + minor; }  // 90 for sm_90
  std::string sm() const;                            // "sm_90a"
  std::string compute() const;                       // "compute_90a"
};

// Parses "sm_XY" (also "sm_XYa"/"sm_XYf" and "compute_XY"); throws BackendError.
CudaArch parse_cuda_arch(const std::string& text);

// What stubs are compiled to: CUBIN for one architecture, or PTX that the driver
// compiles for the device when it loads it.
struct CudaTarget {
  CudaArch arch;
  bool ptx = false;

  // The target id that goes into cache keys: "sm_90" (CUBIN) or "compute_90" (PTX).
  std::string id() const { return ptx ? arch.compute() : arch.sm(); }
  std::string nvrtc_option() const { return "--gpu-architecture=" + id(); }
};

// CUBIN for `device` when NVRTC supports it and PTX is not forced; otherwise PTX for
// the newest architecture NVRTC supports that is not newer than the device (an
// older NVRTC than the GPU). Throws BackendError when there is none.
CudaTarget choose_cuda_target(const CudaArch& device, const std::vector<int>& supported,
                              bool force_ptx);

// Threads per group for CUDA, per indexing scheme; the one table the planner and
// the stubs' __launch_bounds__ both derive from (docs/cuda.md explains the choice):
//   spread:    256 x 1 x 1
//   direct r1: 256 x 1 x 1
//   direct r2:  32 x 8 x 1
//   direct r3:  32 x 4 x 2
// x is a whole warp (32 threads) wherever the innermost dimension is wide, so each
// warp reads one contiguous run of a row-major field; 256 threads keep eight warps
// per group, enough for latency hiding at full occupancy on sm_75..sm_120.
BlockShapes cuda_block_shapes();

}  // namespace stubjit::detail
