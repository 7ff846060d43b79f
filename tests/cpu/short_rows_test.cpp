// Short rows: a CPU launch whose innermost extent is at most 16 gets a stub with that
// extent compiled in (one stub per such extent); rows cut by a group's edge still run,
// through the general loop. A stride the broadcast views share along the innermost loop
// is compiled in too, with rows of any length. RuntimeOptions::specialize_short_rows
// turns both off.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

Runtime cpu_runtime(bool specialize = true) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.specialize_short_rows = specialize;
  options.disk_cache = false;  // the tests count compiles
  return Runtime(options);
}

// Out-of-place: out(i, j) = in(i, j) * 3 + j, over `rows` x `cols` row-major arrays.
KernelSource triple_plus_column() {
  return {"triple_plus_column",
          {index("i"), in<double>("in"), inout<double>("out")},
          "out = in * 3 + (double)i[1];",
          "",
          {}};
}

bool has_constant_rows(const std::string& source, std::int64_t count) {
  const std::string n = std::to_string(count);
  return source.find("rows of " + n) != std::string::npos &&
         source.find("stubjit_n == stubjit::i64(" + n + ")") != std::string::npos;
}

TEST(ShortRows, AShortInnermostExtentIsCompiledIntoTheStub) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(test::index_writer_kernel());
  std::vector<std::int64_t> out(6 * 40, 0);
  const Field f = runtime.wrap(out.data(), {6, 40});
  EXPECT_TRUE(has_constant_rows(kernel.stub_source(Domain{6, 3}, {f}), 3));
  EXPECT_TRUE(has_constant_rows(kernel.stub_source(Domain{6, 16}, {f}), 16));
  // Longer rows, and rank 1 (one row), run the general loop only.
  const std::string long_rows = kernel.stub_source(Domain{6, 17}, {f});
  EXPECT_EQ(long_rows.find("rows of"), std::string::npos);
  EXPECT_EQ(long_rows.find("stubjit_n == "), std::string::npos);
  std::vector<std::int64_t> line(8, 0);
  const Field g = runtime.wrap(line.data(), {8});
  EXPECT_EQ(kernel.stub_source(Domain{8}, {g}).find("rows of"), std::string::npos);
}

TEST(ShortRows, TurnedOffOneStubServesEveryExtent) {
  Runtime runtime = cpu_runtime(false);
  Kernel kernel = runtime.kernel(test::index_writer_kernel());
  std::vector<std::int64_t> out(6 * 40, 0);
  const Field f = runtime.wrap(out.data(), {6, 40});
  EXPECT_EQ(kernel.stub_source(Domain{6, 3}, {f}).find("rows of"), std::string::npos);
  kernel.launch(Domain{6, 3}, f);
  kernel.launch(Domain{6, 4}, f);
  kernel.launch(Domain{6, 30}, f);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

// Each short extent is a stub of its own; extents above the limit share one. Every
// launch's values are checked against a host loop over the same arrays.
TEST(ShortRows, EachShortExtentHasItsOwnStubAndLongRowsShareOne) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(triple_plus_column());
  constexpr std::int64_t rows = 9, cols = 40;
  std::vector<double> in(rows * cols), out(rows * cols);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = double(k % 13) - 4.5;
  const Field fin = runtime.wrap(static_cast<const double*>(in.data()), {rows, cols});
  const Field fout = runtime.wrap(out.data(), {rows, cols});
  for (const std::int64_t width : {3, 3, 4, 16, 17, 40}) {
    std::fill(out.begin(), out.end(), -1.0);
    kernel.launch(Domain{rows, width}, fin, fout);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::size_t at = std::size_t(i * cols + j);
        const double want = j < width ? in[at] * 3 + double(j) : -1.0;
        ASSERT_EQ(out[at], want) << "width " << width << " at " << i << ", " << j;
      }
    }
  }
  // 3, 4, 16 and one for 17 and 40.
  EXPECT_EQ(runtime.counters().compiles, 4u);
}

// Under tiny limits groups are 4 wide. Rows of 7 are cut by a group's edge in direct
// and multi (the general loop runs them), rows of 3 are whole there (the constant
// loop), and spread's runs of 8 flat positions start and end inside rows of either.
// Every index is still visited once with its own index, against the host's
// enumeration.
TEST(ShortRows, WholeRowsAndRowsCutByAGroupsEdgeRunExactlyOnce) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  Kernel probe = runtime.kernel(test::index_writer_kernel());
  std::vector<std::int64_t> out(20 * 20, 0);
  const Field f = runtime.wrap(out.data(), {20, 20});
  for (const std::int64_t width : {7, 3}) {
    const Domain domain(std::vector<Dim>{Dim{2, 3, 3}, Dim{10, width, -1}});
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      SCOPED_TRACE(std::string(name_of(mode)) + ", rows of " + std::to_string(width));
      ASSERT_TRUE(has_constant_rows(probe.stub_source(domain, {f}, mode), width));
      LaunchSummary summary;
      test::check_exactly_once(runtime, domain, mode, summary);
      EXPECT_EQ(summary.mode, mode);
    }
  }
}

// From rank 3 a short-row stub's run function takes a block of planes (whole blocks of
// rows along the third-innermost dimension) per call; rank 2 and long rows keep one
// block of rows.
TEST(ShortRows, FromRankThreeAShortRowStubRunsBlocksOfPlanes) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(test::index_writer_kernel());
  std::vector<std::int64_t> out(4 * 6 * 40, 0);
  const Field f3 = runtime.wrap(out.data(), {4, 6, 40});
  const Field f2 = runtime.wrap(out.data(), {24, 40});
  const auto has_planes = [](const std::string& source) {
    return source.find("stubjit_planes") != std::string::npos;
  };
  EXPECT_TRUE(has_planes(kernel.stub_source(Domain{4, 6, 5}, {f3})));
  EXPECT_FALSE(has_planes(kernel.stub_source(Domain{4, 6, 17}, {f3})));
  EXPECT_FALSE(has_planes(kernel.stub_source(Domain{24, 5}, {f2})));
}

// Blocks of planes whole and cut: a group of a spread dispatch (or multi's beyond rank
// 3) may begin or end inside a plane or a row, or begin inside one plane and hold two
// whole ones after it; direct's box at rank 3 is one block of planes. Planes of 6 and 10
// positions (no dimension of count 1, which fusion would drop or reordering move), groups
// of 8, 16 and 32 positions and the CPU's own, offset, strided and reversed dimensions,
// carries into one and into five outer dimensions: every index once with its own index,
// nothing outside touched.
TEST(ShortRows, BlocksOfPlanesWholeAndCutRunExactlyOnce) {
  // The dimensions outside the rows (rank - 2 of them, the last ones of this list).
  const std::vector<Dim> outer = {Dim{0, 2, 1},   Dim{3, 3, 2}, Dim{0, 2, 1},
                                  Dim{10, 3, -3}, Dim{1, 2, 5}, Dim{5, 3, -1}};
  // The rows: planes of 2 rows of 3 (an innermost step of 3), and of 2 rows of 5, reversed.
  const std::vector<std::vector<Dim>> inner = {{Dim{2, 2, 1}, Dim{1, 3, 3}},
                                               {Dim{4, 2, -2}, Dim{7, 5, -1}}};
  // Tiny limits (groups of 8, at most 27 of them: one spread dispatch covers 216
  // positions), groups of 16 and 32 with room for any of these domains in one dispatch,
  // and the CPU's own.
  const auto groups_of = [](std::uint32_t n) {
    DeviceLimits limits = test::tiny_limits();
    limits.max_grid = {4096, 64, 64};
    limits.max_block = {n, 1, 1};
    limits.max_threads_per_block = n;
    limits.preferred_block.spread = {n, 1, 1};
    return limits;
  };
  const std::vector<std::optional<DeviceLimits>> limits = {test::tiny_limits(), groups_of(16),
                                                           groups_of(32), std::nullopt};
  // The stubs do not depend on the limits: one disk cache lets the later runtimes load
  // what the first compiled.
  const test::TempDir cache;
  const test::NeutralCacheEnv neutral;  // ctest turns the cache off here
  int spread_runs = 0;
  for (std::size_t l = 0; l < limits.size(); ++l) {
    RuntimeOptions options;
    options.backend = "cpu";
    options.cache_dir = cache.path();
    options.limits = limits[l];
    Runtime runtime(options);
    Kernel probe = runtime.kernel(test::index_writer_kernel());
    for (const int rank : {3, 4, 8}) {
      for (const std::vector<Dim>& rows : inner) {
        std::vector<Dim> dims(outer.end() - std::ptrdiff_t(rank - 2), outer.end());
        dims.insert(dims.end(), rows.begin(), rows.end());
        const Domain domain(dims);
        Field field = runtime.allocate<std::int64_t>(test::extents_covering(domain));
        for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
          if (mode == Mode::direct && rank > 3) continue;
          if (mode == Mode::spread && l == 0 && domain.size() > 27 * 8) continue;
          SCOPED_TRACE("limits " + std::to_string(l) + ", " + name_of(mode) + " over " +
                       domain.to_string());
          ASSERT_NE(probe.stub_source(domain, {field}, mode).find("stubjit_planes"),
                    std::string::npos);
          LaunchSummary summary;
          test::check_exactly_once(runtime, domain, mode, summary);
          EXPECT_EQ(summary.mode, mode);
          if (mode == Mode::spread) ++spread_runs;
        }
      }
    }
  }
  // Spread at every rank with groups of 16, 32 and the CPU's own; at rank 3 and 4 with
  // groups of 8.
  EXPECT_EQ(spread_runs, 3 * 3 * 2 + 2 * 2);
}

// A projected field with a trailing dimension (a view of rank 1 per point) moves by its
// step per plane too: out(i, j, k, :) = {code, -code} over a rank-3 domain with rows of
// 5, in every mode, with tiny limits and the CPU's own.
TEST(ShortRows, BlocksOfPlanesMoveTrailingViews) {
  for (const bool tiny : {true, false}) {
    RuntimeOptions options;
    options.backend = "cpu";
    options.disk_cache = false;
    if (tiny) options.limits = test::tiny_limits();
    Runtime runtime(options);
    Kernel kernel = runtime.kernel({"pairs",
                                    {index("i"), inout<std::int64_t>("cell", 1)},
                                    "const stubjit::i64 code = i[0] * 10000 + i[1] * 100 + i[2];\n"
                                    "cell(0) = code;\ncell(1) = -code;",
                                    "",
                                    {}});
    const Domain domain(std::vector<Dim>{Dim{1, 3, 2}, Dim{0, 4, 1}, Dim{6, 5, -1}});
    constexpr std::int64_t n0 = 6, n1 = 5, n2 = 8;
    Field cell = runtime.allocate<std::int64_t>({n0, n1, n2, 2});
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      SCOPED_TRACE(std::string(tiny ? "tiny, " : "") + name_of(mode));
      ASSERT_NE(kernel.stub_source(domain, {cell}, mode).find("stubjit_planes"), std::string::npos);
      cell.copy_from(std::vector<std::int64_t>(std::size_t(n0 * n1 * n2 * 2), 7));
      LaunchOptions launch;
      launch.mode = mode;
      EXPECT_EQ(kernel.launch(launch, domain, cell).mode, mode);
      const std::vector<std::int64_t> got = cell.to_vector<std::int64_t>();
      for (std::int64_t a = 0; a < n0; ++a) {
        for (std::int64_t b = 0; b < n1; ++b) {
          for (std::int64_t c = 0; c < n2; ++c) {
            const bool inside = a % 2 == 1 && a <= 5 && b < 4 && c >= 2 && c <= 6;
            const std::int64_t code = a * 10000 + b * 100 + c;
            const std::size_t at = std::size_t(((a * n1 + b) * n2 + c) * 2);
            ASSERT_EQ(got[at], inside ? code : 7) << a << ", " << b << ", " << c;
            ASSERT_EQ(got[at + 1], inside ? -code : 7) << a << ", " << b << ", " << c;
          }
        }
      }
    }
  }
}

// A stencil that reads a broadcast view along both dimensions: out(i, j) =
// u(i, j - 1) + 2 u(i, j) + 4 u(i, j + 1) + 8 u(i - 1, j).
KernelSource row_stencil() {
  return {"row_stencil",
          {index("i"), in<double>("u", 2), inout<double>("out")},
          "out = u(i[0], i[1] - 1) + 2 * u(i[0], i[1]) + 4 * u(i[0], i[1] + 1) + "
          "8 * u(i[0] - 1, i[1]);",
          "",
          {}};
}

// Every-other-element fields of `rows` x `cols` points, interleaved with values a
// launch must leave alone.
struct StridedGrid {
  static constexpr std::int64_t rows = 12, cols = 9;
  std::int64_t stride;  // along a row
  std::vector<double> u, out;
  explicit StridedGrid(std::int64_t s)
      : stride(s), u(std::size_t(rows * cols * s)), out(std::size_t(rows * cols * s)) {
    for (std::size_t k = 0; k < u.size(); ++k) u[k] = double(k % 17) - 6;
  }
  std::size_t at(std::int64_t i, std::int64_t j) const {
    return std::size_t((i * cols + j) * stride);
  }
  Field view(Runtime& runtime) const {
    return runtime.wrap(u.data(), {rows, cols}, {cols * stride, stride});
  }
  Field target(Runtime& runtime) {
    return runtime.wrap(out.data(), {rows, cols}, {cols * stride, stride});
  }
  // The host's stencil over points 1..height x 1..width; -1 elsewhere.
  void check(std::int64_t width, std::int64_t height = rows - 1) const {
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const bool inside = i >= 1 && i <= height && j >= 1 && j <= width;
        const double want =
            inside ? u[at(i, j - 1)] + 2 * u[at(i, j)] + 4 * u[at(i, j + 1)] + 8 * u[at(i - 1, j)]
                   : -1.0;
        ASSERT_EQ(out[at(i, j)], want)
            << "stride " << stride << ", width " << width << " at " << i << ", " << j;
        for (std::int64_t k = 1; k < stride; ++k)
          ASSERT_EQ(out[at(i, j) + std::size_t(k)], -1.0)
              << "between elements at " << i << ", " << j;
      }
    }
  }
};

Domain interior(std::int64_t width, std::int64_t height = StridedGrid::rows - 1) {
  return Domain(std::vector<Dim>{Dim{1, height, 1}, Dim{1, width, 1}});
}

// Views that share a stride of 2 along the innermost loop get a stub with that stride
// compiled in beside the rows; views of stride 1 or 3 over the same domain get stubs
// of their own, and a launch that follows one with another stride (the same domain,
// so the same plan) still gets its own. Every launch is checked against the host.
TEST(ShortRows, ASharedViewStrideIsCompiledInWithTheRows) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(row_stencil());
  StridedGrid two(2), one(1), three(3);
  EXPECT_NE(kernel.stub_source(interior(5), {two.view(runtime), two.target(runtime)})
                .find("rows of 5, views' stride 2"),
            std::string::npos);
  EXPECT_NE(kernel.stub_source(interior(5), {three.view(runtime), three.target(runtime)})
                .find("rows of 5, views' stride 3"),
            std::string::npos);
  const std::string contiguous =
      kernel.stub_source(interior(5), {one.view(runtime), one.target(runtime)});
  EXPECT_NE(contiguous.find("rows of 5"), std::string::npos);
  EXPECT_EQ(contiguous.find("views' stride"), std::string::npos);
  for (StridedGrid* grid : {&two, &one, &three, &two}) {
    std::fill(grid->out.begin(), grid->out.end(), -1.0);
    kernel.launch(interior(5), grid->view(runtime), grid->target(runtime));
    grid->check(5);
  }
  EXPECT_EQ(runtime.counters().compiles, 3u);
}

// Views whose strides differ, or a stride above max_view_stride, share none: the stub
// has rows only, and runs them through its general copy of the loops.
TEST(ShortRows, ViewsWithoutASharedSmallStrideGetRowsOnly) {
  Runtime runtime = cpu_runtime();
  Kernel kernel =
      runtime.kernel({"two_views",
                      {index("i"), in<double>("u", 2), in<double>("w", 2), inout<double>("out")},
                      "out = u(i[0], i[1] + 1) - w(i[0], i[1]);",
                      "",
                      {}});
  StridedGrid two(2), three(3), wide(max_view_stride + 1);
  std::vector<double> out(std::size_t(StridedGrid::rows * StridedGrid::cols), -1.0);
  const Field target = runtime.wrap(out.data(), {StridedGrid::rows, StridedGrid::cols});
  const std::string mixed =
      kernel.stub_source(interior(4), {two.view(runtime), three.view(runtime), target});
  EXPECT_NE(mixed.find("rows of 4"), std::string::npos);
  EXPECT_EQ(mixed.find("views' stride"), std::string::npos);
  EXPECT_EQ(kernel.stub_source(interior(4), {wide.view(runtime), wide.view(runtime), target})
                .find("views' stride"),
            std::string::npos);
  kernel.launch(interior(4), two.view(runtime), three.view(runtime), target);
  for (std::int64_t i = 0; i < StridedGrid::rows; ++i) {
    for (std::int64_t j = 0; j < StridedGrid::cols; ++j) {
      const bool inside = i >= 1 && j >= 1 && j <= 4;
      ASSERT_EQ(out[std::size_t(i * StridedGrid::cols + j)],
                inside ? two.u[two.at(i, j + 1)] - three.u[three.at(i, j)] : -1.0)
          << i << ", " << j;
    }
  }
}

// Under tiny limits (groups 4 wide) rows of 7 are cut by a group's edge in direct and
// multi, and spread's runs start and end inside rows: the stride-2 copy of the loops
// runs whole rows and its general loop the cut ones, in every mode (3 rows: as many as
// direct covers there).
TEST(ShortRows, AViewStrideStubRunsWholeAndCutRowsInEveryMode) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(row_stencil());
  StridedGrid two(2);
  for (const std::int64_t width : {7, 3}) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      SCOPED_TRACE(std::string(name_of(mode)) + ", rows of " + std::to_string(width));
      const Domain domain = interior(width, 3);
      ASSERT_NE(kernel.stub_source(domain, {two.view(runtime), two.target(runtime)}, mode)
                    .find("views' stride 2"),
                std::string::npos);
      std::fill(two.out.begin(), two.out.end(), -1.0);
      LaunchOptions launch;
      launch.mode = mode;
      const LaunchSummary summary =
          kernel.launch(launch, domain, two.view(runtime), two.target(runtime));
      EXPECT_EQ(summary.mode, mode);
      two.check(width, 3);
    }
  }
}

// Which of the view's strides the compiled code knows as constants where the body
// runs: 1 for the first, 2 for the second (Clang folds __builtin_constant_p of an
// expression without calls after inlining, so it tells which copy of stubjit_run's
// loops a point ran in).
KernelSource constant_strides() {
  return {"constant_strides",
          {index("i"), in<double>("u", 2), inout<double>("out")},
          "out = (__builtin_constant_p(u.stride_[0]) ? 1 : 0) + "
          "(__builtin_constant_p(u.stride_[1]) ? 2 : 0) + 0 * u(i[0], i[1]);",
          "",
          {}};
}

// Whole rows of a launch over stride-2 views run in the copy of the loops that has the
// stride as a constant, along the dimension the launch runs innermost: the second for
// row-major fields, the first for column-major ones (the launch runs the kernel's
// first dimension innermost). Views that share no stride run where it is not known.
TEST(ShortRows, WholeRowsRunWhereTheViewStrideIsAConstant) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(constant_strides());
  constexpr std::int64_t rows = 5, cols = 4;
  std::vector<double> u(rows * cols * 2 * 3), out(rows * cols * 2);
  const Domain domain{rows, cols};
  const auto run = [&](const Field& view, const Field& target) {
    std::fill(out.begin(), out.end(), -1.0);
    kernel.launch(domain, view, target);
  };
  // Row-major, every other element along a row.
  run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols * 2, 2}),
      runtime.wrap(out.data(), {rows, cols}));
  for (std::int64_t k = 0; k < rows * cols; ++k) ASSERT_EQ(out[std::size_t(k)], 2.0) << k;
  // Column-major, every other element along a column.
  run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {2, rows * 2}),
      runtime.wrap(out.data(), {rows, cols}, {1, rows}));
  for (std::int64_t k = 0; k < rows * cols; ++k) ASSERT_EQ(out[std::size_t(k)], 1.0) << k;
  // Every third element: its own stub, the same copy.
  run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols * 3, 3}),
      runtime.wrap(out.data(), {rows, cols}));
  for (std::int64_t k = 0; k < rows * cols; ++k) ASSERT_EQ(out[std::size_t(k)], 2.0) << k;
  // The innermost index moving by 2: no stride compiled in, and it stays unknown.
  std::fill(out.begin(), out.end(), -1.0);
  const Domain every_other_column(std::vector<Dim>{Dim{0, rows, 1}, Dim{0, 2, 2}});
  const Field strided =
      runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols * 2, 2});
  const Field target = runtime.wrap(out.data(), {rows, cols});
  EXPECT_EQ(kernel.stub_source(every_other_column, {strided, target}).find("views' stride"),
            std::string::npos);
  kernel.launch(every_other_column, strided, target);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(out[std::size_t(i * cols + j)], j % 2 == 0 ? 0.0 : -1.0) << i << ", " << j;
  }
}

// Rows longer than max_short_row, and rank 1, have no rows compiled in, but a stride
// their views share is, and whole runs take the copy of the loops where it is a
// constant: the second dimension's for row-major views, the first's for column-major
// ones. Each stride gets a stub of its own.
TEST(ShortRows, LongRowsGetTheSharedViewStrideCompiledIn) {
  Runtime runtime = cpu_runtime();
  Kernel kernel = runtime.kernel(constant_strides());
  constexpr std::int64_t rows = max_short_row + 24, cols = max_short_row + 8;
  std::vector<double> u(rows * cols * 3), out(rows * cols);
  const Domain domain{rows, cols};
  Field target = runtime.wrap(out.data(), {rows, cols});
  const auto run = [&](const Field& view, double want) -> std::string {
    std::fill(out.begin(), out.end(), -1.0);
    const std::string source = kernel.stub_source(domain, {view, target});
    EXPECT_EQ(source.find("rows of"), std::string::npos);
    kernel.launch(domain, view, target);
    EXPECT_EQ(std::count(out.begin(), out.end(), want), rows * cols);
    return source;
  };
  const std::string two =
      run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols * 2, 2}), 2.0);
  EXPECT_NE(two.find(", views' stride 2"), std::string::npos);
  const std::string three =
      run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols * 3, 3}), 2.0);
  EXPECT_NE(three.find(", views' stride 3"), std::string::npos);
  target = runtime.wrap(out.data(), {rows, cols}, {1, rows});
  run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {2, rows * 2}), 1.0);
  target = runtime.wrap(out.data(), {rows, cols});
  // Contiguous views: the usual copy, whose stride 1 is a constant too.
  const std::string one =
      run(runtime.wrap(static_cast<const double*>(u.data()), {rows, cols}, {cols, 1}), 2.0);
  EXPECT_EQ(one.find("views' stride"), std::string::npos);
  EXPECT_EQ(runtime.counters().compiles, 4u);  // strides 2 and 3, column-major, 1
}

// A rank-1 stencil over every second or third element, 1000 points, and under tiny
// limits (groups 4 wide: runs cut by a group's edge, and several dispatches in multi)
// in every mode: checked against the host, the elements between untouched.
TEST(ShortRows, ARankOneStencilOverStridedViewsRunsWithTheStrideCompiledIn) {
  const KernelSource stencil{"line_stencil",
                             {index("i"), in<double>("u", 1), inout<double>("out")},
                             "out = u(i[0] - 1) + 2 * u(i[0]) + 4 * u(i[0] + 1);",
                             "",
                             {}};
  for (const bool tiny : {false, true}) {
    RuntimeOptions options;
    options.backend = "cpu";
    options.disk_cache = false;
    if (tiny) options.limits = test::tiny_limits();
    Runtime runtime(options);
    Kernel kernel = runtime.kernel(stencil);
    for (const std::int64_t stride : {2, 3}) {
      for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
        // Under the tiny limits direct covers 12 points, spread 216.
        const std::int64_t n = !tiny || mode == Mode::multi ? 1000
                               : mode == Mode::direct       ? 12
                                                            : 200;
        SCOPED_TRACE(std::string(tiny ? "tiny limits, " : "") + name_of(mode) + ", stride " +
                     std::to_string(stride) + ", " + std::to_string(n) + " points");
        std::vector<double> u(std::size_t(n * stride)), out(u.size(), -1.0);
        for (std::size_t k = 0; k < u.size(); ++k) u[k] = double(k % 13) - 5;
        const Field view = runtime.wrap(static_cast<const double*>(u.data()), {n}, {stride});
        const Field target = runtime.wrap(out.data(), {n}, {stride});
        const Domain inside(std::vector<Dim>{Dim{1, n - 2, 1}});
        LaunchOptions launch;
        launch.mode = mode;
        ASSERT_NE(kernel.stub_source(inside, {view, target}, mode)
                      .find(", views' stride " + std::to_string(stride)),
                  std::string::npos);
        EXPECT_EQ(kernel.launch(launch, inside, view, target).mode, mode);
        for (std::int64_t k = 0; k < n * stride; ++k) {
          const std::int64_t point = k / stride;
          const bool written = k % stride == 0 && point >= 1 && point <= n - 2;
          const double want = written ? u[std::size_t(k - stride)] + 2 * u[std::size_t(k)] +
                                            4 * u[std::size_t(k + stride)]
                                      : -1.0;
          ASSERT_EQ(out[std::size_t(k)], want) << "element " << k;
        }
      }
    }
  }
}

TEST(ShortRows, TurnedOffNoViewStrideIsCompiledIn) {
  Runtime runtime = cpu_runtime(false);
  Kernel kernel = runtime.kernel(constant_strides());
  std::vector<double> u(80), out(20, -1.0);
  const Field view = runtime.wrap(static_cast<const double*>(u.data()), {5, 4}, {8, 2});
  const Field target = runtime.wrap(out.data(), {5, 4});
  EXPECT_EQ(kernel.stub_source(Domain{5, 4}, {view, target}).find("views' stride"),
            std::string::npos);
  kernel.launch(Domain{5, 4}, view, target);
  for (double v : out) ASSERT_EQ(v, 0.0);
  // Nor into long rows.
  std::vector<double> wide_u(5 * 40 * 2), wide_out(5 * 40, -1.0);
  const Field wide_view = runtime.wrap(static_cast<const double*>(wide_u.data()), {5, 40}, {80, 2});
  const Field wide_target = runtime.wrap(wide_out.data(), {5, 40});
  EXPECT_EQ(kernel.stub_source(Domain{5, 40}, {wide_view, wide_target}).find("views' stride"),
            std::string::npos);
  kernel.launch(Domain{5, 40}, wide_view, wide_target);
  for (double v : wide_out) ASSERT_EQ(v, 0.0);
}

}  // namespace
}  // namespace stubjit
