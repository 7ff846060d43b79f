// On a CUDA GPU: scan launches (cuda/gpu_scan_checks.hpp) against host prefixes, on the
// device's warps of 32: int64 sums inclusive and exclusive split into parts with groups
// of 32, 64, 96, 256 and 1024 threads (more parts than threads too); a rank-3 domain
// along each dimension in C and Fortran order; float sums bit for bit between runs and
// near the host's prefixes; in place, custom and any; other element types; empty and
// one-element domains; a pencil of 8192 one-tile parts launched 20 times, exact and
// the same bits each time. Without a CUDA device every test skips with the reason; with one
// that stubjit cannot use, every test fails (cuda/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_scan_checks.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

#define CUDA_SCAN_TEST(name, check)              \
  TEST(CudaScan, name) {                         \
    CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{}); \
    ASSERT_EQ(gpu->limits().warp_size, 32u);     \
    test::scan::check(*gpu);                     \
  }

CUDA_SCAN_TEST(Int64SumsInclusiveAndExclusiveSplitIntoParts, check_int64_scan_in_parts)
CUDA_SCAN_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
CUDA_SCAN_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostsPrefixes,
               check_float_scan_is_deterministic)
CUDA_SCAN_TEST(InPlaceCustomAndAny, check_in_place_custom_and_any)
CUDA_SCAN_TEST(OtherElementTypesExactly, check_other_element_types)
CUDA_SCAN_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)
CUDA_SCAN_TEST(SplitScansRepeatedAreExactAndTheSameBitsEveryLaunch,
               check_split_scans_repeat_exactly_on_a_gpu)

}  // namespace
}  // namespace stubjit
