// On a CUDA GPU: every mode forced, every rank 1..8, with limits small enough that
// multi-dispatch really splits, visits each logical index exactly once and gives it
// its own index; a domain with more rows than grid-y allows still runs correctly.
#include <gtest/gtest.h>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

class CudaForcedModes : public ::testing::TestWithParam<test::CoverageCase> {};

TEST_P(CudaForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const test::CoverageCase c = GetParam();
  RuntimeOptions options;
  options.limits = test::tiny_limits();
  CUDA_RUNTIME_OR_SKIP(runtime, options);
  test::check_tiny_limit_case(*runtime, c);
}

INSTANTIATE_TEST_SUITE_P(AllRanks, CudaForcedModes, ::testing::ValuesIn(test::tiny_limit_cases()),
                         test::case_name);

// Device limits, every mode and rank that one dispatch can cover: the same coverage.
class CudaDeviceLimits : public ::testing::TestWithParam<test::CoverageCase> {};

TEST_P(CudaDeviceLimits, EveryIndexOnceWithItsOwnIndex) {
  const test::CoverageCase c = GetParam();
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  // Several groups, while the fields that cover the domain stay within a few million
  // elements up to rank 8.
  std::vector<Dim> dims =
      c.rank <= 3 ? std::vector<Dim>{Dim{2, 600, 1}, Dim{1, 20, 3}, Dim{0, 41, 1}}
                  : std::vector<Dim>{Dim{1, 5, 2}, Dim{0, 6, 1}, Dim{3, 4, -1}, Dim{0, 5, 1},
                                     Dim{1, 3, 1}, Dim{0, 2, 1}, Dim{2, 2, -1}, Dim{0, 3, 1}};
  dims.resize(static_cast<std::size_t>(c.rank));
  LaunchSummary summary;
  test::check_exactly_once(*runtime, Domain(dims), c.mode, summary);
  EXPECT_EQ(summary.mode, c.mode);
}

std::vector<test::CoverageCase> device_cases() {
  std::vector<test::CoverageCase> cases;
  for (int rank = 1; rank <= 8; ++rank)
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi})
      if (mode != Mode::direct || rank <= 3) cases.push_back({rank, mode});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllRanks, CudaDeviceLimits, ::testing::ValuesIn(device_cases()),
                         test::case_name);

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
