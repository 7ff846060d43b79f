// Short rows: a CPU launch whose innermost extent is at most 16 gets a stub with that
// extent compiled in (one stub per such extent); rows cut by a group's edge still run,
// through the general loop; RuntimeOptions::specialize_short_rows turns it off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
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

}  // namespace
}  // namespace stubjit
