// Scan launches through the real CUDA and HIP stubs on the host emulator, whose blocks
// run their GPU threads in turn with real barriers, one block at a time: the GPU
// suites' checks (cuda/gpu_scan_checks.hpp: int64 sums split into parts with groups of
// 32, 64, 72 and 256 threads, a rank-3 domain along each dimension in C and Fortran
// order, float sums bit for bit between runs, in place, custom and any, other element
// types, empty and one-element domains), each against a host prefix, with warp widths
// 32 and 64 (HIP both).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/gpu_scan_checks.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/warp_cases.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class EmulatedScan : public test::emulator::WarpCaseTest {};

#define EMULATED_SCAN_TEST(name, check)                                                   \
  TEST_P(EmulatedScan, name) {                                                            \
    const test::emulator::ScopedLargestGroup largest(test::reduce::largest_group(), 256); \
    Runtime runtime = make_runtime();                                                     \
    test::scan::check(runtime);                                                           \
  }

EMULATED_SCAN_TEST(Int64SumsInclusiveAndExclusiveSplitIntoParts, check_int64_scan_in_parts)
EMULATED_SCAN_TEST(RankThreeDomainAlongEachDimensionInBothOrders, check_rank3_along_each_dimension)
EMULATED_SCAN_TEST(FloatSumIsTheSameBitsEachRunAndNearTheHostsPrefixes,
                   check_float_scan_is_deterministic)
EMULATED_SCAN_TEST(InPlaceCustomAndAny, check_in_place_custom_and_any)
EMULATED_SCAN_TEST(OtherElementTypesExactly, check_other_element_types)
EMULATED_SCAN_TEST(EmptyDomainsWriteNothingAndOneElementPencils, check_empty_and_one_element)

// What the emulator compiled were the GPU dialect's two scan stubs.
TEST_P(EmulatedScan, TheStubsAreTheDialectsScanStages) {
  Runtime runtime = make_runtime();
  Kernel kernel = runtime.kernel(
      {"scan_stages", {in<std::int64_t>("x"), scan<std::int64_t>("y", Combiner::sum)}, "y = x;"});
  const std::int64_t n = 20000;
  Field x = runtime.allocate<std::int64_t>({n});
  Field y = runtime.allocate<std::int64_t>({n});
  x.copy_from(std::vector<std::int64_t>(std::size_t(n), 2));
  LaunchOptions options;
  options.group_size = 64;
  EXPECT_GT(kernel.launch(options, Domain{n}, x, y).reduce_parts, 1u);
  EXPECT_EQ(y.to_vector<std::int64_t>().back(), 2 * n);
  const std::vector<std::string> stubs = test::emulator::compiled_stubs();
  const std::string dialect =
      GetParam().config.dialect == test::emulator::Dialect::cuda ? "cuda" : "hip";
  const std::string index = GetParam().config.index32 ? "32" : "64";
  for (const std::string stage : {"scan_partials", "scan"}) {
    const std::string expected = "stubjit stub for kernel 'scan_stages': dialect " + dialect +
                                 ", " + stage + " along dimension 0, rank 1, index i" + index;
    bool found = false;
    for (const std::string& line : stubs) found = found || line == expected;
    EXPECT_TRUE(found) << expected;
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedScan, ::testing::ValuesIn(test::emulator::warp_cases()),
                         test::emulator::WarpCaseName());

}  // namespace
}  // namespace stubjit
