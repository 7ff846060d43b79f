// The host half of the LaunchParams contract (src/runtime/launch_params.cpp): what a
// stub reads for a domain and a dispatch, byte for byte where it matters.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/launch_params.hpp"

namespace stubjit::detail {
namespace {

// A block of garbage, as the launch path's uninitialized LaunchParams starts.
LaunchParams garbage() {
  LaunchParams lp;
  std::memset(static_cast<void*>(&lp), 0xa5, sizeof lp);
  return lp;
}

bool all_zero(const FastDivisor& divisor) {
  return divisor.multiplier64 == 0 && divisor.multiplier32 == 0 && divisor.shift32 == 0 &&
         divisor.shift64 == 0 && divisor.unused == 0;
}

bool same(const FastDivisor& a, const FastDivisor& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(LaunchParams, DomainFillsEveryDimensionAndZeroesTheRest) {
  LaunchParams lp = garbage();
  const Domain domain = Domain::loops({{1, 10, 3}, {5, -5, -2}});
  fill_domain(lp, domain);
  EXPECT_EQ(lp.first[0], 1);
  EXPECT_EQ(lp.count[0], 4);
  EXPECT_EQ(lp.step[0], 3);
  EXPECT_EQ(lp.first[1], 5);
  EXPECT_EQ(lp.count[1], 6);
  EXPECT_EQ(lp.step[1], -2);
  for (int d = 2; d < max_domain_rank; ++d) {
    EXPECT_EQ(lp.first[d], 0);
    EXPECT_EQ(lp.count[d], 0);
    EXPECT_EQ(lp.step[d], 0);
  }
  for (int d = 0; d < max_domain_rank; ++d) EXPECT_TRUE(all_zero(lp.divisor[d])) << d;
  EXPECT_EQ(lp.shared_bytes, 0u);
}

TEST(LaunchParams, DirectPlansCarryNoDivisors) {
  LaunchParams lp = garbage();
  const Domain domain{300, 7, 5};
  const Plan plan = make_plan(domain, DeviceLimits{}, {}, {}, Mode::direct);
  fill_domain(lp, domain);
  fill_dispatch(lp, plan, plan.dispatches.front());
  for (int d = 0; d < max_domain_rank; ++d) EXPECT_TRUE(all_zero(lp.divisor[d])) << d;
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(lp.grid[p], plan.dispatches.front().grid[static_cast<std::size_t>(p)]);
    EXPECT_EQ(lp.block[p], plan.block[static_cast<std::size_t>(p)]);
  }
}

// Spread plans (and multi plans that spread, every dispatch of them) carry the
// divisors of counts 1 .. rank-1; divisor 0 and those past the rank stay zero.
TEST(LaunchParams, SpreadPlansCarryTheDivisorsOfTheInnerCounts) {
  const Domain domain{3, 1, 7, 1000, 2, 5};
  DeviceLimits small;
  small.max_grid = {4, 4, 4};
  for (const Plan& plan : {make_plan(domain, DeviceLimits{}, {}, {}, Mode::spread),
                           make_plan(domain, small, {}, {}, Mode::multi)}) {
    ASSERT_TRUE(plan.spread_indexing());
    if (plan.mode == Mode::multi) {
      ASSERT_GT(plan.dispatches.size(), 1u);
    }
    LaunchParams lp = garbage();
    fill_domain(lp, domain);
    for (const Dispatch& dispatch : plan.dispatches) {
      fill_dispatch(lp, plan, dispatch);
      EXPECT_EQ(lp.linear_begin, dispatch.linear_begin);
      EXPECT_EQ(lp.linear_end, dispatch.linear_end);
      EXPECT_TRUE(all_zero(lp.divisor[0]));
      for (int d = 1; d < domain.rank(); ++d) {
        EXPECT_TRUE(same(lp.divisor[d], make_fast_divisor(static_cast<u64>(domain[d].count)))) << d;
      }
      for (int d = domain.rank(); d < max_domain_rank; ++d) EXPECT_TRUE(all_zero(lp.divisor[d]));
    }
  }
}

}  // namespace
}  // namespace stubjit::detail
