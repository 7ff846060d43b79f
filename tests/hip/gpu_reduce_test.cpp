// On an AMD GPU: reduce launches (cuda/gpu_reduce_checks.hpp, shared with the CUDA
// suite) against host loops, on the device's own wavefronts (64 on CDNA, 32 on RDNA; a
// stub is compiled for the device's width): int64 sums split into parts (the
// last-arriving group combining the partials, more partials than threads too) with
// groups of 32, 64, 96, 256 and 1024 threads; whole domains of rank 2 and 4 and a
// strided one; float sums bit for bit between runs and near a host double sum; min and
// max of int32, any and all, bit_xor; a rank-3 domain reduced along each dimension in
// combine and assign modes (C and Fortran order); empty domains; custom combiners; exact
// sums and products of the other element types. Without an AMD GPU every test skips
// with the reason; with one that stubjit cannot use, every test fails
// (hip/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_reduce_checks.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

// A test that runs `check` on the AMD GPU (the runtime's own limits).
#define HIP_REDUCE_TEST(name, check)                                          \
  TEST(HipReduce, name) {                                                     \
    HIP_RUNTIME_OR_SKIP(gpu);                                                 \
    ASSERT_TRUE(gpu.limits().warp_size == 32 || gpu.limits().warp_size == 64) \
        << gpu.limits().warp_size;                                            \
    test::reduce::check(gpu);                                                 \
  }

HIP_REDUCE_TEST(Int64SumSplitIntoPartsWithEveryGroupSize, check_int64_sum_in_parts)
HIP_REDUCE_TEST(WholeDomainsOfRankTwoAndFourAndAStridedOne, check_whole_domain_of_higher_rank)
HIP_REDUCE_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostSum, check_float_sum_is_deterministic)
HIP_REDUCE_TEST(MinAndMaxOfInt32WithNegatives, check_int32_min_max)
HIP_REDUCE_TEST(AnyAndAllOfBools, check_any_all)
HIP_REDUCE_TEST(BitXorOfUint32, check_uint32_xor)
HIP_REDUCE_TEST(BitAndAndBitOrOfSignedValues, check_signed_bit_and_or)
HIP_REDUCE_TEST(RankThreeDomainAlongEachDimensionCombinedAndAssigned,
                check_rank3_along_each_dimension)
HIP_REDUCE_TEST(EmptyDomainsLeaveOrAssignTheIdentity, check_empty_domains)
HIP_REDUCE_TEST(CustomCombinersWholeAndAlongADimension, check_custom_combiners)
HIP_REDUCE_TEST(OtherElementTypesSumAndMultiplyExactly, check_other_element_types)
HIP_REDUCE_TEST(RepeatUntilAnyAndAllFlagsSayStop, check_repeat_until_flag)

}  // namespace
}  // namespace stubjit
