// Group launches' planning (pure): the threads of a group within the kernel's class
// (fixed, shrinkable, elastic) and the device's limits, and the groups' layout over
// the grid: every group number in exactly one block, checked by enumeration under
// small artificial limits.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"

namespace stubjit {
namespace {

DeviceLimits gpu_limits(std::uint32_t warp = 32) {
  DeviceLimits limits;
  limits.warp_size = warp;
  return limits;
}

BlockConstraints fixed(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) {
  BlockConstraints constraints;
  constraints.shape = {x, y, z};
  return constraints;
}

BlockConstraints shrinkable(std::uint32_t max_threads) {
  BlockConstraints constraints;
  constraints.max_threads = max_threads;
  return constraints;
}

// The PlanError `run` throws, checked to name `limit` and to mention each of `numbers`.
void expect_plan_error(const std::function<void()>& run, const std::string& limit,
                       const std::vector<std::string>& numbers) {
  try {
    run();
    FAIL() << "no PlanError (" << limit << ")";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), limit) << error.what();
    for (const std::string& number : numbers)
      EXPECT_NE(std::string(error.what()).find(number), std::string::npos)
          << error.what() << " lacks " << number;
  }
}

TEST(GroupThreads, ElasticTakesTheRequestOrTheDevicesPreferredGroup) {
  const DeviceLimits limits = gpu_limits();
  EXPECT_EQ(group_threads(0, 0, {}, limits), 256u);  // the preferred spread group
  EXPECT_EQ(group_threads(72, 0, {}, limits), 72u);  // as asked, short last warp and all
  EXPECT_EQ(group_threads(0, 40, {}, limits), 40u);  // a tile's elements
  EXPECT_EQ(group_threads(1, 0, {}, limits), 1u);
}

TEST(GroupThreads, SizesNotAskedForShrinkToTheLimitInWholeWarps) {
  DeviceLimits limits = gpu_limits(64);
  limits.max_threads_per_block = 1000;
  EXPECT_EQ(group_threads(0, 2048, {}, limits), 960u);  // a tile bigger than a group
  EXPECT_EQ(group_threads(0, 0, shrinkable(900), limits), 256u);
  EXPECT_EQ(group_threads(0, 2048, shrinkable(900), limits), 896u);  // 14 wavefronts
  limits.preferred_block.spread = {2048, 1, 1};
  EXPECT_EQ(group_threads(0, 0, {}, limits), 960u);  // the device's preference, cut
  limits.max_threads_per_block = 40;
  EXPECT_EQ(group_threads(0, 100, {}, limits), 40u);  // below one warp: as is
}

TEST(GroupThreads, AnElasticRequestAboveTheDevicesLimitNamesBoth) {
  DeviceLimits limits = gpu_limits(64);
  limits.max_threads_per_block = 1000;
  expect_plan_error([&] { group_threads(4096, 0, {}, limits); }, "max_threads_per_block",
                    {"4096", "1000"});
  EXPECT_EQ(group_threads(1000, 0, {}, limits), 1000u);  // at the limit: as asked
}

TEST(GroupThreads, ARequestAboveTheCompiledMaximumNamesBothNumbers) {
  expect_plan_error([] { group_threads(512, 0, shrinkable(256), gpu_limits()); }, "max_threads",
                    {"512", "256"});
  // At the maximum: fine.
  EXPECT_EQ(group_threads(256, 0, shrinkable(256), gpu_limits()), 256u);
}

TEST(GroupThreads, FixedIsExactlyItsSize) {
  EXPECT_EQ(group_threads(0, 0, fixed(32, 4), gpu_limits()), 128u);
  EXPECT_EQ(group_threads(128, 0, fixed(32, 4), gpu_limits()), 128u);
  EXPECT_EQ(group_threads(0, 4096, fixed(32, 4), gpu_limits()), 128u);  // a tile spreads
  expect_plan_error([] { group_threads(64, 0, fixed(32, 4), gpu_limits()); }, "fixed group size",
                    {"64", "128"});
  DeviceLimits small = gpu_limits();
  small.max_threads_per_block = 64;
  expect_plan_error([&] { group_threads(0, 0, fixed(32, 4), small); }, "max_threads_per_block",
                    {"128", "64"});
}

TEST(GroupThreads, MaxLaunchThreadsIsTheClassBound) {
  EXPECT_EQ(max_group_launch_threads({}, gpu_limits()), 1024u);
  EXPECT_EQ(max_group_launch_threads(shrinkable(256), gpu_limits()), 256u);
  EXPECT_EQ(max_group_launch_threads(fixed(16, 8), gpu_limits()), 128u);
}

// Every group number 0..groups-1 in exactly one block of the plan, as the stubs number
// them: linear_begin + the block's flat index, blocks past linear_end leaving.
void expect_each_group_once(const Plan& plan, std::uint64_t groups) {
  std::vector<int> seen(groups, 0);
  for (const Dispatch& dispatch : plan.dispatches) {
    const std::uint64_t blocks = dispatch.grid[0] * dispatch.grid[1] * dispatch.grid[2];
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t gid = static_cast<std::uint64_t>(dispatch.linear_begin) + b;
      if (gid >= static_cast<std::uint64_t>(dispatch.linear_end)) continue;
      ASSERT_LT(gid, groups);
      ++seen[gid];
    }
  }
  for (std::uint64_t g = 0; g < groups; ++g) ASSERT_EQ(seen[g], 1) << "group " << g;
}

TEST(GroupPlan, EveryGroupOnceUnderSmallGrids) {
  DeviceLimits limits = gpu_limits();
  limits.max_grid = {7, 5, 3};  // 105 blocks at most
  for (const std::uint64_t groups : {1u, 2u, 7u, 8u, 36u, 104u, 105u}) {
    SCOPED_TRACE(groups);
    const Plan plan = make_group_plan(groups, {64, 1, 1}, limits);
    EXPECT_EQ(plan.mode, Mode::spread);
    EXPECT_EQ(plan.block, (Extent3{64, 1, 1}));
    ASSERT_EQ(plan.dispatches.size(), 1u);
    for (int p = 0; p < 3; ++p) EXPECT_LE(plan.dispatches[0].grid[p], limits.max_grid[p]);
    expect_each_group_once(plan, groups);
  }
  expect_plan_error([&] { make_group_plan(106, {64, 1, 1}, limits); }, "max_grid", {});
}

TEST(GroupPlan, AGroupShapeIsKeptAndCheckedAgainstTheDevice) {
  const Plan plan = make_group_plan(10, {8, 5, 2}, gpu_limits());
  EXPECT_EQ(plan.block, (Extent3{8, 5, 2}));
  expect_each_group_once(plan, 10);
  expect_plan_error(
      [] {
        make_group_plan(10, {2048, 1, 1}, gpu_limits());
      },
      "max_block[x]", {"2048"});
  expect_plan_error(
      [] {
        make_group_plan(10, {32, 32, 2}, gpu_limits());
      },
      "max_threads_per_block", {"2048", "1024"});
}

TEST(GroupPlan, ThreadsPerDimensionStayBelowTheLimitWithTheGroupsThreads) {
  DeviceLimits limits = gpu_limits(64);
  limits.max_threads_per_dim = 4096;  // as HIP counts grids in work-items, scaled down
  const Plan plan = make_group_plan(1000, {256, 1, 1}, limits);
  for (const Dispatch& dispatch : plan.dispatches)
    EXPECT_LT(dispatch.grid[0] * 256, 4096u) << plan.describe();
  expect_each_group_once(plan, 1000);
}

TEST(GroupPlan, OnlySpreadMayBeForced) {
  EXPECT_EQ(make_group_plan(5, {32, 1, 1}, gpu_limits(), {}, Mode::spread).mode, Mode::spread);
  for (const Mode mode : {Mode::direct, Mode::multi}) {
    expect_plan_error(
        [&] {
          make_group_plan(5, {32, 1, 1}, gpu_limits(), {}, mode);
        },
        "mode", {name_of(mode)});
  }
}

}  // namespace
}  // namespace stubjit
