// Reduce launches through the real CUDA and HIP stubs on the host emulator, whose
// blocks run their GPU threads in turn with real barriers and run one block at a
// time: the GPU suites' checks (cuda/gpu_reduce_checks.hpp: int64 sums split into
// parts, the last-arriving group combining the partials, with groups of 32, 64, 72 and
// 256 threads; float sums bit for bit between runs and near a host double sum; min and
// max of int32, any and all, bit_xor; a rank-3 domain reduced along each dimension in
// combine and assign modes; empty domains; custom combiners; the other element types),
// each against a host loop, with warp widths 32 and 64 (HIP both).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/gpu_reduce_checks.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/warp_cases.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class EmulatedReduce : public test::emulator::WarpCaseTest {};

#define EMULATED_REDUCE_TEST(name, check)                                                 \
  TEST_P(EmulatedReduce, name) {                                                          \
    const test::emulator::ScopedLargestGroup largest(test::reduce::largest_group(), 256); \
    Runtime runtime = make_runtime();                                                     \
    test::reduce::check(runtime);                                                         \
  }

EMULATED_REDUCE_TEST(Int64SumSplitIntoPartsWithEveryGroupSize, check_int64_sum_in_parts)
EMULATED_REDUCE_TEST(WholeDomainsOfRankTwoAndFourAndAStridedOne, check_whole_domain_of_higher_rank)
EMULATED_REDUCE_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostSum,
                     check_float_sum_is_deterministic)
EMULATED_REDUCE_TEST(MinAndMaxOfInt32WithNegatives, check_int32_min_max)
EMULATED_REDUCE_TEST(AnyAndAllOfBools, check_any_all)
EMULATED_REDUCE_TEST(BitXorOfUint32, check_uint32_xor)
EMULATED_REDUCE_TEST(BitAndAndBitOrOfSignedValues, check_signed_bit_and_or)
EMULATED_REDUCE_TEST(RankThreeDomainAlongEachDimensionCombinedAndAssigned,
                     check_rank3_along_each_dimension)
EMULATED_REDUCE_TEST(EmptyDomainsLeaveOrAssignTheIdentity, check_empty_domains)
EMULATED_REDUCE_TEST(CustomCombinersWholeAndAlongADimension, check_custom_combiners)
EMULATED_REDUCE_TEST(OtherElementTypesSumAndMultiplyExactly, check_other_element_types)
EMULATED_REDUCE_TEST(RepeatUntilAnyAndAllFlagsSayStop, check_repeat_until_flag)

// What the emulator compiled was the GPU dialect's reduce stub, in the index width of
// the configuration.
TEST_P(EmulatedReduce, TheStubIsTheDialectsReduceStub) {
  Runtime runtime = make_runtime();
  Kernel sum = runtime.kernel(test::reduce::sum_kernel_i64());
  Field x = runtime.allocate<std::int64_t>({10});
  x.copy_from(std::vector<std::int64_t>(10, 3));
  EXPECT_EQ(sum.reduce<std::int64_t>(Domain{10}, x), 30);
  const std::vector<std::string> stubs = test::emulator::compiled_stubs();
  const std::string dialect =
      GetParam().config.dialect == test::emulator::Dialect::cuda ? "cuda" : "hip";
  const std::string expected = "stubjit stub for kernel 'sum_i64': dialect " + dialect +
                               ", reduce of the whole domain, rank 1, index i" +
                               (GetParam().config.index32 ? "32" : "64");
  bool found = false;
  for (const std::string& line : stubs) found = found || line == expected;
  EXPECT_TRUE(found) << expected;
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedReduce,
                         ::testing::ValuesIn(test::emulator::warp_cases()),
                         test::emulator::WarpCaseName());

}  // namespace
}  // namespace stubjit
