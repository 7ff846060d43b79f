// Every mode forced, every rank 1..8, with limits small enough that multi-dispatch
// really splits: each logical index is visited exactly once and sees its own index.
#include <gtest/gtest.h>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

// Small limits: at most 3 groups per dimension of at most 4 x 2 x 2 threads.
DeviceLimits tiny_limits() {
  DeviceLimits limits;
  limits.max_grid = {3, 3, 3};
  limits.max_block = {4, 2, 2};
  limits.max_threads_per_block = 16;
  limits.preferred_block.spread = {4, 2, 1};
  limits.preferred_block.direct = {{{4, 1, 1}, {4, 2, 1}, {2, 2, 2}}};
  return limits;
}

Domain domain_of_rank(int rank) {
  // Strided, offset, some negative steps; sizes chosen to overflow one dispatch.
  const std::vector<Dim> all = {Dim{3, 7, 2}, Dim{-2, 5, 1}, Dim{10, 4, -3}, Dim{0, 3, 1},
                                Dim{1, 2, 5}, Dim{5, 3, -1}, Dim{0, 2, 1},   Dim{-1, 2, 2}};
  return Domain(std::vector<Dim>(all.begin(), all.begin() + rank));
}

std::vector<std::int64_t> field_extents(const Domain& domain) {
  std::vector<std::int64_t> extents;
  for (const Dim& d : domain.dims()) {
    const std::int64_t last = d.at(d.count - 1);
    extents.push_back(std::max(d.first, last) + 3);  // covers the logical indices
  }
  return extents;
}

struct Case {
  int rank;
  Mode mode;
};

class ForcedModes : public ::testing::TestWithParam<Case> {};

TEST_P(ForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const Case c = GetParam();
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = tiny_limits();
  Runtime runtime(options);
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  Kernel write = runtime.kernel(test::index_writer_kernel());

  // Negative logical indices (dimension 1 starts at -2) cannot address a field, so
  // shift the domain into the field's range for the projection.
  std::vector<Dim> dims = domain_of_rank(c.rank).dims();
  for (Dim& d : dims) {
    const std::int64_t low = std::min(d.first, d.at(d.count - 1));
    if (low < 0) d.first -= low;
  }
  const Domain domain(dims);
  const std::vector<std::int64_t> extents = field_extents(domain);
  Field visits = runtime.allocate<std::int32_t>(extents);
  Field codes = runtime.allocate<std::int64_t>(extents);
  visits.copy_from(std::vector<std::int32_t>(static_cast<std::size_t>(visits.size()), 0));
  codes.copy_from(std::vector<std::int64_t>(static_cast<std::size_t>(codes.size()), -1));

  LaunchOptions forced;
  forced.mode = c.mode;
  const LaunchSummary summary = count.launch(forced, domain, visits);
  write.launch(forced, domain, codes);
  EXPECT_EQ(summary.mode, c.mode);
  // Rank 1 fits one dispatch even under tiny limits; every higher rank must split.
  if (c.mode == Mode::multi && c.rank >= 2) {
    EXPECT_GT(summary.dispatches, 1u) << "limits too large to split";
  }

  // Expected: visited once exactly at the domain's logical indices.
  const std::vector<std::int32_t> host_visits = visits.to_vector<std::int32_t>();
  const std::vector<std::int64_t> host_codes = codes.to_vector<std::int64_t>();
  std::vector<std::int32_t> expected(host_visits.size(), 0);
  std::vector<std::int64_t> expected_codes(host_codes.size(), -1);
  std::vector<std::int64_t> k(static_cast<std::size_t>(c.rank), 0);
  for (std::int64_t n = 0; n < domain.size(); ++n) {
    std::int64_t rest = n;
    std::vector<std::int64_t> logical(static_cast<std::size_t>(c.rank));
    std::int64_t offset = 0;
    for (int d = c.rank - 1; d >= 0; --d) {
      const std::int64_t position = rest % domain[d].count;
      rest /= domain[d].count;
      logical[static_cast<std::size_t>(d)] = domain[d].at(position);
    }
    for (int d = 0; d < c.rank; ++d)
      offset = offset * extents[static_cast<std::size_t>(d)] + logical[static_cast<std::size_t>(d)];
    ++expected[static_cast<std::size_t>(offset)];
    expected_codes[static_cast<std::size_t>(offset)] = test::index_code(logical);
  }
  ASSERT_EQ(host_visits, expected) << name_of(c.mode) << " rank " << c.rank;
  ASSERT_EQ(host_codes, expected_codes) << name_of(c.mode) << " rank " << c.rank;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (int rank = 1; rank <= 8; ++rank) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      if (mode == Mode::direct && rank > 3) continue;
      if (mode != Mode::multi) {
        // direct and spread need one dispatch: only small ranks fit tiny limits
        // (spread: 27 groups of 4x2 threads; direct: rank 1 only).
        if (mode == Mode::spread && domain_of_rank(rank).size() > 27 * 8) continue;
        if (mode == Mode::direct && rank > 1) continue;
      }
      cases.push_back({rank, mode});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllRanks, ForcedModes, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(name_of(info.param.mode)) + "_rank" +
                                  std::to_string(info.param.rank);
                         });

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
  options.limits = tiny_limits();
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

}  // namespace
}  // namespace stubjit
