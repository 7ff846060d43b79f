// On an AMD GPU: scan launches (cuda/gpu_scan_checks.hpp, shared with the CUDA suite)
// against host prefixes, on the device's own wavefronts (64 on CDNA, 32 on RDNA): int64
// sums inclusive and exclusive split into parts with groups of 32 to 1024 threads; a
// rank-3 domain along each dimension in C and Fortran order; float sums bit for bit
// between runs; in place, custom and any; other element types; empty and one-element
// domains; a split pencil launched 20 times, exact and the same bits each time. Without an AMD GPU
// every test skips with the reason; with one that stubjit cannot use, every test fails
// (hip/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_scan_checks.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

#define HIP_SCAN_TEST(name, check)                                            \
  TEST(HipScan, name) {                                                       \
    HIP_RUNTIME_OR_SKIP(gpu);                                                 \
    ASSERT_TRUE(gpu.limits().warp_size == 32 || gpu.limits().warp_size == 64) \
        << gpu.limits().warp_size;                                            \
    test::scan::check(gpu);                                                   \
  }

HIP_SCAN_TEST(Int64SumsInclusiveAndExclusiveSplitIntoParts, check_int64_scan_in_parts)
HIP_SCAN_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
HIP_SCAN_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostsPrefixes,
              check_float_scan_is_deterministic)
HIP_SCAN_TEST(InPlaceCustomAndAny, check_in_place_custom_and_any)
HIP_SCAN_TEST(OtherElementTypesExactly, check_other_element_types)
HIP_SCAN_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)
HIP_SCAN_TEST(SplitScansRepeatedAreExactAndTheSameBitsEveryLaunch,
              check_split_scans_repeat_exactly_on_a_gpu)

}  // namespace
}  // namespace stubjit
