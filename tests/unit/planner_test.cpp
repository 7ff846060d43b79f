// The planner against enumeration: every physical thread of every dispatch is mapped
// to a position with the prelude's own device-side functions (the code stubs run),
// and each position of the domain must come out exactly once.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "common/plan_visits.hpp"
#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"

namespace stubjit {
namespace {

void expect_exactly_once(const Domain& domain, const Plan& plan, const std::string& context) {
  const test::Visits found = test::enumerate_visits(domain, plan);
  ASSERT_EQ(found.outside, 0u) << context << ": threads run outside the domain; plan "
                               << plan.describe();
  ASSERT_EQ(found.wrong_raise, 0u)
      << context << ": the host's divisors raise wrongly; plan " << plan.describe();
  const std::vector<int>& visits = found.per_position;
  for (std::size_t i = 0; i < visits.size(); ++i) {
    ASSERT_EQ(visits[i], 1) << context << ": flat position " << i << " visited " << visits[i]
                            << " times; plan " << plan.describe();
  }
}

void expect_within_limits(const Plan& plan, const DeviceLimits& limits,
                          const std::string& context) {
  ASSERT_LE(std::uint64_t(plan.block[0]) * plan.block[1] * plan.block[2],
            limits.max_threads_per_block)
      << context;
  for (const Dispatch& d : plan.dispatches) {
    for (int p = 0; p < 3; ++p) {
      ASSERT_GE(d.grid[p], 1u) << context;
      ASSERT_LE(d.grid[p], limits.max_grid[p]) << context << " axis " << p;
      ASSERT_LE(plan.block[p], limits.max_block[p]) << context << " axis " << p;
      if (limits.max_threads_per_dim) {
        ASSERT_LT(d.grid[p] * plan.block[p], limits.max_threads_per_dim)
            << context << " axis " << p;
      }
    }
  }
}

// A direct stub does not check the physical dimensions past its rank for groups, and
// checks them for threads only where the kernel fixes its group shape
// (gpu_dialect.cpp): a direct plan has one group there, and one thread unless the
// shape is fixed.
void expect_unused_dimensions_hold_one_group(const Plan& plan, const BlockConstraints& constraints,
                                             const std::string& context) {
  if (plan.spread_indexing()) return;
  for (int p = plan.rank; p < 3; ++p) {
    if (!constraints.fixed()) {
      ASSERT_EQ(plan.block[p], 1u) << context << " axis " << p;
    }
    for (const Dispatch& d : plan.dispatches) {
      ASSERT_EQ(d.grid[p], 1u) << context << " axis " << p;
    }
  }
}

DeviceLimits one_per_group(std::uint64_t max_groups) {
  DeviceLimits limits;
  limits.max_grid = {max_groups, max_groups, max_groups};
  return limits;
}

TEST(Planner, PatentExample258x258Gives4DirectDispatches) {
  // The patent's approach 3: a 258 x 258 domain, at most 256 groups per dimension,
  // 1 x 1 x 1 groups -> four direct dispatches with origins.
  const Domain domain{258, 258};
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  const Plan plan = make_plan(domain, one_per_group(256), unit);
  EXPECT_EQ(plan.mode, Mode::multi);
  EXPECT_EQ(plan.block, (Extent3{1, 1, 1}));
  ASSERT_EQ(plan.dispatches.size(), 4u);
  const std::array<std::int64_t, 3> origins[4] = {
      {0, 0, 0}, {256, 0, 0}, {0, 256, 0}, {256, 256, 0}};
  const std::array<std::uint64_t, 3> grids[4] = {
      {256, 256, 1}, {2, 256, 1}, {256, 2, 1}, {2, 2, 1}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(plan.dispatches[static_cast<std::size_t>(i)].origin, origins[i]) << "dispatch " << i;
    EXPECT_EQ(plan.dispatches[static_cast<std::size_t>(i)].grid, grids[i]) << "dispatch " << i;
  }
  expect_exactly_once(domain, plan, "258x258");
}

TEST(Planner, DirectWhenEachDimensionFits) {
  const Domain domain{100, 1000};
  const Plan plan = make_plan(domain, DeviceLimits{});
  EXPECT_EQ(plan.mode, Mode::direct);
  ASSERT_EQ(plan.dispatches.size(), 1u);
  // x covers the innermost dimension (1000), y the outer one (100).
  EXPECT_GE(plan.dispatches[0].grid[0] * plan.block[0], 1000u);
  EXPECT_GE(plan.dispatches[0].grid[1] * plan.block[1], 100u);
  expect_exactly_once(domain, plan, "100x1000");
}

TEST(Planner, FortranOrderPutsDimensionZeroOnX) {
  // do j = 1, 37; do i = 1, 53 in Fortran order: i (53) on x, j (37) on y.
  const Domain fortran = Domain::loops({{1, 37}, {1, 53}}, Order::fortran);
  const Plan plan = make_plan(fortran, DeviceLimits{});
  EXPECT_EQ(plan.mode, Mode::direct);
  ASSERT_EQ(plan.dispatches.size(), 1u);
  EXPECT_EQ(plan.block[0], 32u);              // the rank-2 default 32 x 8: 53 needs no folding
  EXPECT_EQ(plan.dispatches[0].grid[0], 2u);  // ceil(53 / 32)
  EXPECT_EQ(plan.dispatches[0].grid[1], 5u);  // ceil(37 / 8)
  // The same points in C order put the last dimension, j, on x.
  const Plan c = make_plan(Domain({fortran[0], fortran[1]}), DeviceLimits{});
  EXPECT_EQ(c.dispatches[0].grid[0], 2u);  // ceil(37 / 32)
  EXPECT_EQ(c.dispatches[0].grid[1], 7u);  // ceil(53 / 8)
  expect_exactly_once(fortran.in_c_order(), plan, "fortran 53x37");
}

TEST(Planner, FortranOrderRefusalsNameTheDomainsOwnDimension) {
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  try {
    make_plan(Domain({Dim{0, 300, 1}, Dim{0, 10, 1}}, Order::fortran), one_per_group(256), unit, {},
              Mode::direct);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_grid[x]");
    EXPECT_NE(std::string(error.what())
                  .find("[0:300:1, 0:10:1] fortran: dimension 0 needs 300 "
                        "groups along x"),
              std::string::npos)
        << error.what();
  }
}

TEST(Planner, ShortInnerDimensionFoldsThreadsIntoTheNextOne) {
  // 200000 rows of 2: x shrinks to 2 threads, y takes the rest of the group.
  const Plan plan = make_plan(Domain{200000, 2}, DeviceLimits{});
  EXPECT_EQ(plan.block[0], 2u);
  EXPECT_EQ(plan.block[0] * plan.block[1], 256u);
}

TEST(Planner, Rank2With200000RowsStaysWithinGridY) {
  // 200000 rows exceed 65535 groups along y only with one row per group; the
  // planner must cover them without breaking the y limit (Kokkos #4192).
  const Domain domain{200000, 1};
  const Plan plan = make_plan(domain, DeviceLimits{});
  expect_within_limits(plan, DeviceLimits{}, "200000x1");
  std::uint64_t covered = 0;
  for (const Dispatch& d : plan.dispatches) covered += d.grid[0] * d.grid[1] * d.grid[2];
  EXPECT_GE(covered * plan.block[0] * plan.block[1] * plan.block[2], 200000u);
}

TEST(Planner, SpreadForRankAboveThree) {
  const Domain domain{3, 4, 5, 6, 7};
  const Plan plan = make_plan(domain, DeviceLimits{});
  EXPECT_EQ(plan.mode, Mode::spread);
  ASSERT_EQ(plan.dispatches.size(), 1u);
  EXPECT_EQ(plan.dispatches[0].linear_begin, 0);
  EXPECT_EQ(plan.dispatches[0].linear_end, domain.size());
  expect_exactly_once(domain, plan, "rank 5");
}

TEST(Planner, SpreadWhenTooManyDirectPiecesWouldBeNeeded) {
  // 1-D, 4 groups of 1 per dimension: 40 elements need 10 direct pieces (> 8),
  // but one spread dispatch holds 64 groups.
  DeviceLimits limits = one_per_group(4);
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  const Domain domain{40};
  const Plan plan = make_plan(domain, limits, unit);
  EXPECT_EQ(plan.mode, Mode::spread);
  expect_exactly_once(domain, plan, "40 over 4^3");
}

TEST(Planner, MultiSpreadChunksWhenNotEvenSpreadFits) {
  DeviceLimits limits = one_per_group(2);
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  const Domain domain{3, 3, 3, 2};  // 54 positions, 8 per dispatch
  const Plan plan = make_plan(domain, limits, unit);
  EXPECT_EQ(plan.mode, Mode::multi);
  EXPECT_EQ(plan.dispatches.size(), 7u);
  EXPECT_TRUE(plan.spread_indexing());
  expect_exactly_once(domain, plan, "54 over 2^3");
}

TEST(Planner, EmptyDomainPlansNoDispatch) {
  for (const Domain& domain : {Domain{0}, Domain{5, 0}, Domain{2, 3, 0, 4, 1}}) {
    EXPECT_TRUE(make_plan(domain, DeviceLimits{}).dispatches.empty()) << domain.to_string();
    for (Mode mode : {Mode::spread, Mode::multi}) {
      EXPECT_TRUE(make_plan(domain, DeviceLimits{}, {}, {}, mode).dispatches.empty());
    }
  }
}

TEST(Planner, ForcedDirectRefusesRankAboveThree) {
  try {
    make_plan(Domain{2, 2, 2, 2}, DeviceLimits{}, {}, {}, Mode::direct);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "rank");
    EXPECT_NE(std::string(error.what()).find("rank 4"), std::string::npos) << error.what();
  }
}

TEST(Planner, ForcedDirectRefusesADomainItCannotCover) {
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  try {
    make_plan(Domain{300, 10}, one_per_group(256), unit, {}, Mode::direct);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_grid[y]");
    EXPECT_EQ(error.limit_value(), 256u);
    EXPECT_NE(std::string(error.what()).find("dimension 0 needs 300 groups"), std::string::npos)
        << error.what();
  }
}

TEST(Planner, ForcedSpreadRefusesADomainBeyondOneDispatch) {
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  EXPECT_THROW(make_plan(Domain{9}, one_per_group(2), unit, {}, Mode::spread), PlanError);
  EXPECT_NO_THROW(make_plan(Domain{8}, one_per_group(2), unit, {}, Mode::spread));
}

TEST(Planner, DispatchBudgetIsEnforced) {
  BlockConstraints unit;
  unit.shape = {1, 1, 1};
  PlanPolicy policy;
  policy.max_dispatches = 10;
  try {
    make_plan(Domain{100}, one_per_group(1), unit, policy);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_dispatches");
    EXPECT_EQ(error.limit_value(), 10u);
  }
}

// Found by the plan fuzzer: direct and spread plans, one dispatch each, ignored a
// budget of 0. An empty domain needs no dispatch and is still planned.
TEST(Planner, ABudgetOfNoDispatchRefusesEveryModeButAnEmptyDomain) {
  PlanPolicy none;
  none.max_dispatches = 0;
  for (const std::optional<Mode> forced : {std::optional<Mode>{}, std::optional<Mode>{Mode::direct},
                                           std::optional<Mode>{Mode::spread}}) {
    try {
      make_plan(Domain{100}, DeviceLimits{}, BlockConstraints{}, none, forced);
      ADD_FAILURE() << "expected PlanError";
    } catch (const PlanError& error) {
      EXPECT_EQ(error.limit(), "max_dispatches");
      EXPECT_EQ(error.limit_value(), 0u);
    }
  }
  EXPECT_TRUE(make_plan(Domain{0}, DeviceLimits{}, BlockConstraints{}, none).dispatches.empty());
}

TEST(Planner, FixedShapeBeyondLimitsIsRefused) {
  BlockConstraints big;
  big.shape = {64, 64, 1};  // 4096 threads
  EXPECT_THROW(make_plan(Domain{10}, DeviceLimits{}, big), PlanError);
  BlockConstraints wide;
  wide.shape = {2048, 1, 1};
  EXPECT_THROW(make_plan(Domain{10}, DeviceLimits{}, wide), PlanError);
}

// Found by the plan fuzzer: a zero limit was rounded up to one thread and planned
// as if the device could launch it.
TEST(Planner, LimitsThatAllowNoLaunchAreRefusedByName) {
  struct Case {
    void (*zero)(DeviceLimits&);
    const char* limit;
  };
  const Case cases[] = {
      {[](DeviceLimits& l) { l.max_threads_per_block = 0; }, "max_threads_per_block"},
      {[](DeviceLimits& l) { l.max_block[1] = 0; }, "max_block[y]"},
      {[](DeviceLimits& l) { l.max_grid[2] = 0; }, "max_grid[z]"},
      {[](DeviceLimits& l) { l.max_threads_per_dim = 1; }, "max_threads_per_dim"},
  };
  for (const Case& c : cases) {
    DeviceLimits limits;
    c.zero(limits);
    for (const std::optional<Mode> forced :
         {std::optional<Mode>{}, std::optional<Mode>{Mode::direct},
          std::optional<Mode>{Mode::spread}, std::optional<Mode>{Mode::multi}}) {
      try {
        make_plan(Domain{10, 3}, limits, BlockConstraints{}, PlanPolicy{}, forced);
        ADD_FAILURE() << c.limit << ": a plan was made";
      } catch (const PlanError& error) {
        EXPECT_EQ(error.limit(), c.limit);
        EXPECT_NE(std::string(error.what()).find(c.limit), std::string::npos) << error.what();
      }
    }
    EXPECT_THROW(max_group_threads(limits, BlockConstraints{}, Mode::direct, 2), PlanError);
  }
}

TEST(Planner, LaunchBoundsCapTheGroup) {
  BlockConstraints bounded;
  bounded.max_threads = 64;
  const Plan plan = make_plan(Domain{1000, 1000}, DeviceLimits{}, bounded);
  EXPECT_LE(plan.block[0] * plan.block[1] * plan.block[2], 64u);
  EXPECT_EQ(max_group_threads(DeviceLimits{}, bounded, Mode::direct, 2), 64u);
  EXPECT_EQ(max_group_threads(DeviceLimits{}, {}, Mode::spread, 5), 256u);
}

TEST(Planner, FoldingThreadsIntoTheNextDimensionRespectsThePerDimensionLimit) {
  // A short inner dimension moves threads to y; y must stay below max_threads_per_dim
  // (it used to grow to 64 and make the plan throw). With 63 threads per dimension per
  // dispatch, 1000 rows need spread.
  DeviceLimits limits;
  limits.max_threads_per_dim = 64;
  const Domain domain{1000, 2};
  const Plan plan = make_plan(domain, limits);
  EXPECT_EQ(plan.mode, Mode::spread);
  EXPECT_EQ(make_plan(domain, limits, {}, {}, Mode::multi).block[1], 32u);
  expect_within_limits(plan, limits, "1000x2 with 64 threads per dimension");
  expect_exactly_once(domain, plan, "1000x2 with 64 threads per dimension");
}

TEST(Planner, HipThreadsPerDimensionLimitIsRespected) {
  // HIP counts the grid in work-items as a uint32: grid * block < 2^32 per dimension.
  DeviceLimits hip;
  hip.max_grid = {0xFFFFFFFFull, 0xFFFFFFFFull, 0xFFFFFFFFull};
  hip.max_threads_per_dim = std::uint64_t(1) << 32;
  const Domain domain{std::int64_t(1) << 33};
  const Plan plan = make_plan(domain, hip);
  expect_within_limits(plan, hip, "2^33 under HIP limits");
  std::uint64_t covered = 0;
  for (const Dispatch& d : plan.dispatches) {
    covered += plan.spread_indexing() ? static_cast<std::uint64_t>(d.linear_end - d.linear_begin)
                                      : d.grid[0] * plan.block[0];
  }
  EXPECT_GE(covered, std::uint64_t(1) << 33);
}

TEST(Planner, TotalsBeyond2To32PlanWithoutOverflow) {
  const DeviceLimits limits;  // CUDA-like
  for (const Domain& domain : {Domain{std::int64_t(1) << 40}, Domain{1 << 20, 1 << 20},
                               Domain{1 << 14, 1 << 14, 1 << 14}, Domain{64, 64, 64, 64, 64, 64}}) {
    for (std::optional<Mode> mode : {std::optional<Mode>{}, std::optional<Mode>{Mode::spread},
                                     std::optional<Mode>{Mode::multi}}) {
      const Plan plan = make_plan(domain, limits, {}, {}, mode);
      expect_within_limits(plan, limits, domain.to_string());
      // Capacity, computed in 128 bits, must cover the domain.
      unsigned __int128 threads = 0;
      for (const Dispatch& d : plan.dispatches) {
        threads += static_cast<unsigned __int128>(d.grid[0]) * d.grid[1] * d.grid[2] *
                   plan.block[0] * plan.block[1] * plan.block[2];
      }
      EXPECT_GE(threads, static_cast<unsigned __int128>(domain.size())) << domain.to_string();
      if (plan.spread_indexing()) {
        EXPECT_EQ(plan.dispatches.front().linear_begin, 0);
        EXPECT_EQ(plan.dispatches.back().linear_end, domain.size());
      }
    }
  }
}

TEST(Planner, CubeRootSpreadingWastesUnderOnePercent) {
  // The patent's setting: 64K groups per dimension. For large totals the cube-root
  // spread leaves under 1% of the groups idle.
  DeviceLimits limits = one_per_group(65535);
  limits.preferred_block.spread = {256, 1, 1};
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<std::int64_t> size(std::int64_t(1) << 26, std::int64_t(1) << 44);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t total = size(rng);
    const Plan plan = make_plan(Domain{total}, limits, {}, {}, Mode::spread);
    ASSERT_EQ(plan.dispatches.size(), 1u);
    const Dispatch& d = plan.dispatches[0];
    const double needed = std::ceil(double(total) / 256.0);
    const double used = double(d.grid[0]) * double(d.grid[1]) * double(d.grid[2]);
    ASSERT_GE(used, needed);
    EXPECT_LT((used - needed) / needed, 0.01)
        << "total " << total << " grid " << d.grid[0] << "x" << d.grid[1] << "x" << d.grid[2];
    // "Around the cube root": no axis more than 2x off the balanced extent.
    const double root = std::cbrt(needed);
    EXPECT_LT(double(d.grid[2]), 2 * root);
  }
}

TEST(Planner, PlansAreCheckedAgainstTheDeviceBeforeAnythingRuns) {
  // Planned under generous (overridden) limits, checked against a HIP-like device.
  DeviceLimits generous;
  generous.max_grid = {std::uint64_t(1) << 40, 65535, 65535};
  const Plan plan = make_plan(Domain{std::int64_t(1) << 33}, generous);
  DeviceLimits hip = generous;
  hip.max_threads_per_dim = std::uint64_t(1) << 32;
  try {
    check_plan_within(plan, hip);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_threads_per_dim[x]");
  }
  EXPECT_NO_THROW(check_plan_within(plan, generous));
  DeviceLimits narrow_grid = generous;
  narrow_grid.max_grid[0] = 1000;
  EXPECT_THROW(check_plan_within(plan, narrow_grid), PlanError);
  DeviceLimits small_groups = generous;
  small_groups.max_threads_per_block = 128;
  EXPECT_THROW(check_plan_within(plan, small_groups), PlanError);
  // Every plan the planner makes for a device passes that device's check.
  const DeviceLimits cuda;
  for (const Domain& domain :
       {Domain{5}, Domain{200000, 2}, Domain{1 << 20, 1 << 20}, Domain{3, 4, 5, 6}}) {
    EXPECT_NO_THROW(check_plan_within(make_plan(domain, cuda), cuda)) << domain.to_string();
  }
}

// Random small domains and limits: every applicable mode covers each position once.
TEST(Planner, PropertyEveryModeCoversEveryIndexExactlyOnce) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int rank = pick(1, 8);
    std::vector<Dim> dims;
    std::int64_t total = 1;
    for (int d = 0; d < rank; ++d) {
      // Mostly small counts, sometimes 0 or 1, keeping the total enumerable.
      const int roll = pick(0, 9);
      std::int64_t count = roll == 0 ? 0 : roll == 1 ? 1 : pick(2, rank <= 3 ? 13 : 4);
      if (total * count > 4000) count = 1;
      total *= count;
      dims.push_back(Dim{pick(-3, 3), count, pick(0, 1) ? 1 : -2});
    }
    const Domain domain(dims);

    DeviceLimits limits;
    limits.max_grid = {std::uint64_t(pick(1, 5)), std::uint64_t(pick(1, 5)),
                       std::uint64_t(pick(1, 5))};
    limits.max_block = {std::uint32_t(pick(1, 8)), std::uint32_t(pick(1, 8)),
                        std::uint32_t(pick(1, 4))};
    limits.max_threads_per_block = std::uint32_t(pick(1, 32));
    if (pick(0, 2) == 0) limits.max_threads_per_dim = std::uint64_t(pick(2, 12));
    limits.preferred_block.spread = {std::uint32_t(pick(1, 8)), std::uint32_t(pick(1, 2)), 1};
    limits.preferred_block.direct = {
        {{std::uint32_t(pick(1, 8)), 1, 1},
         {std::uint32_t(pick(1, 8)), std::uint32_t(pick(1, 4)), 1},
         {std::uint32_t(pick(1, 4)), std::uint32_t(pick(1, 4)), std::uint32_t(pick(1, 2))}}};
    BlockConstraints constraints;
    if (pick(0, 4) == 0) {
      constraints.shape = {std::uint32_t(pick(1, 3)), std::uint32_t(pick(1, 2)),
                           std::uint32_t(pick(1, 2))};
    }
    PlanPolicy policy;
    policy.max_dispatches = 1u << 20;

    for (std::optional<Mode> mode :
         {std::optional<Mode>{}, std::optional<Mode>{Mode::direct},
          std::optional<Mode>{Mode::spread}, std::optional<Mode>{Mode::multi}}) {
      const std::string context = "trial " + std::to_string(trial) + " domain " +
                                  domain.to_string() + " mode " + (mode ? name_of(*mode) : "auto");
      Plan plan;
      try {
        plan = make_plan(domain, limits, constraints, policy, mode);
      } catch (const PlanError& error) {
        // Refusals are legitimate only where the mode cannot apply: a fixed shape the
        // limits do not admit refuses every mode; forced direct refuses rank > 3 and
        // domains one dispatch cannot cover; forced spread the latter. The rest
        // (automatic, multi) must always plan.
        const std::string limit = error.limit();
        const bool per_dim =
            limit.rfind("max_grid", 0) == 0 || limit.rfind("max_threads_per_dim", 0) == 0;
        const bool fixed_misfit =
            constraints.fixed() &&
            (limit.rfind("max_block", 0) == 0 || limit == "max_threads_per_block" ||
             limit.rfind("max_threads_per_dim", 0) == 0);
        const bool legit = fixed_misfit || (mode == Mode::direct && (limit == "rank" || per_dim)) ||
                           (mode == Mode::spread && per_dim);
        ASSERT_TRUE(legit) << context << ": unexpected refusal: " << error.what();
        continue;
      }
      if (mode) {
        ASSERT_EQ(plan.mode, *mode) << context;
      }
      expect_within_limits(plan, limits, context);
      expect_unused_dimensions_hold_one_group(plan, constraints, context);
      expect_exactly_once(domain, plan, context);
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);  // the generator must not degenerate into refusals
}

}  // namespace
}  // namespace stubjit
