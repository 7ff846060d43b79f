// AMDGPU targets and HIP's limits: target ids, wavefront widths, and the planner
// keeping grid * block below 2^32 per dimension (HIP counts the grid in work-items
// as a uint32), so that large domains go to spread or multi instead of overflowing.
#include <gtest/gtest.h>

#include <cstddef>

// Only to cross-check the library's own declarations; never used by the library.
#if __has_include(<hip/hip_runtime_api.h>) && __has_include(<hip/hiprtc.h>)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#define STUBJIT_HAVE_HIP_HEADER 1
#else
#define STUBJIT_HAVE_HIP_HEADER 0
#endif

#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_target.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail::hip {
namespace {

constexpr std::uint64_t two_to_32 = std::uint64_t(1) << 32;

DeviceLimits mi200_limits() {
  HipDeviceShape shape;  // what ROCm reports for gfx90a: INT32_MAX groups, 1024 threads
  shape.wavefront_size = 64;
  return hip_device_limits(shape);
}

// Every dispatch within HIP's limits, and together covering the whole domain.
void expect_hip_safe_cover(const Plan& plan, const Domain& domain, const DeviceLimits& limits) {
  unsigned __int128 capacity = 0;
  for (const Dispatch& d : plan.dispatches) {
    for (int p = 0; p < 3; ++p) {
      ASSERT_LE(d.grid[p], limits.max_grid[p]);
      ASSERT_LT(d.grid[p] * plan.block[p], two_to_32) << plan.describe();
    }
    capacity += static_cast<unsigned __int128>(d.grid[0]) * d.grid[1] * d.grid[2] * plan.block[0] *
                plan.block[1] * plan.block[2];
  }
  EXPECT_GE(capacity, static_cast<unsigned __int128>(domain.size())) << plan.describe();
  if (plan.spread_indexing()) {
    EXPECT_EQ(plan.dispatches.front().linear_begin, 0);
    EXPECT_EQ(plan.dispatches.back().linear_end, domain.size());
  }
}

TEST(HipTarget, TargetIdsAreValidated) {
  for (const char* good : {"gfx90a", "gfx1030", "gfx942", "gfx906", "gfx1100", "gfx90a:xnack-",
                           "gfx90a:sramecc+:xnack-", "gfx1201"}) {
    EXPECT_TRUE(valid_target_id(good)) << good;
  }
  for (const char* bad : {"", "gfx", "sm_90", "GFX90A", "gfx90a:", "gfx90a:xnack", "gfx90a:+",
                          "gfx90a xnack-", "gfx90a\"", "gfx90a;x", "gfx-90a"}) {
    EXPECT_FALSE(valid_target_id(bad)) << bad;
  }
}

TEST(HipTarget, WavefrontIs64OnCdnaAnd32OnRdna) {
  for (const char* wave64 : {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx90a:xnack-"})
    EXPECT_EQ(default_wavefront_size(wave64), 64u) << wave64;
  for (const char* wave32 : {"gfx1030", "gfx1100", "gfx1201", "gfx1030:xnack-"})
    EXPECT_EQ(default_wavefront_size(wave32), 32u) << wave32;
}

TEST(HipTarget, LimitsCarryTheWorkItemCapAndTheWavefront) {
  HipDeviceShape shape;
  shape.wavefront_size = 32;
  shape.max_grid = {1000, 2000, 3000};
  shape.max_block = {512, 256, 64};
  shape.max_threads_per_block = 512;
  const DeviceLimits limits = hip_device_limits(shape);
  EXPECT_EQ(limits.max_threads_per_dim, two_to_32);
  EXPECT_EQ(limits.warp_size, 32u);
  EXPECT_EQ(limits.max_grid[2], 3000u);
  EXPECT_EQ(limits.max_block[1], 256u);
  EXPECT_EQ(limits.max_threads_per_block, 512u);
  // The rank-2 direct group puts one wavefront along the contiguous dimension.
  EXPECT_EQ(limits.preferred_block.direct[1][0], 32u);
  EXPECT_EQ(mi200_limits().preferred_block.direct[1][0], 64u);
}

TEST(HipTarget, DomainOfExactly2To32GoesMultiNotOverflow) {
  // One direct dispatch would need 2^32 work-items along x: one too many.
  const DeviceLimits limits = mi200_limits();
  const Domain domain{std::int64_t(two_to_32)};
  const Plan plan = make_plan(domain, limits);
  EXPECT_NE(plan.mode, Mode::direct);
  EXPECT_GT(plan.dispatches.size(), 1u);
  expect_hip_safe_cover(plan, domain, limits);
  try {
    make_plan(domain, limits, {}, {}, Mode::direct);
    FAIL() << "direct accepted 2^32 work-items";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_threads_per_dim[x]");
  }
}

TEST(HipTarget, LargeDomainsOfEveryRankStayBelow2To32PerDimension) {
  const DeviceLimits limits = mi200_limits();
  for (const Domain& domain :
       {Domain{std::int64_t(1) << 34}, Domain{200000, std::int64_t(1) << 16},
        Domain{3, std::int64_t(1) << 33}, Domain{1 << 12, 1 << 12, 1 << 10},
        Domain{64, 64, 64, 64, 64, 64}, Domain{2, 3, 4, 5, 6, 7, 8, 1 << 16}}) {
    for (std::optional<Mode> mode : {std::optional<Mode>{}, std::optional<Mode>{Mode::multi},
                                     std::optional<Mode>{Mode::spread}}) {
      Plan plan;
      try {
        plan = make_plan(domain, limits, {}, {}, mode);
      } catch (const PlanError& error) {
        // Only a forced single spread dispatch may be refused, never silently wrapped.
        EXPECT_EQ(mode, std::optional<Mode>{Mode::spread}) << domain.to_string() << error.what();
        continue;
      }
      SCOPED_TRACE(domain.to_string() + " " + plan.describe().substr(0, 80));
      expect_hip_safe_cover(plan, domain, limits);
    }
  }
}

// hip_api.hpp and hip_device.cpp write ROCm's numbers out instead of including its
// headers; where ROCm 5's development headers are installed (CI installs Debian's
// libamdhip64-dev), check them against the real declarations.
TEST(HipTarget, DeclarationsMatchTheInstalledHipHeader) {
#if STUBJIT_HAVE_HIP_HEADER
  EXPECT_EQ(properties_layout(false).arch_name_offset, offsetof(hipDeviceProp_t, gcnArchName));
  EXPECT_EQ(properties_layout(false).name_offset, offsetof(hipDeviceProp_t, name));
#if HIP_VERSION_MAJOR >= 6
  EXPECT_EQ(properties_layout(true).arch_name_offset, offsetof(hipDeviceProp_tR0600, gcnArchName));
#endif
  // offsetof(hipDeviceProp_tR0600, gcnArchName) in ROCm 6 and 7's hip_runtime_api.h
  // (worked out from that header's struct; ROCm 5's header has no R0600 layout).
  EXPECT_EQ(properties_layout(true).arch_name_offset, 1160u);
  EXPECT_EQ(attribute_max_block_dim_x, hipDeviceAttributeMaxBlockDimX);
  EXPECT_EQ(attribute_max_block_dim_x + 2, hipDeviceAttributeMaxBlockDimZ);
  EXPECT_EQ(attribute_max_grid_dim_x, hipDeviceAttributeMaxGridDimX);
  EXPECT_EQ(attribute_max_grid_dim_x + 2, hipDeviceAttributeMaxGridDimZ);
  EXPECT_EQ(attribute_max_threads_per_block, hipDeviceAttributeMaxThreadsPerBlock);
  EXPECT_EQ(attribute_multiprocessor_count, hipDeviceAttributeMultiprocessorCount);
  EXPECT_EQ(attribute_warp_size, hipDeviceAttributeWarpSize);
  EXPECT_EQ(memcpy_host_to_device, hipMemcpyHostToDevice);
  EXPECT_EQ(memcpy_device_to_host, hipMemcpyDeviceToHost);
  EXPECT_EQ(hip_error_no_device, hipErrorNoDevice);
  EXPECT_EQ(hiprtc_error_compilation, HIPRTC_ERROR_COMPILATION);
  EXPECT_EQ(hiprtc_error_invalid_option, HIPRTC_ERROR_INVALID_OPTION);
#else
  GTEST_SKIP() << "no <hip/hip_runtime_api.h> to check against (install libamdhip64-dev)";
#endif
}

}  // namespace
}  // namespace stubjit::detail::hip
