// Every mode forced, every rank 1..8, with limits small enough that multi-dispatch
// really splits: each logical index is visited exactly once and sees its own index.
#include <gtest/gtest.h>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class ForcedModes : public ::testing::TestWithParam<test::CoverageCase> {};

TEST_P(ForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const test::CoverageCase c = GetParam();
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  test::check_tiny_limit_case(runtime, c);
}

INSTANTIATE_TEST_SUITE_P(AllRanks, ForcedModes, ::testing::ValuesIn(test::tiny_limit_cases()),
                         test::case_name);

TEST(Modes, EveryModeOnDefaultLimitsGivesTheSameResult) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Kernel write = runtime.kernel(test::index_writer_kernel());
  const Domain domain = Domain::loops({{0, 40}, {3, 200, 3}, {0, 9}});
  const std::vector<std::int64_t> extents = {41, 201, 10};
  std::vector<std::int64_t> reference;
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
    Field out = runtime.allocate<std::int64_t>(extents);
    out.copy_from(std::vector<std::int64_t>(static_cast<std::size_t>(out.size()), -1));
    LaunchOptions forced;
    forced.mode = mode;
    EXPECT_EQ(write.launch(forced, domain, out).mode, mode);
    const std::vector<std::int64_t> host = out.to_vector<std::int64_t>();
    if (reference.empty()) {
      reference = host;
      EXPECT_EQ(host[static_cast<std::size_t>((5 * 201 + 6) * 10 + 7)],
                test::index_code({5, 6, 7}));
    } else {
      EXPECT_EQ(host, reference) << name_of(mode);
    }
  }
}

TEST(Modes, SmallLimitsMakeTheAutomaticPlanSplit) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();
  options.fuse_dimensions = false;  // Kernel::plan plans the domain as given
  Runtime runtime(options);
  EXPECT_EQ(runtime.limits().max_grid[0], 3u);
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  const Domain domain{20, 20};
  Field visits = runtime.allocate<std::int32_t>({20, 20});
  visits.copy_from(std::vector<std::int32_t>(400, 0));
  const LaunchSummary summary = count.launch(domain, visits);
  EXPECT_EQ(summary.mode, count.plan(domain).mode);
  EXPECT_EQ(summary.dispatches, count.plan(domain).dispatches.size());
  EXPECT_GT(summary.dispatches, 1u);
  for (std::int32_t v : visits.to_vector<std::int32_t>()) ASSERT_EQ(v, 1);
}

// One limit changed, the others the device's: no throwaway runtime to read them first.
TEST(Modes, AdjustedLimitsChangeOnlyWhatTheyChange) {
  const DeviceLimits device = Runtime(test::cpu_options()).limits();
  RuntimeOptions options = test::cpu_options();
  options.adjust_limits = [](DeviceLimits& limits) { limits.max_grid = {3, 3, 3}; };
  Runtime runtime(options);
  DeviceLimits expected = device;
  expected.max_grid = {3, 3, 3};
  EXPECT_EQ(runtime.limits().max_grid, expected.max_grid);
  EXPECT_EQ(runtime.limits().max_block, device.max_block);
  EXPECT_EQ(runtime.limits().max_threads_per_block, device.max_threads_per_block);
  EXPECT_EQ(runtime.limits().preferred_block.direct, device.preferred_block.direct);
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  // 4096-long rows: 3 groups of them cover 3 rows at most per dispatch.
  const Domain domain{20, 4096};
  EXPECT_GT(count.plan(domain).dispatches.size(), 1u);
  Field visits = runtime.allocate<std::int32_t>({20, 4096});
  visits.copy_from(std::vector<std::int32_t>(20 * 4096, 0));
  count.launch(domain, visits);
  for (std::int32_t v : visits.to_vector<std::int32_t>()) ASSERT_EQ(v, 1);
}

}  // namespace
}  // namespace stubjit
