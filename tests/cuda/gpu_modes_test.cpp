// On a CUDA GPU: every mode forced, every rank 1..8, with limits small enough that
// multi-dispatch really splits, visits each logical index exactly once and gives it
// its own index; a domain with more rows than grid-y allows still runs correctly.
#include <gtest/gtest.h>

#include "common/kernels.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

// At most 3 groups per dimension of at most 4 x 2 x 2 threads (as the CPU suite).
DeviceLimits tiny_limits() {
  DeviceLimits limits;
  limits.max_grid = {3, 3, 3};
  limits.max_block = {4, 2, 2};
  limits.max_threads_per_block = 16;
  limits.preferred_block.spread = {4, 2, 1};
  limits.preferred_block.direct = {{{4, 1, 1}, {4, 2, 1}, {2, 2, 2}}};
  return limits;
}

// Strided, offset, negative steps; shifted so that every logical index addresses
// the field.
Domain domain_of_rank(int rank) {
  std::vector<Dim> dims = {Dim{3, 7, 2}, Dim{0, 5, 1},  Dim{10, 4, -3}, Dim{0, 3, 1},
                           Dim{1, 2, 5}, Dim{5, 3, -1}, Dim{0, 2, 1},   Dim{1, 2, 2}};
  dims.resize(static_cast<std::size_t>(rank));
  return Domain(dims);
}

std::vector<std::int64_t> extents_covering(const Domain& domain) {
  std::vector<std::int64_t> extents;
  for (const Dim& d : domain.dims()) extents.push_back(std::max(d.first, d.at(d.count - 1)) + 3);
  return extents;
}

// Expected visits and index codes, computed on the host from the domain alone.
void expected_for(const Domain& domain, const std::vector<std::int64_t>& extents,
                  std::vector<std::int32_t>& visits, std::vector<std::int64_t>& codes) {
  std::size_t size = 1;
  for (std::int64_t e : extents) size *= static_cast<std::size_t>(e);
  visits.assign(size, 0);
  codes.assign(size, -1);
  const int rank = domain.rank();
  for (std::int64_t n = 0; n < domain.size(); ++n) {
    std::int64_t rest = n;
    std::vector<std::int64_t> logical(static_cast<std::size_t>(rank));
    for (int d = rank - 1; d >= 0; --d) {
      logical[static_cast<std::size_t>(d)] = domain[d].at(rest % domain[d].count);
      rest /= domain[d].count;
    }
    std::int64_t offset = 0;
    for (int d = 0; d < rank; ++d)
      offset = offset * extents[static_cast<std::size_t>(d)] + logical[static_cast<std::size_t>(d)];
    ++visits[static_cast<std::size_t>(offset)];
    codes[static_cast<std::size_t>(offset)] = test::index_code(logical);
  }
}

struct Case {
  int rank;
  Mode mode;
};

class CudaForcedModes : public ::testing::TestWithParam<Case> {};

TEST_P(CudaForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const Case c = GetParam();
  RuntimeOptions options;
  options.limits = tiny_limits();
  CUDA_RUNTIME_OR_SKIP(runtime, options);
  Kernel count = runtime->kernel(test::visit_counter_kernel());
  Kernel write = runtime->kernel(test::index_writer_kernel());
  const Domain domain = domain_of_rank(c.rank);
  const std::vector<std::int64_t> extents = extents_covering(domain);
  Field visits = runtime->allocate<std::int32_t>(extents);
  Field codes = runtime->allocate<std::int64_t>(extents);
  visits.copy_from(std::vector<std::int32_t>(static_cast<std::size_t>(visits.size()), 0));
  codes.copy_from(std::vector<std::int64_t>(static_cast<std::size_t>(codes.size()), -1));

  LaunchOptions forced;
  forced.mode = c.mode;
  const LaunchSummary summary = count.launch(forced, domain, visits);
  write.launch(forced, domain, codes);
  EXPECT_EQ(summary.mode, c.mode);
  if (c.mode == Mode::multi && c.rank >= 2) {
    EXPECT_GT(summary.dispatches, 1u) << "limits too large to split";
  }

  std::vector<std::int32_t> expected_visits;
  std::vector<std::int64_t> expected_codes;
  expected_for(domain, extents, expected_visits, expected_codes);
  ASSERT_EQ(visits.to_vector<std::int32_t>(), expected_visits);
  ASSERT_EQ(codes.to_vector<std::int64_t>(), expected_codes);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (int rank = 1; rank <= 8; ++rank) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      // direct and spread need one dispatch: under tiny limits only small domains fit.
      if (mode == Mode::direct && rank > 1) continue;
      if (mode == Mode::spread && domain_of_rank(rank).size() > 27 * 8) continue;
      cases.push_back({rank, mode});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllRanks, CudaForcedModes, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(name_of(info.param.mode)) + "_rank" +
                                  std::to_string(info.param.rank);
                         });

// Device limits, every mode and rank that one dispatch can cover: the same coverage.
class CudaDeviceLimits : public ::testing::TestWithParam<Case> {};

TEST_P(CudaDeviceLimits, EveryIndexOnceWithItsOwnIndex) {
  const Case c = GetParam();
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  Kernel count = runtime->kernel(test::visit_counter_kernel());
  Kernel write = runtime->kernel(test::index_writer_kernel());
  // Several groups, while the fields that cover the domain stay within a few million
  // elements up to rank 8.
  std::vector<Dim> dims =
      c.rank <= 3 ? std::vector<Dim>{Dim{2, 600, 1}, Dim{1, 20, 3}, Dim{0, 41, 1}}
                  : std::vector<Dim>{Dim{1, 5, 2}, Dim{0, 6, 1}, Dim{3, 4, -1}, Dim{0, 5, 1},
                                     Dim{1, 3, 1}, Dim{0, 2, 1}, Dim{2, 2, -1}, Dim{0, 3, 1}};
  dims.resize(static_cast<std::size_t>(c.rank));
  const Domain domain(dims);
  const std::vector<std::int64_t> extents = extents_covering(domain);
  Field visits = runtime->allocate<std::int32_t>(extents);
  Field codes = runtime->allocate<std::int64_t>(extents);
  visits.copy_from(std::vector<std::int32_t>(static_cast<std::size_t>(visits.size()), 0));
  codes.copy_from(std::vector<std::int64_t>(static_cast<std::size_t>(codes.size()), -1));
  LaunchOptions forced;
  forced.mode = c.mode;
  EXPECT_EQ(count.launch(forced, domain, visits).mode, c.mode);
  write.launch(forced, domain, codes);
  std::vector<std::int32_t> expected_visits;
  std::vector<std::int64_t> expected_codes;
  expected_for(domain, extents, expected_visits, expected_codes);
  ASSERT_EQ(visits.to_vector<std::int32_t>(), expected_visits);
  ASSERT_EQ(codes.to_vector<std::int64_t>(), expected_codes);
}

std::vector<Case> device_cases() {
  std::vector<Case> cases;
  for (int rank = 1; rank <= 8; ++rank)
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi})
      if (mode != Mode::direct || rank <= 3) cases.push_back({rank, mode});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllRanks, CudaDeviceLimits, ::testing::ValuesIn(device_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(name_of(info.param.mode)) + "_rank" +
                                  std::to_string(info.param.rank);
                         });

// 200000 rows: more than grid-y's 65535 if a group held one row. Kokkos #4192 and
// AdaptiveCpp #582 silently skip rows here.
constexpr std::int64_t many_rows = 200000;
constexpr std::int64_t few_cols = 3;

void expect_every_row_once(Runtime& runtime, const KernelSource& source, std::optional<Mode> mode,
                           std::size_t min_dispatches) {
  Kernel count = runtime.kernel(source);
  const Domain domain{many_rows, few_cols};
  Field visits = runtime.allocate<std::int32_t>({many_rows, few_cols});
  visits.copy_from(std::vector<std::int32_t>(static_cast<std::size_t>(visits.size()), 0));
  LaunchOptions options;
  options.mode = mode;
  const LaunchSummary summary = count.launch(options, domain, visits);
  EXPECT_GE(summary.dispatches, min_dispatches);
  const std::vector<std::int32_t> host = visits.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < host.size(); ++i)
    ASSERT_EQ(host[i], 1) << "element " << i << " (row " << i / few_cols << ") with mode "
                          << name_of(summary.mode);
}

TEST(CudaLargeDomains, TwoHundredThousandRowsWithThePlannersBlocks) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  for (std::optional<Mode> mode :
       {std::optional<Mode>{}, std::optional<Mode>{Mode::direct}, std::optional<Mode>{Mode::spread},
        std::optional<Mode>{Mode::multi}}) {
    expect_every_row_once(*runtime, test::visit_counter_kernel(), mode, 1);
  }
}

TEST(CudaLargeDomains, TwoHundredThousandRowsOneRowPerGroup) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  // A fixed 32x1x1 group: 200000 groups along y, beyond grid-y's 65535.
  KernelSource source = test::visit_counter_kernel();
  source.block.shape = {32, 1, 1};
  Kernel kernel = runtime->kernel(source);
  EXPECT_THROW(kernel.plan(Domain{many_rows, few_cols}, Mode::direct), PlanError);
  EXPECT_NE(kernel.plan(Domain{many_rows, few_cols}).mode, Mode::direct);
  expect_every_row_once(*runtime, source, std::nullopt, 1);
  expect_every_row_once(*runtime, source, Mode::multi, 4);  // ceil(200000 / 65535)
  expect_every_row_once(*runtime, source, Mode::spread, 1);
}

TEST(CudaLargeDomains, TwoHundredThousandRowsRankThree) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  KernelSource source = test::visit_counter_kernel();
  source.block.shape = {2, 1, 1};  // z needs 200000 groups, beyond grid-z's 65535
  Kernel count = runtime->kernel(source);
  const Domain domain{many_rows, 1, 2};
  Field visits = runtime->allocate<std::int32_t>({many_rows, 1, 2});
  visits.copy_from(std::vector<std::int32_t>(static_cast<std::size_t>(visits.size()), 0));
  const LaunchSummary summary = count.launch(domain, visits);
  EXPECT_NE(summary.mode, Mode::direct);
  for (std::int32_t v : visits.to_vector<std::int32_t>()) ASSERT_EQ(v, 1);
}

}  // namespace
}  // namespace stubjit
