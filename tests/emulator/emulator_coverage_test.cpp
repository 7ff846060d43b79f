// The real CUDA- and HIP-dialect stubs, run by the host emulator through the whole
// runtime (plan, bind, stub writer, launch): every mode x rank 1..8 x 32/64-bit index x
// both dialects x warp 32/64 under tiny limits, with and without
// -fsanitize=undefined: each logical index visited exactly once, each seeing its own
// index (common/coverage.hpp checks both against the domain alone). Then the GPU
// dialects' results against the CPU backend's, kernel by kernel.
#include <gtest/gtest.h>

#include <numeric>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using test::emulator::Dialect;

struct EmulatedCase {
  Config config;
  std::uint32_t warp;
  test::CoverageCase coverage;
};

std::vector<EmulatedCase> emulated_cases() {
  std::vector<EmulatedCase> cases;
  for (const Config& config : test::emulator::all_configs())
    for (std::uint32_t warp : {32u, 64u})
      for (const test::CoverageCase& c : test::tiny_limit_cases())
        cases.push_back({config, warp, c});
  return cases;
}

std::string emulated_case_name(const ::testing::TestParamInfo<EmulatedCase>& info) {
  const EmulatedCase& c = info.param;
  return test::emulator::backend_name(c.config) + "_warp" + std::to_string(c.warp) + "_" +
         name_of(c.coverage.mode) + "_rank" + std::to_string(c.coverage.rank);
}

RuntimeOptions emulated(const Config& config) {
  RuntimeOptions options;
  options.backend = test::emulator::backend_name(config);
  options.disk_cache = false;
  return options;
}

class EmulatedCoverage : public ::testing::TestWithParam<EmulatedCase> {};

TEST_P(EmulatedCoverage, EveryIndexOnceWithItsOwnIndex) {
  const EmulatedCase& c = GetParam();
  RuntimeOptions options = emulated(c.config);
  options.limits = test::tiny_limits(c.warp);
  // The rank of the case, not a fused one: every rank's stub must run.
  options.fuse_dimensions = false;
  Runtime runtime(options);
  const std::size_t before = test::emulator::compiled_stubs().size();
  test::check_tiny_limit_case(runtime, c.coverage);

  // The stubs that ran are the dialect's, at the case's rank and mode, with the index
  // width the configuration asks for (tiny domains fit 32 bits: i32 wherever allowed).
  const std::vector<std::string> stubs = test::emulator::compiled_stubs();
  ASSERT_EQ(stubs.size(), before + 2);  // the visit counter and the index writer
  const std::string dialect = c.config.dialect == Dialect::cuda ? "cuda" : "hip";
  const std::string expected = "dialect " + dialect + ", mode " + name_of(c.coverage.mode) +
                               ", rank " + std::to_string(c.coverage.rank) + ", index " +
                               (c.config.index32 ? "i32" : "i64");
  for (std::size_t i = before; i < stubs.size(); ++i)
    EXPECT_NE(stubs[i].find(expected), std::string::npos) << stubs[i] << " vs " << expected;
}

INSTANTIATE_TEST_SUITE_P(AllConfigurations, EmulatedCoverage, ::testing::ValuesIn(emulated_cases()),
                         emulated_case_name);

// A kernel whose body reads no index and no projected field (a tally into a broadcast
// field): its stub computes positions for the domain's bounds alone, and still runs
// the body once per point, in every configuration, mode and rank, under tiny limits.
TEST(EmulatedUnindexed, AKernelThatReadsNoIndexRunsOncePerPoint) {
  const KernelSource tally{"tally",
                           {scalar<std::int64_t>("step"), inout<std::int64_t>("total")},
                           "stubjit::atomic_add(total, step);",
                           "",
                           {}};
  for (const Config& config : test::emulator::all_configs()) {
    for (const test::CoverageCase& c : test::tiny_limit_cases()) {
      SCOPED_TRACE(test::emulator::backend_name(config) + " " + name_of(c.mode) + " rank " +
                   std::to_string(c.rank));
      RuntimeOptions options = emulated(config);
      options.limits = test::tiny_limits(32);
      options.fuse_dimensions = false;
      Runtime runtime(options);
      Field total = runtime.allocate<std::int64_t>({});  // broadcast: one element
      total.copy_from(std::vector<std::int64_t>{5});
      const Domain domain = test::coverage_domain(c);
      LaunchOptions forced;
      forced.mode = c.mode;
      const LaunchSummary summary =
          runtime.kernel(tally).launch(forced, domain, std::int64_t{3}, total);
      EXPECT_EQ(summary.mode, c.mode);
      EXPECT_EQ(summary.rank, c.rank);
      EXPECT_EQ(total.to_vector<std::int64_t>(), std::vector<std::int64_t>{5 + 3 * domain.size()});
    }
  }
}

// Dense launches (a domain from 0 with unit steps over fields contiguous along its
// innermost dimension) run the dense variant: no logical-index arithmetic, no
// innermost stride. The same coverage over dense domains of the same counts.
std::vector<EmulatedCase> dense_cases() {
  std::vector<EmulatedCase> cases;
  for (const Config& config : test::emulator::all_configs())
    if (!config.ubsan)
      for (const test::CoverageCase& c : test::tiny_limit_cases()) cases.push_back({config, 32, c});
  return cases;
}

class EmulatedDenseCoverage : public ::testing::TestWithParam<EmulatedCase> {};

TEST_P(EmulatedDenseCoverage, EveryIndexOnceWithItsOwnIndex) {
  const EmulatedCase& c = GetParam();
  RuntimeOptions options = emulated(c.config);
  options.limits = test::tiny_limits(c.warp);
  options.fuse_dimensions = false;
  Runtime runtime(options);
  std::vector<Dim> dims;
  const Domain strided = test::coverage_domain(c.coverage);
  for (const Dim& dim : strided.dims()) dims.push_back({0, dim.count, 1});
  const Domain domain(dims);
  const std::size_t before = test::emulator::compiled_stubs().size();
  LaunchSummary summary;
  test::check_exactly_once(runtime, domain, c.coverage.mode, summary);
  EXPECT_EQ(summary.mode, c.coverage.mode);
  const std::vector<std::string> stubs = test::emulator::compiled_stubs();
  ASSERT_EQ(stubs.size(), before + 2);
  for (std::size_t i = before; i < stubs.size(); ++i)
    EXPECT_NE(stubs[i].find(", dense"), std::string::npos) << stubs[i].substr(0, 400);
}

INSTANTIATE_TEST_SUITE_P(AllConfigurations, EmulatedDenseCoverage,
                         ::testing::ValuesIn(dense_cases()), emulated_case_name);

// One domain, one kernel, one mode: a launch over a field contiguous along the
// innermost dimension (dense) and then over one with stride 2 there. The second must
// not run the first's stub (the launch memo tells them apart by more than the domain).
TEST(EmulatedDense, AStridedFieldAfterADenseOneOverTheSameDomainIsNotDense) {
  for (const Config& config : test::emulator::all_configs()) {
    if (config.ubsan) continue;
    SCOPED_TRACE(test::emulator::backend_name(config));
    Runtime runtime(emulated(config));
    Kernel write = runtime.kernel(test::index_writer_kernel());
    Field storage = runtime.allocate<std::int64_t>({4, 10});
    const Domain domain{4, 5};
    auto* base = static_cast<std::int64_t*>(storage.data());
    const Field dense = runtime.wrap(base, {4, 5}, {10, 1});
    const Field strided = runtime.wrap(base, {4, 5}, {10, 2});
    for (const Field* field : {&dense, &strided}) {
      const std::int64_t step = field == &dense ? 1 : 2;
      storage.copy_from(std::vector<std::int64_t>(40, -1));
      write.launch(domain, *field);
      std::vector<std::int64_t> expected(40, -1);
      for (std::int64_t i = 0; i < 4; ++i)
        for (std::int64_t j = 0; j < 5; ++j)
          expected[std::size_t(i * 10 + j * step)] = test::index_code({i, j});
      EXPECT_EQ(storage.to_vector<std::int64_t>(), expected) << "stride " << step;
    }
    const std::string dense_stub = write.stub_source(domain, {dense});
    const std::string strided_stub = write.stub_source(domain, {strided});
    EXPECT_NE(dense_stub.find(", dense\n"), std::string::npos);
    EXPECT_EQ(strided_stub.find(", dense"), std::string::npos);
  }
}

// Domains at the edge of the 32-bit path, under -fsanitize=undefined (a signed overflow
// traps and kills the test): the stub is 32-bit exactly where first, last, step and
// last - first fit in an int32, and every index comes out right either way.
struct EdgeDomain {
  Dim dim;
  bool index32;
};

TEST(EmulatedIndexEdges, ThirtyTwoBitExactlyWhereItFitsAndNoOverflow) {
  const std::int64_t max = 2147483647, min = -max - 1;
  const std::vector<EdgeDomain> edges = {
      {Dim{max - 9, 10, 1}, true},                // up to INT32_MAX
      {Dim{max - 9, 11, 1}, false},               // one past it
      {Dim{min, 10, 1}, true},                    // from INT32_MIN
      {Dim{max, 6, -1}, true},                    // down from INT32_MAX
      {Dim{min + 5, 6, -1}, true},                // down to INT32_MIN
      {Dim{-2147483000, 3, 1073741000}, true},    // last - first just fits
      {Dim{-2147483000, 4, 1073741000}, false}};  // last fits, last - first does not
  const KernelSource offsets = {
      "offsets",
      {scalar<std::int64_t>("base"), index("i"), inout<std::int64_t>("total")},
      "stubjit::atomic_add(total, stubjit::i64(i[0]) - base);",
      "",
      {}};
  for (Dialect dialect : {Dialect::cuda, Dialect::hip}) {
    for (const EdgeDomain& edge : edges) {
      const Domain domain({edge.dim});
      SCOPED_TRACE(domain.to_string());
      // A runtime per domain: each launch compiles its own stub, whose width is checked.
      Runtime runtime(emulated({dialect, true, true}));
      Kernel kernel = runtime.kernel(offsets);
      const std::int64_t base = edge.dim.first;
      std::int64_t expected = 0;
      for (std::int64_t p = 0; p < edge.dim.count; ++p) expected += edge.dim.at(p) - base;
      for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
        Field total = runtime.allocate<std::int64_t>({});
        total.copy_from(std::vector<std::int64_t>{0});
        LaunchOptions forced;
        forced.mode = mode;
        ASSERT_TRUE(kernel.launch(forced, domain, base, total).compiled);
        EXPECT_EQ(total.to_vector<std::int64_t>()[0], expected) << name_of(mode);
        const std::string stub = test::emulator::compiled_stubs().back();
        EXPECT_NE(stub.find(edge.index32 ? "index i32" : "index i64"), std::string::npos) << stub;
      }
    }
  }
}

// One kernel run on the emulator and on the CPU backend, over the same domain in the
// same forced mode, from the same inputs: the outputs must be equal.
class SameAsCpu : public ::testing::TestWithParam<Config> {};

std::vector<double> ramp(std::int64_t n, double scale) {
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = scale * static_cast<double>(static_cast<std::int64_t>(i % 97) - 40);
  return values;
}

// Runs `launch(runtime)` on both runtimes and compares what it returns.
template <class Run>
void expect_same(const Config& config, Run&& run) {
  RuntimeOptions cpu;
  cpu.backend = "cpu";
  cpu.disk_cache = false;
  Runtime host(cpu);
  Runtime emulator(emulated(config));
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
    SCOPED_TRACE(name_of(mode));
    EXPECT_EQ(run(emulator, mode), run(host, mode));
  }
}

TEST_P(SameAsCpu, MixedScalarTypesOverAStridedReversedDomain) {
  const Domain domain({Dim{2, 9, 3}, Dim{30, 11, -2}});
  const std::vector<std::int64_t> extents = {30, 32};
  const std::int64_t n = 30 * 32;
  expect_same(GetParam(), [&](Runtime& runtime, Mode mode) {
    Kernel mixed = runtime.kernel(test::mixed_types_kernel());
    Field x = runtime.allocate<double>(extents);
    Field k = runtime.allocate<std::int32_t>(extents);
    Field z = runtime.allocate<double>(extents);
    x.copy_from(ramp(n, 0.25));
    std::vector<std::int32_t> keys(static_cast<std::size_t>(n));
    std::iota(keys.begin(), keys.end(), -100);
    k.copy_from(keys);
    z.copy_from(ramp(n, -1.0));
    LaunchOptions forced;
    forced.mode = mode;
    mixed.launch(forced, domain, 1.5, std::int32_t{-7}, std::uint32_t{0x35}, std::int64_t{1} << 40,
                 x, k, z);
    return z.to_vector<double>();
  });
}

TEST_P(SameAsCpu, ProjectedRowsAndBroadcastTables) {
  const std::int64_t rows = 13, cols = 21;
  expect_same(GetParam(), [&](Runtime& runtime, Mode mode) {
    LaunchOptions forced;
    forced.mode = mode;
    // A rank-1 row of a rank-2 field per index of a rank-1 domain (projection).
    Kernel row_sum = runtime.kernel(test::row_sum_kernel());
    Field matrix = runtime.allocate<double>({rows, cols});
    matrix.copy_from(ramp(rows * cols, 0.5));
    Field totals = runtime.allocate<double>({rows});
    row_sum.launch(forced, Domain{rows}, matrix, totals);
    // One table for every index (broadcast), keys per index.
    Kernel lookup = runtime.kernel(test::lookup_kernel());
    Field table = runtime.allocate<std::int32_t>({17});
    std::vector<std::int32_t> entries(17);
    std::iota(entries.begin(), entries.end(), 1000);
    table.copy_from(entries);
    Field keys = runtime.allocate<std::int32_t>({rows, cols});
    std::vector<std::int32_t> key_values(static_cast<std::size_t>(rows * cols));
    std::iota(key_values.begin(), key_values.end(), 3);
    keys.copy_from(key_values);
    Field out = runtime.allocate<std::int32_t>({rows, cols});
    lookup.launch(forced, Domain{rows, cols}, table, keys, out);
    std::vector<double> result = totals.to_vector<double>();
    for (std::int32_t v : out.to_vector<std::int32_t>()) result.push_back(v);
    return result;
  });
}

TEST_P(SameAsCpu, AtomicSumOverARank4Domain) {
  const Domain domain({Dim{0, 3, 1}, Dim{1, 4, 2}, Dim{0, 5, 1}, Dim{9, 6, -1}});
  const std::vector<std::int64_t> extents = {3, 8, 5, 10};
  expect_same(GetParam(), [&](Runtime& runtime, Mode mode) {
    if (mode == Mode::direct) return std::vector<std::int64_t>{};  // rank 4: no direct
    Kernel sum = runtime.kernel(test::sum_kernel());
    Field x = runtime.allocate<std::int64_t>(extents);
    std::vector<std::int64_t> values(static_cast<std::size_t>(x.size()));
    std::iota(values.begin(), values.end(), -500);
    x.copy_from(values);
    Field total = runtime.allocate<std::int64_t>({});  // broadcast: one element
    total.copy_from(std::vector<std::int64_t>{7});
    LaunchOptions forced;
    forced.mode = mode;
    sum.launch(forced, domain, x, total);
    return total.to_vector<std::int64_t>();
  });
}

INSTANTIATE_TEST_SUITE_P(Emulators, SameAsCpu,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
