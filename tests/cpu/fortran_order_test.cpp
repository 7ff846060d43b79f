// Fortran-order domains on the CPU backend, end to end, against loops on the host:
// GPUFORT's collapse example (do j = 1,n; do i = 1,m over a column-major a(i,j)) in
// both orders and with negative steps, a rank-5 nest, a stencil, and which dimension
// the stub runs innermost.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;

// Element offset of a(i[0], ..., i[r-1]) in a column-major array of these extents.
i64 column_major_offset(const std::vector<i64>& index, const std::vector<i64>& extents) {
  i64 offset = 0;
  for (std::size_t d = index.size(); d-- > 0;) offset = offset * extents[d] + index[d];
  return offset;
}

i64 row_major_offset(const std::vector<i64>& index, const std::vector<i64>& extents) {
  i64 offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) offset = offset * extents[d] + index[d];
  return offset;
}

// The value the kernels below write at logical index (i, j).
double collapse_value(i64 i, i64 j) { return 1000.0 * double(i) + double(j); }

// Writes collapse_value(p[0], p[1]) through a projected field: a(i, j) = 1000 i + j.
KernelSource collapse_kernel() {
  return {
      "collapse", {index("p"), inout<double>("a")}, "a = 1000.0 * double(p[0]) + double(p[1]);"};
}

struct Nest {
  Loop outer;  // do j
  Loop inner;  // do i
};

// The Fortran nest
//   do j = outer; do i = inner; a(i, j) = 1000 i + j
// as a Fortran-order domain over a column-major field, and as a C-order domain (the
// inner loop last) over a row-major field a[j][i], both against the loops on the host.
void check_collapse(const Nest& nest, i64 m_extent, i64 n_extent) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel collapse = runtime.kernel(collapse_kernel());
  const double untouched = -1.0;

  // Host loops, in the nest's own order.
  std::vector<double> expected_f(static_cast<std::size_t>(m_extent * n_extent), untouched);
  std::vector<double> expected_c = expected_f;
  i64 iterations = 0;
  const Domain outer_loop = Domain::loops({nest.outer});
  const Domain inner_loop = Domain::loops({nest.inner});
  for (i64 b = 0; b < outer_loop[0].count; ++b) {
    const i64 j = outer_loop[0].at(b);
    for (i64 a = 0; a < inner_loop[0].count; ++a) {
      const i64 i = inner_loop[0].at(a);
      expected_f[std::size_t(column_major_offset({i, j}, {m_extent, n_extent}))] =
          collapse_value(i, j);
      expected_c[std::size_t(row_major_offset({j, i}, {n_extent, m_extent}))] =
          collapse_value(i, j);
      ++iterations;
    }
  }

  // Fortran order: the nest as written, a(i, j) column-major, p = (i, j).
  const Domain fortran = Domain::loops({nest.outer, nest.inner}, Order::fortran);
  ASSERT_EQ(fortran.size(), iterations);
  Field a = runtime.allocate<double>({m_extent, n_extent}, Layout::column_major);
  a.copy_from(std::vector<double>(expected_f.size(), untouched));
  collapse.launch(fortran, a);
  EXPECT_EQ(a.to_vector<double>(), expected_f) << fortran.to_string();

  // C order: the same nest, the inner loop last; a[j][i] row-major, p = (j, i).
  Kernel collapse_c = runtime.kernel({"collapse_c",
                                      {index("p"), inout<double>("a")},
                                      "a = 1000.0 * double(p[1]) + double(p[0]);"});
  const Domain c = Domain::loops({nest.outer, nest.inner});
  Field b = runtime.allocate<double>({n_extent, m_extent});
  b.copy_from(std::vector<double>(expected_c.size(), untouched));
  collapse_c.launch(c, b);
  EXPECT_EQ(b.to_vector<double>(), expected_c) << c.to_string();
}

TEST(FortranOrder, GpufortCollapseExampleInBothOrders) {
  // do j = 1, n; do i = 1, m with n = 37, m = 53 (a(0:m, 0:n): index 0 stays untouched).
  const i64 n = 37, m = 53;
  check_collapse({{1, n}, {1, m}}, m + 1, n + 1);
}

TEST(FortranOrder, GpufortCollapseExampleWithNegativeSteps) {
  const i64 n = 37, m = 53;
  check_collapse({{n, 1, -1}, {m, 1, -2}}, m + 1, n + 1);
  check_collapse({{2, n, 3}, {m - 1, 0, -1}}, m + 1, n + 1);
}

TEST(FortranOrder, DomainDimensionsAreTheLoopsInnermostFirst) {
  const Domain fortran = Domain::loops({{1, 37}, {1, 53}}, Order::fortran);
  EXPECT_EQ(fortran.order(), Order::fortran);
  EXPECT_EQ(fortran[0].count, 53);  // i, the inner loop
  EXPECT_EQ(fortran[1].count, 37);  // j
  EXPECT_EQ(fortran.to_string(), "[1:53:1, 1:37:1] fortran");
}

// A rank-5 nest
//   do i5; do i4; do i3; do i2; do i1; a(i1, i2, i3, i4, i5) = code(i1, ..., i5)
// with strides and reversed loops, over a column-major field, in each mode.
TEST(FortranOrder, RankFiveNestAgainstHostLoops) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel code = runtime.kernel({"code5",
                                {index("p"), inout<i64>("a")},
                                "stubjit::i64 c = 0;\n"
                                "for (int d = 4; d >= 0; --d) c = c * 100 + p[d];\n"
                                "a = c;"});
  // Outermost first, as written: i5, i4, i3, i2, i1.
  const std::vector<Loop> nest = {{0, 2}, {4, 1, -1}, {1, 5, 2}, {6, 0, -3}, {0, 6}};
  const std::vector<i64> extents = {7, 7, 6, 5, 3};  // a(0:6, 0:6, 0:5, 0:4, 0:2)
  std::vector<i64> expected(7 * 7 * 6 * 5 * 3, -1);
  i64 iterations = 0;
  for (i64 i5 = 0; i5 <= 2; ++i5)
    for (i64 i4 = 4; i4 >= 1; --i4)
      for (i64 i3 = 1; i3 <= 5; i3 += 2)
        for (i64 i2 = 6; i2 >= 0; i2 -= 3)
          for (i64 i1 = 0; i1 <= 6; ++i1) {
            const std::vector<i64> at = {i1, i2, i3, i4, i5};
            i64 c = 0;
            for (std::size_t d = 5; d-- > 0;) c = c * 100 + at[d];
            expected[std::size_t(column_major_offset(at, extents))] = c;
            ++iterations;
          }
  const Domain domain = Domain::loops(nest, Order::fortran);
  ASSERT_EQ(domain.size(), iterations);
  for (Mode mode : {Mode::spread, Mode::multi}) {
    Field a = runtime.allocate<i64>(extents, Layout::column_major);
    a.copy_from(std::vector<i64>(expected.size(), -1));
    LaunchOptions forced;
    forced.mode = mode;
    const LaunchSummary summary = code.launch(forced, domain, a);
    EXPECT_EQ(summary.rank, 5);
    EXPECT_EQ(a.to_vector<i64>(), expected) << name_of(mode);
  }
}

// A Jacobi step b(i, j) = (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1)) / 4 over
// column-major fields, the stencil read through broadcast views in Fortran subscripts.
TEST(FortranOrder, StencilOverColumnMajorFields) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel jacobi = runtime.kernel({"jacobi_f",
                                  {index("p"), in<double>("a", 2), inout<double>("b")},
                                  "const auto i = p[0], j = p[1];\n"
                                  "b = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + "
                                  "a(i, j + 1));"});
  const i64 m = 41, n = 23;
  std::vector<double> a(m * n), b(m * n, 0.0);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) a[std::size_t(i + j * m)] = double((i * 7 + j * 13) % 17) - 8.0;
  Field da = runtime.allocate<double>({m, n}, Layout::column_major);
  Field db = runtime.allocate<double>({m, n}, Layout::column_major);
  da.copy_from(a);
  db.copy_from(b);
  // do j = 2, n-1; do i = m-1, 2, -1 (0-based: 1..n-2 and m-2..1)
  jacobi.launch(Domain::loops({{1, n - 2}, {m - 2, 1, -1}}, Order::fortran), da, db);
  std::vector<double> expected(m * n, 0.0);
  for (i64 j = 1; j <= n - 2; ++j)
    for (i64 i = m - 2; i >= 1; --i)
      expected[std::size_t(i + j * m)] =
          0.25 * (a[std::size_t(i - 1 + j * m)] + a[std::size_t(i + 1 + j * m)] +
                  a[std::size_t(i + (j - 1) * m)] + a[std::size_t(i + (j + 1) * m)]);
  EXPECT_EQ(db.to_vector<double>(), expected);
}

// With one worker, a stub runs its innermost loop through whole rows: each logical
// index takes a number from a counter in the order it runs. Without a projected field
// to take the order from, the domain's order decides which dimension that loop is:
// dimension 0 in Fortran order, the last in C order.
std::vector<i64> visit_sequence(const Domain& domain, const std::vector<i64>& extents) {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.cpu_threads = 1;
  Runtime runtime(options);
  Kernel order = runtime.kernel({"visit_order",
                                 {index("p"), inout<i64>("counter", 1), inout<i64>("seq", 2)},
                                 "seq(p[0], p[1]) = stubjit::atomic_add(counter(0), "
                                 "stubjit::i64{1});"});
  Field counter = runtime.allocate<i64>({1});
  counter.copy_from(std::vector<i64>{0});
  Field seq = runtime.allocate<i64>(extents);
  seq.copy_from(std::vector<i64>(std::size_t(seq.size()), -1));
  order.launch(domain, counter, seq);
  return seq.to_vector<i64>();
}

TEST(FortranOrder, TheFirstDimensionRunsInnermost) {
  const i64 m = 19, n = 6;
  const std::vector<i64> seq = visit_sequence(Domain({Dim{0, m, 1}, Dim{0, n, 1}}, Order::fortran),
                                              {m, n});  // row-major seq[i][j]
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i + 1 < m; ++i)
      EXPECT_EQ(seq[std::size_t((i + 1) * n + j)], seq[std::size_t(i * n + j)] + 1)
          << "i " << i << " j " << j;
}

TEST(FortranOrder, COrderRunsTheLastDimensionInnermost) {
  const i64 m = 19, n = 6;
  const std::vector<i64> seq = visit_sequence(Domain({Dim{0, m, 1}, Dim{0, n, 1}}), {m, n});
  for (i64 i = 0; i < m; ++i)
    for (i64 j = 0; j + 1 < n; ++j)
      EXPECT_EQ(seq[std::size_t(i * n + j + 1)], seq[std::size_t(i * n + j)] + 1)
          << "i " << i << " j " << j;
}

// Where a projected field gives a memory order, it decides how a kernel that takes its
// index runs (docs/performance.md), whatever the domain's order: a Fortran-order
// launch and a C-order launch over the same column-major field run the same stub.
// Where none does, the order decides, and each order has its own stub, compiled once.
TEST(FortranOrder, TheDomainsOrderDecidesWhereNoFieldDoes) {
  Runtime runtime(test::cpu_memory_only_options());
  const i64 m = 9, n = 5;
  const Domain c{m, n};
  const Domain fortran({Dim{0, m, 1}, Dim{0, n, 1}}, Order::fortran);

  Kernel collapse = runtime.kernel(collapse_kernel());
  Field a = runtime.allocate<double>({m, n}, Layout::column_major);
  EXPECT_TRUE(collapse.launch(c, a).compiled);
  EXPECT_FALSE(collapse.launch(fortran, a).compiled);
  std::vector<double> expected(m * n);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) expected[std::size_t(i + j * m)] = collapse_value(i, j);
  EXPECT_EQ(a.to_vector<double>(), expected);

  Kernel broadcast_only = runtime.kernel({"broadcast_only",
                                          {index("p"), inout<double>("a", 2)},
                                          "a(p[0], p[1]) = 1000.0 * double(p[0]) + p[1];"});
  Field b = runtime.allocate<double>({m, n}, Layout::column_major);
  EXPECT_TRUE(broadcast_only.launch(c, b).compiled);
  EXPECT_TRUE(broadcast_only.launch(fortran, b).compiled);
  EXPECT_FALSE(broadcast_only.launch(fortran, b).compiled);
  EXPECT_FALSE(broadcast_only.launch(c, b).compiled);
  EXPECT_EQ(b.to_vector<double>(), expected);
}

// A forced mode the domain cannot take is refused in the domain's own terms.
TEST(FortranOrder, ARefusedForcedModeNamesTheDomainAsGiven) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel code = runtime.kernel(collapse_kernel());
  Field a = runtime.allocate<double>({2, 2, 2, 2}, Layout::column_major);
  a.copy_from(std::vector<double>(16, -1.0));
  LaunchOptions direct;
  direct.mode = Mode::direct;
  try {
    code.launch(direct,
                Domain({Dim{0, 2, 1}, Dim{0, 2, 1}, Dim{0, 2, 1}, Dim{1, 1, 1}}, Order::fortran),
                a);
    FAIL() << "a rank-4 direct launch ran";
  } catch (const PlanError& error) {
    EXPECT_NE(std::string(error.what()).find("[0:2:1, 0:2:1, 0:2:1, 1:1:1] fortran"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(a.to_vector<double>(), std::vector<double>(16, -1.0));  // nothing ran
}

// A forced spread or multi launch is refused or not as its C-order twin is: both fuse
// to the same plan (here 14 dispatches under a budget of 15).
TEST(FortranOrder, AForcedMultiLaunchFusesAsItsCOrderTwinDoes) {
  RuntimeOptions options = test::cpu_memory_only_options();
  DeviceLimits limits;
  limits.max_grid = {4, 4, 1};
  options.limits = limits;
  options.policy.max_dispatches = 15;
  Runtime runtime(options);
  Kernel one = runtime.kernel({"one", {inout<i64>("a")}, "a = 1;"});
  LaunchOptions multi;
  multi.mode = Mode::multi;
  Field c = runtime.allocate<i64>({7, 2000});
  c.copy_from(std::vector<i64>(14000, 0));
  EXPECT_EQ(one.launch(multi, Domain{7, 2000}, c).dispatches, 14u);
  Field f = runtime.allocate<i64>({2000, 7}, Layout::column_major);
  f.copy_from(std::vector<i64>(14000, 0));
  const Domain fortran({Dim{0, 2000, 1}, Dim{0, 7, 1}}, Order::fortran);
  EXPECT_EQ(one.launch(multi, fortran, f).dispatches, 14u);
  EXPECT_EQ(f.to_vector<i64>(), std::vector<i64>(14000, 1));
}

// A launch refused without a forced mode names the domain as the caller wrote it.
TEST(FortranOrder, AnAutomaticRefusalNamesTheFortranDomain) {
  RuntimeOptions options = test::cpu_memory_only_options();
  DeviceLimits limits;
  limits.max_grid = {2, 2, 1};
  options.limits = limits;
  options.policy.max_dispatches = 1;
  Runtime runtime(options);
  Kernel write =
      runtime.kernel({"write", {index("p"), inout<i64>("a", 2)}, "a(p[0], p[1]) = p[0] + p[1];"});
  Field a = runtime.allocate<i64>({300, 7});
  try {
    write.launch(Domain({Dim{0, 300, 1}, Dim{0, 7, 1}}, Order::fortran), a);
    FAIL() << "a launch over the dispatch budget ran";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_dispatches");
    EXPECT_NE(std::string(error.what()).find("domain [0:300:1, 0:7:1] fortran needs"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace stubjit
