// What the driver says about a CUDA device, and the planner limits derived from it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_target.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  CudaArch arch;
  std::array<std::uint64_t, 3> max_grid{};
  Extent3 max_block{};
  std::uint32_t max_threads_per_block = 0;
  std::uint32_t warp_size = 0;
  int multiprocessors = 0;
  std::size_t shared_memory_per_block = 0;  // bytes
  std::size_t total_memory = 0;             // bytes

  // "NVIDIA H100 80GB HBM3 (device 0, sm_90, 132 SMs, 79.2 GiB, 48 KiB shared/block)".
  std::string describe() const;
};

// Number of CUDA devices; 0 when the driver reports none.
int cuda_device_count(const CudaDriver& driver);

// Queries every attribute of CudaDeviceInfo; throws BackendError.
CudaDeviceInfo query_cuda_device(const CudaDriver& driver, int ordinal);

// The limits the planner uses for the device: its grid and block maxima, its warp
// size, and the CUDA block shape table (cuda_block_shapes). The same numbers reach
// each stub as constants (STUBJIT_WARP_SIZE, STUBJIT_MAX_GROUP_THREADS).
DeviceLimits cuda_limits(const CudaDeviceInfo& device);

// The limits of a typical CUDA device (sm_75 and newer: grid 2^31-1 x 65535 x 65535,
// block 1024 x 1024 x 64, 1024 threads, warp 32), for compiling without one.
CudaDeviceInfo typical_cuda_device(const CudaArch& arch);

}  // namespace stubjit::detail
