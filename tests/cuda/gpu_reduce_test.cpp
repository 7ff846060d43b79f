// On a CUDA GPU: reduce launches (cuda/gpu_reduce_checks.hpp) against host loops, on the
// device's warps of 32: int64 sums split into parts (the last-arriving group combining
// the partials, more partials than threads too) with groups of 32, 64, 96, 256 and 1024
// threads; whole domains of rank 2 and 4 and a strided one; float sums bit for bit
// between runs and near a host double sum; min and max of int32, any and all, bit_xor; a
// rank-3 domain reduced along each dimension in combine and assign modes (C and Fortran
// order); empty domains; custom combiners; exact sums and products of the other element
// types. Without a CUDA device every test skips with the reason; with one that stubjit
// cannot use, every test fails (cuda/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_reduce_checks.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

// A test that runs `check` on the CUDA device (the runtime's own limits: warps of 32).
#define CUDA_REDUCE_TEST(name, check)            \
  TEST(CudaReduce, name) {                       \
    CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{}); \
    ASSERT_EQ(gpu->limits().warp_size, 32u);     \
    test::reduce::check(*gpu);                   \
  }

CUDA_REDUCE_TEST(Int64SumSplitIntoPartsWithEveryGroupSize, check_int64_sum_in_parts)
CUDA_REDUCE_TEST(WholeDomainsOfRankTwoAndFourAndAStridedOne, check_whole_domain_of_higher_rank)
CUDA_REDUCE_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostSum, check_float_sum_is_deterministic)
CUDA_REDUCE_TEST(MinAndMaxOfInt32WithNegatives, check_int32_min_max)
CUDA_REDUCE_TEST(AnyAndAllOfBools, check_any_all)
CUDA_REDUCE_TEST(BitXorOfUint32, check_uint32_xor)
CUDA_REDUCE_TEST(BitAndAndBitOrOfSignedValues, check_signed_bit_and_or)
CUDA_REDUCE_TEST(RankThreeDomainAlongEachDimensionCombinedAndAssigned,
                 check_rank3_along_each_dimension)
CUDA_REDUCE_TEST(EmptyDomainsLeaveOrAssignTheIdentity, check_empty_domains)
CUDA_REDUCE_TEST(CustomCombinersWholeAndAlongADimension, check_custom_combiners)
CUDA_REDUCE_TEST(OtherElementTypesSumAndMultiplyExactly, check_other_element_types)
CUDA_REDUCE_TEST(RepeatUntilAnyAndAllFlagsSayStop, check_repeat_until_flag)

}  // namespace
}  // namespace stubjit
