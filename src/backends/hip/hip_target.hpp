// AMDGPU targets: validating a target id, its wavefront size, and the device limits
// the planner gets for HIP.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "stubjit/plan.hpp"

namespace stubjit::detail::hip {

// A target id as --offload-arch takes it: "gfx" + processor digits/letters, then
// optional ":feature+" / ":feature-" (e.g. "gfx90a:sramecc+:xnack-").
bool valid_target_id(const std::string& target_id);

// Wavefront width hipRTC compiles for by default: 64 on GCN/CDNA (gfx6..gfx9,
// e.g. gfx90a, gfx942), 32 on RDNA (gfx10, gfx11, gfx12, e.g. gfx1030).
std::uint32_t default_wavefront_size(const std::string& target_id);

// What the device reports, or what a compile-only target assumes.
struct HipDeviceShape {
  std::array<std::uint64_t, 3> max_grid{2147483647ULL, 2147483647ULL, 2147483647ULL};
  Extent3 max_block{1024, 1024, 1024};
  std::uint32_t max_threads_per_block = 1024;
  std::uint32_t wavefront_size = 64;
};

// The planner's limits for HIP: the device's, plus HIP's count of the grid in
// work-items as a uint32 (ROCm/hip #2253), so grid * block < 2^32 per dimension.
DeviceLimits hip_device_limits(const HipDeviceShape& shape);

}  // namespace stubjit::detail::hip
