// Views through the real CUDA and HIP stubs on the host emulator: the patent's matrix
// multiply with transpose and spread (stride-0 dimensions), a reversed section and
// interleaved views of one buffer, against host loops.
#include <gtest/gtest.h>

#include <numeric>

#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using i64 = std::int64_t;

class EmulatedViews : public ::testing::TestWithParam<Config> {};

TEST_P(EmulatedViews, MatrixMultiplyAndSectionsAgainstHostLoops) {
  RuntimeOptions options;
  options.backend = test::emulator::backend_name(GetParam());
  options.disk_cache = false;
  Runtime runtime(options);
  const i64 m = 11, n = 6, l = 5;
  std::vector<double> a(m * l), b(l * n);
  for (i64 k = 0; k < m * l; ++k) a[std::size_t(k)] = double(k % 7) - 3.0;
  for (i64 k = 0; k < l * n; ++k) b[std::size_t(k)] = 0.5 * double(k % 5);
  Field da = runtime.allocate<double>({m, l});
  Field db = runtime.allocate<double>({l, n});
  Field dc = runtime.allocate<double>({m, n});
  da.copy_from(a);
  db.copy_from(b);
  Kernel dot = runtime.kernel({"dot",
                               {in<double>("row", 1), in<double>("column", 1), inout<double>("c")},
                               "double sum = 0;\n"
                               "for (stubjit::i64 k = 0; k < row.extent(0); ++k)\n"
                               "  sum += row(k) * column(k);\n"
                               "c = sum;"});
  dot.launch(Domain{m, n}, da.spread(1, n), db.transpose(0, 1).spread(0, m), dc);
  // Odd elements of row 3, reversed, take the even ones: c(3, 5:1:-2) += c(3, 4:0:-2).
  Kernel add = runtime.kernel({"add", {in<double>("x"), inout<double>("y")}, "y = y + x;"});
  const Field row = dc.slice(0, 3);
  add.launch(Domain{3}, row.section(0, 4, 0, -2), row.section(0, 5, 1, -2));

  std::vector<double> expected(std::size_t(m * n));
  for (i64 i = 0; i < m; ++i)
    for (i64 j = 0; j < n; ++j) {
      double sum = 0;
      for (i64 k = 0; k < l; ++k) sum += a[std::size_t(i * l + k)] * b[std::size_t(k * n + j)];
      expected[std::size_t(i * n + j)] = sum;
    }
  for (i64 j = 5; j >= 1; j -= 2)
    expected[std::size_t(3 * n + j)] += expected[std::size_t(3 * n + j - 1)];
  EXPECT_EQ(dc.to_vector<double>(), expected);
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedViews,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
