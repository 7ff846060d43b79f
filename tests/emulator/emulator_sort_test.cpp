// Sort launches through the real CUDA and HIP stubs on the host emulator, whose blocks
// run their GPU threads in turn with real barriers, one block at a time: the GPU
// suites' checks (cuda/gpu_sort_checks.hpp: int64 keys with ties and their permutation
// with groups of 32, 64, 72 and 256 threads over one part, a few and forty, a rank-3
// domain along each dimension in C and Fortran order, floats with NaNs both ways and a
// custom order with a payload, other element types, empty and one-element domains),
// each against std::stable_sort on the host, with warp widths 32 and 64 (HIP both).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/gpu_sort_checks.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/warp_cases.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class EmulatedSort : public test::emulator::WarpCaseTest {};

#define EMULATED_SORT_TEST(name, check)                                                   \
  TEST_P(EmulatedSort, name) {                                                            \
    const test::emulator::ScopedLargestGroup largest(test::reduce::largest_group(), 256); \
    Runtime runtime = make_runtime();                                                     \
    test::sort::check(runtime);                                                           \
  }

EMULATED_SORT_TEST(Int64KeysAndTheirPermutationWithEveryGroupSize,
                   check_int64_sort_with_every_group_size)
EMULATED_SORT_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
EMULATED_SORT_TEST(FloatsWithNansBothWaysAndACustomOrder, check_floats_and_custom_orders)
EMULATED_SORT_TEST(OtherElementTypes, check_other_element_types)
EMULATED_SORT_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)
EMULATED_SORT_TEST(ABackwardDomainWithKeysAfterTwoPayloads,
                   check_backward_domain_and_payloads_first)

// What the emulator compiled were the GPU dialect's two sort stages.
TEST_P(EmulatedSort, TheStubsAreTheDialectsSortStages) {
  Runtime runtime = make_runtime();
  Kernel kernel = runtime.kernel({"sort_stages", {sort<std::int64_t>("x")}, ""});
  const std::int64_t n = 2000;
  std::vector<std::int64_t> keys(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) keys[std::size_t(k)] = (k * 7919) % n;
  Field x = runtime.allocate<std::int64_t>({n});
  x.copy_from(keys);
  LaunchOptions options;
  options.group_size = 64;
  EXPECT_GT(kernel.launch(options, Domain{n}, x).reduce_parts, 1u);
  std::vector<std::int64_t> want(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) want[std::size_t(k)] = k;
  EXPECT_EQ(x.to_vector<std::int64_t>(), want);
  const std::vector<std::string> stubs = test::emulator::compiled_stubs();
  const std::string dialect =
      GetParam().config.dialect == test::emulator::Dialect::cuda ? "cuda" : "hip";
  const std::string index = GetParam().config.index32 ? "32" : "64";
  for (const std::string stage : {"sort_runs", "sort_merge"}) {
    const std::string expected = "stubjit stub for kernel 'sort_stages': dialect " + dialect +
                                 ", " + stage + " along dimension 0, rank 1, index i" + index;
    bool found = false;
    for (const std::string& line : stubs) found = found || line == expected;
    EXPECT_TRUE(found) << expected;
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedSort, ::testing::ValuesIn(test::emulator::warp_cases()),
                         test::emulator::WarpCaseName());

}  // namespace
}  // namespace stubjit
