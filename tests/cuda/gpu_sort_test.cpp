// On a CUDA GPU: sort launches (cuda/gpu_sort_checks.hpp) against std::stable_sort on the
// host: int64 keys with ties and their permutation with groups of 32, 64, 96, 256 and
// 1024 threads (one part, a few, forty); a rank-3 domain along each dimension in C and
// Fortran order; floats with NaNs and signed zeros both ways and a custom order with a
// payload; other element types; empty and one-element domains. Without a CUDA device
// every test skips with the reason; with one that stubjit cannot use, every test fails
// (cuda/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_sort_checks.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

#define CUDA_SORT_TEST(name, check)              \
  TEST(CudaSort, name) {                         \
    CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{}); \
    test::sort::check(*gpu);                     \
  }

CUDA_SORT_TEST(Int64KeysAndTheirPermutationWithEveryGroupSize,
               check_int64_sort_with_every_group_size)
CUDA_SORT_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
CUDA_SORT_TEST(FloatsWithNansBothWaysAndACustomOrder, check_floats_and_custom_orders)
CUDA_SORT_TEST(OtherElementTypes, check_other_element_types)
CUDA_SORT_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)
CUDA_SORT_TEST(ABackwardDomainWithKeysAfterTwoPayloads, check_backward_domain_and_payloads_first)

}  // namespace
}  // namespace stubjit
