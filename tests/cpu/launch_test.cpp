// Kernels launched end to end on the CPU backend, results checked against plain
// host loops.
#include <gtest/gtest.h>

#include <limits>

#include <numeric>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

Runtime cpu_runtime() { return Runtime(test::cpu_options()); }

std::vector<float> iota_floats(std::size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

class SaxpyByRank : public ::testing::TestWithParam<std::vector<std::int64_t>> {};

TEST_P(SaxpyByRank, ComputesAXPlusY) {
  Runtime runtime = cpu_runtime();
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::vector<std::int64_t> extents = GetParam();
  std::vector<Dim> dims;
  std::size_t n = 1;
  for (std::int64_t e : extents) {
    dims.push_back(Dim{0, e, 1});
    n *= static_cast<std::size_t>(e);
  }
  const std::vector<float> hx = iota_floats(n, 0.0f);
  const std::vector<float> hy = iota_floats(n, 7.0f);
  Field x = runtime.allocate<float>(extents);
  Field y = runtime.allocate<float>(extents);
  x.copy_from(hx);
  y.copy_from(hy);
  const LaunchSummary summary = saxpy.launch(Domain(dims), 3.0f, x, y);
  EXPECT_EQ(summary.rank, 1);  // dense fields: fused into one dimension
  EXPECT_TRUE(summary.compiled);
  const std::vector<float> out = y.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 3.0f * hx[i] + hy[i]) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(Ranks1To3, SaxpyByRank,
                         ::testing::Values(std::vector<std::int64_t>{100003},
                                           std::vector<std::int64_t>{37, 1029},
                                           std::vector<std::int64_t>{9, 17, 333}));

TEST(Launch, ElementalRank5) {
  // The rank-5 spread stub itself: fused, these dense fields would run as one loop
  // (fusion_test.cpp).
  RuntimeOptions options = test::cpu_options();
  options.fuse_dimensions = false;
  Runtime runtime(options);
  Kernel mixed = runtime.kernel(test::mixed_types_kernel());
  const std::vector<std::int64_t> extents = {3, 4, 5, 2, 7};
  const std::size_t n = 3 * 4 * 5 * 2 * 7;
  std::vector<double> hx(n);
  std::vector<std::int32_t> hk(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = 0.5 * double(i);
    hk[i] = std::int32_t(i * 7);
  }
  Field x = runtime.allocate<double>(extents);
  Field k = runtime.allocate<std::int32_t>(extents);
  Field z = runtime.allocate<double>(extents);
  x.copy_from(hx);
  k.copy_from(hk);
  z.copy_from(std::vector<double>(n, -1.0));
  const LaunchSummary summary = mixed.launch(Domain{3, 4, 5, 2, 7}, 2.0, std::int32_t(-3),
                                             std::uint32_t(0xF), std::int64_t(1) << 40, x, k, z);
  EXPECT_EQ(summary.mode, Mode::spread);
  const std::vector<double> out = z.to_vector<double>();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], 2.0 * hx[i] - 3 + (hk[i] & 0xF) + double(std::int64_t(1) << 40)) << i;
  }
}

TEST(Launch, IndexTokenWritesItsOwnLogicalIndex) {
  Runtime runtime = cpu_runtime();
  Kernel writer = runtime.kernel(test::index_writer_kernel());
  // do i = 2, 10, 2; do j = 1, 4: elements outside the loops stay untouched.
  const Domain domain = Domain::loops({{2, 10, 2}, {1, 4}});
  Field out = runtime.allocate<std::int64_t>({11, 5});
  out.copy_from(std::vector<std::int64_t>(55, -1));
  writer.launch(domain, out);
  const std::vector<std::int64_t> host = out.to_vector<std::int64_t>();
  for (std::int64_t i = 0; i < 11; ++i) {
    for (std::int64_t j = 0; j < 5; ++j) {
      const bool inside = i >= 2 && i % 2 == 0 && j >= 1;
      ASSERT_EQ(host[static_cast<std::size_t>(i * 5 + j)], inside ? test::index_code({i, j}) : -1)
          << "(" << i << "," << j << ")";
    }
  }
}

TEST(Launch, NegativeStepDomains) {
  Runtime runtime = cpu_runtime();
  Kernel writer = runtime.kernel(test::index_writer_kernel());
  Field out = runtime.allocate<std::int64_t>({10});
  out.copy_from(std::vector<std::int64_t>(10, -1));
  writer.launch(Domain::loops({{8, 0, -3}}), out);  // 8, 5, 2
  const std::vector<std::int64_t> host = out.to_vector<std::int64_t>();
  for (std::int64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(host[static_cast<std::size_t>(i)],
              (i == 8 || i == 5 || i == 2) ? test::index_code({i}) : -1)
        << i;
  }

  // A negative step along the innermost, vectorized dimension of a 2-D domain.
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({6, 300});
  Field y = runtime.allocate<float>({6, 300});
  const std::vector<float> hx = iota_floats(1800, 1.0f);
  x.copy_from(hx);
  y.copy_from(std::vector<float>(1800, 0.0f));
  saxpy.launch(Domain::loops({{5, 0, -1}, {299, 0, -2}}), 2.0f, x, y);
  const std::vector<float> hy = y.to_vector<float>();
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 300; ++c)
      ASSERT_EQ(hy[r * 300 + c], c % 2 == 1 ? 2.0f * hx[r * 300 + c] : 0.0f) << r << "," << c;
}

TEST(Launch, PartialProjectionGivesEachActivityARow) {
  Runtime runtime = cpu_runtime();
  Kernel row_sum = runtime.kernel(test::row_sum_kernel());
  const std::int64_t rows = 50, cols = 33;
  std::vector<double> matrix(static_cast<std::size_t>(rows * cols));
  std::iota(matrix.begin(), matrix.end(), 0.0);
  Field m = runtime.allocate<double>({rows, cols});
  Field totals = runtime.allocate<double>({rows});
  m.copy_from(matrix);
  row_sum.launch(Domain{rows}, m, totals);
  const std::vector<double> host = totals.to_vector<double>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double expected = 0;
    for (std::int64_t c = 0; c < cols; ++c)
      expected += matrix[static_cast<std::size_t>(r * cols + c)];
    EXPECT_EQ(host[static_cast<std::size_t>(r)], expected) << "row " << r;
  }
}

TEST(Launch, BroadcastFieldAndHelperSource) {
  Runtime runtime = cpu_runtime();
  Kernel lookup = runtime.kernel(test::lookup_kernel());
  const std::vector<std::int32_t> table = {10, 20, 30, 40, 50};
  std::vector<std::int32_t> keys(1000);
  std::iota(keys.begin(), keys.end(), 0);
  Field t = runtime.allocate<std::int32_t>({5});
  Field k = runtime.allocate<std::int32_t>({1000});
  Field out = runtime.allocate<std::int32_t>({1000});
  t.copy_from(table);
  k.copy_from(keys);
  lookup.launch(Domain{1000}, t, k, out);
  const std::vector<std::int32_t> host = out.to_vector<std::int32_t>();
  for (std::int32_t i = 0; i < 1000; ++i)
    ASSERT_EQ(host[static_cast<std::size_t>(i)], table[static_cast<std::size_t>(i % 5)] + i * i);
}

TEST(Launch, ReductionThroughARankZeroField) {
  Runtime runtime = cpu_runtime();
  Kernel sum = runtime.kernel(test::sum_kernel());
  const std::int64_t n = 1 << 20;
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), 1);
  Field x = runtime.allocate<std::int64_t>({n});
  Field total = runtime.allocate<std::int64_t>({});  // a 0-d field: one element
  x.copy_from(values);
  total.copy_from(std::vector<std::int64_t>{0});
  sum.launch(Domain{n}, x, total);
  EXPECT_EQ(total.to_vector<std::int64_t>()[0], n * (n + 1) / 2);
}

// The stub of an atomic reduction includes atomic.h and not view.h (it has no field of
// rank >= 1): the host compiler builds it with only the headers it needs, and it sums.
TEST(Launch, AtomicsRunWithOnlyThePreludeHeadersTheStubNeeds) {
  Runtime runtime = cpu_runtime();
  Kernel sum = runtime.kernel(test::sum_kernel());
  const std::int64_t n = 1000;
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), 1);
  Field x = runtime.allocate<std::int64_t>({n});
  Field total = runtime.allocate<std::int64_t>({});
  x.copy_from(values);
  total.copy_from(std::vector<std::int64_t>{0});
  const std::string source = sum.stub_source(Domain{n}, {x, total});
  EXPECT_NE(source.find("// prelude: config.h index.h launch.h atomic.h\n"), std::string::npos);
  EXPECT_EQ(source.find("STUBJIT_VIEW_H"), std::string::npos);
  sum.launch(Domain{n}, x, total);
  EXPECT_EQ(total.to_vector<std::int64_t>()[0], n * (n + 1) / 2);
}

TEST(Launch, ColumnMajorAndWrappedStridedFields) {
  Runtime runtime = cpu_runtime();
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({40, 30}, Layout::column_major);
  EXPECT_EQ(x.stride(0), 1);
  EXPECT_EQ(x.stride(1), 40);
  std::vector<float> hx(1200);
  std::iota(hx.begin(), hx.end(), 0.0f);
  x.copy_from(hx);  // storage order: column-major
  // y: a transposed view of application memory (30 x 40 row-major seen as 40 x 30).
  std::vector<float> app(1200, 1.0f);
  Field y = runtime.wrap(app.data(), {40, 30}, {1, 40});
  saxpy.launch(Domain{40, 30}, 2.0f, x, y);
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t j = 0; j < 30; ++j)
      ASSERT_EQ(app[j * 40 + i], 2.0f * hx[j * 40 + i] + 1.0f) << i << "," << j;
}

// Valid domains whose logical indices reach the ends of int64: step * position
// overflows where first + step * position does not. The stubs compute it in wrapping
// arithmetic; compiled here with signed overflow made a trap, so an overflowing stub
// would stop the test instead of passing by the wrap.
TEST(Launch, LogicalIndicesAtTheEndsOfInt64) {
  RuntimeOptions options = test::cpu_options();
  options.compiler_options = {"-fsanitize=signed-integer-overflow",
                              "-fsanitize-trap=signed-integer-overflow"};
  Runtime runtime(options);
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  Kernel sort = runtime.kernel({"sort_ends",
                                {index("i"), inout<std::int64_t>("seen", 1)},
                                "const stubjit::i64 v = i[0];\n"
                                "seen(v < -1 ? 0 : v == -1 ? 1 : 2) = v;"});
  Field seen = runtime.allocate<std::int64_t>({3});
  for (const Domain& domain : {Domain::loops({{min, max, max}}),             // min, -1, max - 1
                               Domain::loops({{max - 1, min, min + 1}})}) {  // max-1, -1, min
    SCOPED_TRACE(domain.to_string());
    ASSERT_EQ(domain.size(), 3);
    seen.copy_from(std::vector<std::int64_t>{0, 0, 0});
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      LaunchOptions forced;
      forced.mode = mode;
      sort.launch(forced, domain, seen);
      EXPECT_EQ(seen.to_vector<std::int64_t>(), (std::vector<std::int64_t>{min, -1, max - 1}))
          << name_of(mode);
    }
  }
}

TEST(Launch, EmptyDomainRunsNothingAndCompilesNothing) {
  Runtime runtime = cpu_runtime();
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({4, 0});
  Field y = runtime.allocate<float>({4, 0});
  const LaunchSummary summary = saxpy.launch(Domain{4, 0}, 1.0f, x, y);
  EXPECT_EQ(summary.dispatches, 0u);
  EXPECT_FALSE(summary.compiled);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().launches, 0u);
}

TEST(Launch, SecondLaunchHitsTheMemoryCache) {
  Runtime runtime = cpu_runtime();
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({64});
  Field y = runtime.allocate<float>({64});
  x.copy_from(std::vector<float>(64, 1.0f));
  y.copy_from(std::vector<float>(64, 0.0f));
  EXPECT_TRUE(saxpy.launch(Domain{64}, 1.0f, x, y).compiled);
  EXPECT_FALSE(saxpy.launch(Domain{64}, 1.0f, x, y).compiled);
  // Another kernel handle with the same source shares the runtime's cache.
  Kernel again = runtime.kernel(test::saxpy_kernel());
  EXPECT_FALSE(again.launch(Domain{64}, 1.0f, x, y).compiled);
  const CacheCounters counters = runtime.counters();
  EXPECT_EQ(counters.compiles, 1u);
  EXPECT_EQ(counters.memory_hits, 2u);
  EXPECT_EQ(counters.launches, 3u);
  EXPECT_EQ(y.to_vector<float>()[0], 3.0f);
}

}  // namespace
}  // namespace stubjit

namespace stubjit {
namespace {

TEST(Launch, ParameterNamesCannotCollideWithStubLocals) {
  // Names that match the stub's own locals if they were prefixed naively.
  Runtime runtime = cpu_runtime();
  Kernel tricky =
      runtime.kernel({"tricky",
                      {scalar<std::int32_t>("k"), scalar<std::int32_t>("n"), index("g"),
                       in<std::int32_t>("x"), in<std::int32_t>("x_s0"), in<std::int32_t>("first0"),
                       inout<std::int32_t>("lp"), in<std::int32_t>("args", 1)},
                      "lp = k * x + n * x_s0 + first0 + (stubjit::i32)g[0] + args(0);",
                      "",
                      {}});
  const std::int64_t size = 300;
  Field x = runtime.allocate<std::int32_t>({size});
  Field x_s0 = runtime.allocate<std::int32_t>({size});
  Field first0 = runtime.allocate<std::int32_t>({size});
  Field lp = runtime.allocate<std::int32_t>({size});
  Field args = runtime.allocate<std::int32_t>({1});
  x.copy_from(std::vector<std::int32_t>(size, 1));
  x_s0.copy_from(std::vector<std::int32_t>(size, 2));
  first0.copy_from(std::vector<std::int32_t>(size, 3));
  args.copy_from(std::vector<std::int32_t>{1000});
  for (Mode mode : {Mode::direct, Mode::spread}) {
    LaunchOptions forced;
    forced.mode = mode;
    tricky.launch(forced, Domain{size}, std::int32_t(10), std::int32_t(100), x, x_s0, first0, lp,
                  args);
    const std::vector<std::int32_t> out = lp.to_vector<std::int32_t>();
    for (std::int32_t i = 0; i < size; ++i)
      ASSERT_EQ(out[static_cast<std::size_t>(i)], 10 + 200 + 3 + i + 1000) << i;
  }
}

}  // namespace
}  // namespace stubjit
