// Non-rectangular domains on the CPU backend: an embedding box filtered by a predicate
// (KernelSource::filter) or by a mask field (mask<T>), against host loops. The body runs
// exactly at the points that pass, in every mode; a domain filtered to nothing runs
// nothing; bad masks and filters are refused with a reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;

// Adds 1 to its element and counts its calls: a(i) = a(i) + 1, calls += 1.
KernelSource counting(std::string name, std::string filter) {
  KernelSource source{std::move(name),
                      {inout<double>("a"), inout<i64>("calls", 1)},
                      "a = a + 1;\nstubjit::atomic_add(calls(0), stubjit::i64{1});"};
  source.filter = std::move(filter);
  return source;
}

struct Counted {
  std::vector<double> a;
  i64 calls;
};

Counted run_counting(Runtime& runtime, Kernel& kernel, const Domain& domain,
                     const std::vector<i64>& extents, Layout layout, std::optional<Mode> mode) {
  Field a = runtime.allocate<double>(extents, layout);
  a.copy_from(std::vector<double>(std::size_t(a.size()), 10.0));
  Field calls = runtime.allocate<i64>({1});
  calls.copy_from(std::vector<i64>{0});
  LaunchOptions options;
  options.mode = mode;
  kernel.launch(options, domain, a, calls);
  return {a.to_vector<double>(), calls.to_vector<i64>()[0]};
}

// What a host loop over the box gives: 11 where the point passes, 10 elsewhere, and
// the number of points that pass. `offset` maps a 2-D point to its element.
Counted host_counting(const Domain& box, const std::function<bool(i64, i64)>& passes,
                      const std::function<std::size_t(i64, i64)>& offset, std::size_t size) {
  Counted expected{std::vector<double>(size, 10.0), 0};
  for (i64 a = 0; a < box[0].count; ++a)
    for (i64 b = 0; b < box[1].count; ++b) {
      const i64 i = box[0].at(a), j = box[1].at(b);
      if (!passes(i, j)) continue;
      expected.a[offset(i, j)] += 1;
      ++expected.calls;
    }
  return expected;
}

TEST(Filter, LowerTriangleAgainstAHostLoopInEveryMode) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel lower = runtime.kernel(counting("lower", "i[1] <= i[0]"));
  const i64 n = 37;
  const Domain box{n, n};
  const Counted expected = host_counting(
      box, [](i64 i, i64 j) { return j <= i; },
      [&](i64 i, i64 j) { return std::size_t(i * n + j); }, std::size_t(n * n));
  EXPECT_EQ(expected.calls, n * (n + 1) / 2);
  for (std::optional<Mode> mode :
       {std::optional<Mode>{}, std::optional<Mode>{Mode::direct}, std::optional<Mode>{Mode::spread},
        std::optional<Mode>{Mode::multi}}) {
    SCOPED_TRACE(mode ? name_of(*mode) : "automatic");
    const Counted got = run_counting(runtime, lower, box, {n, n}, Layout::row_major, mode);
    EXPECT_EQ(got.calls, expected.calls);
    EXPECT_EQ(got.a, expected.a);
  }
}

// A band (one below the diagonal, two above) over a strided, reversed Fortran-order
// box and column-major fields: the filter sees each point's own logical index.
TEST(Filter, BandOverAStridedFortranOrderBox) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel band = runtime.kernel(counting("band", "i[1] - i[0] <= 2 && i[0] - i[1] <= 1"));
  const i64 m = 30, n = 25;
  const Domain box({Dim{28, 14, -2}, Dim{1, 24, 1}}, Order::fortran);  // i = 28, 26, ..., 2
  const Counted expected = host_counting(
      box, [](i64 i, i64 j) { return j - i <= 2 && i - j <= 1; },
      [&](i64 i, i64 j) { return std::size_t(i + j * m); }, std::size_t(m * n));
  ASSERT_GT(expected.calls, 0);
  const Counted got = run_counting(runtime, band, box, {m, n}, Layout::column_major, std::nullopt);
  EXPECT_EQ(got.calls, expected.calls);
  EXPECT_EQ(got.a, expected.a);
}

TEST(Filter, ADiskThroughAHelper) {
  Runtime runtime(test::cpu_memory_only_options());
  KernelSource source = counting("disk", "inside(i[0], i[1])");
  source.helpers =
      "static bool inside(stubjit::i64 x, stubjit::i64 y) {\n"
      "  return (x - 20) * (x - 20) + (y - 15) * (y - 15) <= 12 * 12;\n"
      "}\n";
  Kernel disk = runtime.kernel(source);
  const Domain box{40, 30};
  const Counted expected = host_counting(
      box, [](i64 x, i64 y) { return (x - 20) * (x - 20) + (y - 15) * (y - 15) <= 144; },
      [](i64 x, i64 y) { return std::size_t(x * 30 + y); }, 40 * 30);
  const Counted got = run_counting(runtime, disk, box, {40, 30}, Layout::row_major, std::nullopt);
  EXPECT_EQ(got.calls, expected.calls);
  EXPECT_EQ(got.a, expected.a);
}

TEST(Filter, AMaskFieldFiltersItsZeroElements) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel masked =
      runtime.kernel({"masked", {mask<std::int32_t>("keep"), inout<double>("y")}, "y = y + keep;"});
  const i64 rows = 9, cols = 14;
  std::vector<std::int32_t> keep(rows * cols);
  for (std::size_t k = 0; k < keep.size(); ++k) keep[k] = (k % 3 == 0) ? 0 : std::int32_t(k % 5);
  Field dk = runtime.allocate<std::int32_t>({rows, cols});
  Field dy = runtime.allocate<double>({rows, cols});
  dk.copy_from(keep);
  dy.copy_from(std::vector<double>(keep.size(), 0.5));
  masked.launch(Domain{rows, cols}, dk, dy);
  std::vector<double> expected(keep.size(), 0.5);
  for (std::size_t k = 0; k < keep.size(); ++k)
    if (keep[k] != 0) expected[k] += keep[k];
  EXPECT_EQ(dy.to_vector<double>(), expected);

  // A mask and a filter together: a point runs where it passes both.
  KernelSource both{"both", {mask<std::int32_t>("keep"), inout<double>("y")}, "y = -y;"};
  both.filter = "i[0] % 2 == 0";
  Kernel both_kernel = runtime.kernel(both);
  both_kernel.launch(Domain{rows, cols}, dk, dy);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c)
      if (keep[std::size_t(r * cols + c)] != 0 && r % 2 == 0)
        expected[std::size_t(r * cols + c)] = -expected[std::size_t(r * cols + c)];
  EXPECT_EQ(dy.to_vector<double>(), expected);
}

TEST(Filter, ADomainFilteredToNothingRunsNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel none = runtime.kernel(counting("none", "i[0] < 0"));
  const Counted got =
      run_counting(runtime, none, Domain{12, 7}, {12, 7}, Layout::row_major, std::nullopt);
  EXPECT_EQ(got.calls, 0);
  EXPECT_EQ(got.a, std::vector<double>(12 * 7, 10.0));

  Kernel masked =
      runtime.kernel({"masked_out", {mask<float>("keep"), inout<double>("y")}, "y = 1.0;"});
  Field keep = runtime.allocate<float>({50});
  keep.copy_from(std::vector<float>(50, 0.0f));
  Field y = runtime.allocate<double>({50});
  y.copy_from(std::vector<double>(50, 3.0));
  masked.launch(Domain{50}, keep, y);
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(50, 3.0));
}

TEST(Filter, BadMasksAndFiltersAreRefusedWithAReason) {
  Runtime runtime(test::cpu_memory_only_options());
  // A mask is read-only and of rank 0.
  Param written = inout<std::int32_t>("keep");
  written.mask = true;
  EXPECT_THROW(runtime.kernel({"bad", {written}, ""}), SignatureError);
  Param wide = in<std::int32_t>("keep", 1);
  wide.mask = true;
  EXPECT_THROW(runtime.kernel({"bad", {wide}, ""}), SignatureError);

  // Bound whole, a mask would filter every point alike: refused before anything runs.
  Kernel masked =
      runtime.kernel({"masked", {mask<std::int32_t>("keep"), inout<double>("y")}, "y = 2.0;"});
  Field one = runtime.allocate<std::int32_t>({});
  one.copy_from(std::vector<std::int32_t>{1});
  Field y = runtime.allocate<double>({8});
  y.copy_from(std::vector<double>(8, 0.0));
  try {
    masked.launch(Domain{8}, one, y);
    FAIL() << "a broadcast mask was accepted";
  } catch (const ArgumentError& error) {
    EXPECT_EQ(error.parameter(), "keep");
    EXPECT_NE(std::string(error.what()).find("is a mask"), std::string::npos) << error.what();
  }
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(8, 0.0));

  // A blank filter is a mistake, not "every point".
  EXPECT_THROW(runtime.kernel(counting("blank", " \n\t")), SignatureError);

  // A filter that does not compile: the compiler's message, in the filter's own lines.
  KernelSource broken = counting("broken", "i[0] <= undefined_name");
  Kernel kernel = runtime.kernel(broken);
  try {
    run_counting(runtime, kernel, Domain{4, 4}, {4, 4}, Layout::row_major, std::nullopt);
    FAIL() << "a filter naming nothing compiled";
  } catch (const CompileError& error) {
    EXPECT_NE(std::string(error.what()).find("broken.filter:1"), std::string::npos) << error.what();
  }
}

// A filtered kernel reads its index, so its launch keeps the domain's dimensions where
// the same kernel without a filter runs fused over dense fields.
TEST(Filter, AFilteredKernelIsNotFused) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel plain = runtime.kernel(counting("plain", ""));
  Kernel filtered = runtime.kernel(counting("filtered", "i[0] >= 0"));
  Field a = runtime.allocate<double>({40, 50});
  Field calls = runtime.allocate<i64>({1});
  EXPECT_EQ(plain.launch(Domain{40, 50}, a, calls).rank, 1);
  EXPECT_EQ(filtered.launch(Domain{40, 50}, a, calls).rank, 2);
}

// The filter is part of the kernel's identity: the same body with another filter is
// another stub, and each launch runs its own.
TEST(Filter, TheFilterIsPartOfTheStubsIdentity) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel lower = runtime.kernel(counting("shape", "i[1] <= i[0]"));
  Kernel upper = runtime.kernel(counting("shape", "i[1] >= i[0]"));
  const Counted l = run_counting(runtime, lower, Domain{6, 6}, {6, 6}, Layout::row_major, {});
  const Counted u = run_counting(runtime, upper, Domain{6, 6}, {6, 6}, Layout::row_major, {});
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(l.a[1 * 6 + 0], 11.0);  // (1, 0): below the diagonal
  EXPECT_EQ(u.a[1 * 6 + 0], 10.0);
  EXPECT_EQ(u.a[0 * 6 + 1], 11.0);
}

}  // namespace
}  // namespace stubjit
