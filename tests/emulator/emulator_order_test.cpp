// Fortran-order domains through the real CUDA and HIP stubs on the host emulator:
// every index once with its own index, in every mode, and direct indexing putting the
// domain's fastest dimension on x (what makes a column-major field's accesses
// coalesce on a GPU).
#include <gtest/gtest.h>

#include "common/coverage.hpp"
#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using i64 = std::int64_t;

RuntimeOptions emulated(const Config& config) {
  RuntimeOptions options;
  options.backend = test::emulator::backend_name(config);
  options.disk_cache = false;
  return options;
}

class EmulatedFortranOrder : public ::testing::TestWithParam<Config> {};

// The coverage suite's strided, offset and reversed domains, in Fortran order, under
// tiny limits (so multi splits): ranks 2, 3 and 5.
TEST_P(EmulatedFortranOrder, EveryIndexOnceWithItsOwnIndex) {
  RuntimeOptions options = emulated(GetParam());
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  for (const test::CoverageCase& c : test::tiny_limit_cases()) {
    if (c.rank != 2 && c.rank != 3 && c.rank != 5) continue;
    const Domain c_order = test::coverage_domain(c);
    const Domain fortran(c_order.dims(), Order::fortran);
    SCOPED_TRACE(std::string(name_of(c.mode)) + " " + fortran.to_string());
    LaunchSummary summary;
    test::check_exactly_once(runtime, fortran, c.mode, summary);
    EXPECT_EQ(summary.mode, c.mode);
  }
}

// Each thread writes its global x id at its logical index: in direct mode that is
// the position along dimension 0 of a Fortran-order domain (along the last in C
// order), whatever the steps.
TEST_P(EmulatedFortranOrder, DirectIndexingPutsTheFastestDimensionOnX) {
  Runtime runtime(emulated(GetParam()));
  Kernel thread_x = runtime.kernel({"thread_x",
                                    {index("p"), inout<i64>("xs", 2)},
                                    "xs(p[0], p[1]) = stubjit::i64(blockIdx.x) * blockDim.x + "
                                    "threadIdx.x;"});
  const Dim first{3, 40, 2};    // 3, 5, ..., 81
  const Dim second{20, 6, -3};  // 20, 17, ..., 5
  LaunchOptions direct;
  direct.mode = Mode::direct;
  for (Order order : {Order::fortran, Order::c}) {
    SCOPED_TRACE(name_of(order));
    Field xs = runtime.allocate<i64>({82, 21});
    xs.copy_from(std::vector<i64>(82 * 21, -1));
    thread_x.launch(direct, Domain({first, second}, order), xs);
    const std::vector<i64> got = xs.to_vector<i64>();
    for (i64 a = 0; a < first.count; ++a)
      for (i64 b = 0; b < second.count; ++b) {
        const i64 expected = order == Order::fortran ? a : b;
        ASSERT_EQ(got[std::size_t(first.at(a) * 21 + second.at(b))], expected)
            << "position " << a << ", " << b;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedFortranOrder,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
