// On an AMD GPU: sort launches (cuda/gpu_sort_checks.hpp, shared with the CUDA suite)
// against std::stable_sort on the host: int64 keys with ties and their permutation with
// groups of 32 to 1024 threads; a rank-3 domain along each dimension in C and Fortran
// order; floats with NaNs both ways and a custom order with a payload; other element
// types; empty and one-element domains. Without an AMD GPU every test skips with the
// reason; with one that stubjit cannot use, every test fails (hip/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_sort_checks.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

#define HIP_SORT_TEST(name, check) \
  TEST(HipSort, name) {            \
    HIP_RUNTIME_OR_SKIP(gpu);      \
    test::sort::check(gpu);        \
  }

HIP_SORT_TEST(Int64KeysAndTheirPermutationWithEveryGroupSize,
              check_int64_sort_with_every_group_size)
HIP_SORT_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
HIP_SORT_TEST(FloatsWithNansBothWaysAndACustomOrder, check_floats_and_custom_orders)
HIP_SORT_TEST(OtherElementTypes, check_other_element_types)
HIP_SORT_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)
HIP_SORT_TEST(ABackwardDomainWithKeysAfterTwoPayloads, check_backward_domain_and_payloads_first)

}  // namespace
}  // namespace stubjit
