// Scan launches through the real CUDA and HIP stubs on the host emulator, whose blocks
// run their GPU threads in turn with real barriers, one block at a time: the GPU
// suites' checks (cuda/gpu_scan_checks.hpp: int64 sums split into parts with groups of
// 32, 64, 72 and 256 threads, a rank-3 domain along each dimension in C and Fortran
// order, float sums bit for bit between runs, in place, custom and any, other element
// types, empty and one-element domains), each against a host prefix, with warp widths
// 32 and 64 (HIP both); and the one-pass look-back where parts withhold their prefixes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
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

// The GPU suites' repeated launches of a split pencil, smaller: 20000 values, four
// launches (each int64 kernel twice).
TEST_P(EmulatedScan, SplitScansRepeatedAreExactAndTheSameBitsEveryLaunch) {
  Runtime runtime = make_runtime();
  test::scan::check_split_scans_repeat_exactly(runtime, 20000, 4);
}

// What the emulator compiled was the GPU dialect's scan stub, one pass: no partials
// stage, though the pencil is split into parts.
TEST_P(EmulatedScan, TheStubIsTheDialectsOnePassScan) {
  Runtime runtime = make_runtime();
  Kernel kernel = runtime.kernel(
      {"scan_stages", {in<std::int64_t>("x"), scan<std::int64_t>("y", Combiner::sum)}, "y = x;"});
  const std::int64_t n = 20000;
  Field x = runtime.allocate<std::int64_t>({n});
  Field y = runtime.allocate<std::int64_t>({n});
  x.copy_from(std::vector<std::int64_t>(std::size_t(n), 2));
  LaunchOptions options;
  options.group_size = 64;
  // Parts of one tile each: 64 threads of 8 values.
  EXPECT_EQ(kernel.launch(options, Domain{n}, x, y).reduce_parts, std::uint32_t((n + 511) / 512));
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
    EXPECT_EQ(found, stage == "scan") << expected;
  }
}

// The look-back where parts withhold their inclusive prefixes, as parts that finish
// late do on a GPU (the emulator's blocks run one at a time, each finding the prefix
// of the part before it otherwise): every part publishes (1), every third, every
// 70th (look-backs across two or three windows of lanes), none (each look-back
// combines every aggregate from the segment's start). Two pencils of 101 parts each:
// a look-back stays in its own. int64 sums exactly (exclusive too, every 70th); float
// sums the same bits whichever parts published, and near the host's prefixes.
TEST_P(EmulatedScan, LookBackCombinesTheAggregatesOfPartsThatWithheldTheirPrefix) {
  Runtime runtime = make_runtime();
  const std::uint32_t warp = GetParam().warp;
  const std::int64_t rows = 2, n = std::int64_t(warp) * 8 * 100 + 13;
  const std::vector<std::int64_t> counts = {rows, n};
  const std::size_t size = std::size_t(rows * n);
  const LaunchOptions options = test::scan::scan_options(warp, 1);
  const std::vector<std::int64_t> values = test::reduce::int64_values(size, 77);
  std::vector<float> reals(size);
  for (std::size_t k = 0; k < size; ++k)
    reals[k] = float(0.25 + double(test::reduce::mix(k) % 1000) / 1000.0) *
               (test::reduce::mix(k + 3) % 2 ? 1.0f : -1.0f);
  Field x = runtime.allocate<std::int64_t>(counts);
  Field y = runtime.allocate<std::int64_t>(counts);
  Field fx = runtime.allocate<float>(counts);
  Field fy = runtime.allocate<float>(counts);
  x.copy_from(values);
  fx.copy_from(reals);
  Kernel floats = runtime.kernel(
      {"look_back_f32", {in<float>("x"), scan<float>("y", Combiner::sum)}, "y = x;"});
  std::vector<float> every_part;
  for (const unsigned period : {1u, 3u, 70u, 0u}) {
    SCOPED_TRACE("every " + std::to_string(period) + "th part publishes its prefix");
    const test::emulator::ScopedScanPrefixPeriod publishing(period);
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      if (kind == ScanKind::exclusive && period != 70) continue;
      Kernel sums =
          runtime.kernel({std::string("look_back_") + test::scan::kind_word(kind),
                          {in<std::int64_t>("x"), scan<std::int64_t>("y", Combiner::sum, kind)},
                          "y = x;"});
      y.copy_from(std::vector<std::int64_t>(size, -1));
      const unsigned long long published = test::emulator::scan_prefixes_published();
      EXPECT_EQ(sums.launch(options, Domain{rows, n}, x, y).reduce_parts, 101u);
      // The parts whose number the period divides (0 to 100), in each pencil.
      const unsigned long long each = period == 0 ? 0 : 100 / period + 1;
      EXPECT_EQ(test::emulator::scan_prefixes_published() - published, rows * each);
      EXPECT_EQ(y.to_vector<std::int64_t>(),
                test::scan::host_prefix<std::int64_t>(values, counts, 1, kind, 0,
                                                      test::scan::wrapping_add));
    }
    if (period == 3) continue;
    fy.copy_from(std::vector<float>(size, 0.0f));
    floats.launch(options, Domain{rows, n}, fx, fy);
    const std::vector<float> got = fy.to_vector<float>();
    if (every_part.empty()) every_part = got;
    EXPECT_EQ(std::memcmp(got.data(), every_part.data(), size * sizeof(float)), 0);
    for (std::size_t row = 0; row < std::size_t(rows); ++row) {
      const std::size_t at = row * std::size_t(n);
      if (const auto off = test::first_float_prefix_off_bound(got.data() + at, reals.data() + at,
                                                              std::size_t(n)))
        ADD_FAILURE() << "row " << row << ", prefix " << off->k << ": " << got[at + off->k]
                      << ", the host's " << off->host;
    }
  }
}

// A GPU scan numbers its groups with a 32-bit ticket: a plan that would split a pencil
// into 2^32 tiles is refused with the limit; 2^32 - 1 tiles still plan (256 threads a
// group, 2048 values a tile).
TEST_P(EmulatedScan, MoreGroupsThanATicketCountsIsAPlanError) {
  Runtime runtime = make_runtime();
  Kernel kernel = runtime.kernel(
      {"many_tiles", {in<std::int32_t>("x"), scan<std::int32_t>("y", Combiner::sum)}, "y = x;"});
  const std::int64_t tile = 256 * 8;
  try {
    kernel.plan(Domain{(std::int64_t(1) << 32) * tile});
    ADD_FAILURE() << "planned";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "scan_groups");
    EXPECT_EQ(error.limit_value(), 0xffffffffu);
    EXPECT_NE(std::string(error.what()).find("numbers its groups in 32 bits"), std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(kernel.plan(Domain{((std::int64_t(1) << 32) - 1) * tile}));
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedScan, ::testing::ValuesIn(test::emulator::warp_cases()),
                         test::emulator::WarpCaseName());

}  // namespace
}  // namespace stubjit
