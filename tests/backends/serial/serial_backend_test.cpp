// The test-tree backend (serial_backend.cpp) through the public API: registered by its
// own line, listed with the others, and held to the same exactly-once coverage suite as
// the CPU, CUDA and HIP backends. Nothing outside tests/backends/serial/ names it.
#include <gtest/gtest.h>

#include <numeric>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

RuntimeOptions serial() {
  RuntimeOptions options;
  options.backend = "serial";
  options.disk_cache = false;
  return options;
}

TEST(SerialBackend, IsListedWithTheLibrarysOwn) {
  const std::vector<BackendStatus> statuses = Runtime::probe_backends();
  ASSERT_FALSE(statuses.empty());
  EXPECT_EQ(statuses.back().name, "serial");  // registered after the library's own
  EXPECT_TRUE(statuses.back().available) << statuses.back().detail;
  EXPECT_NE(statuses.back().detail.find("one thread"), std::string::npos);
  Runtime runtime(serial());
  EXPECT_EQ(runtime.backend_name(), "serial");
  EXPECT_EQ(runtime.target_id(), "host-serial");
}

TEST(SerialBackend, RunsSaxpyOverARank2Domain) {
  Runtime runtime(serial());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::int64_t rows = 37, cols = 53;
  std::vector<float> x(rows * cols), y(rows * cols, 1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  Field fx = runtime.allocate<float>({rows, cols});
  Field fy = runtime.allocate<float>({rows, cols});
  fx.copy_from(x);
  fy.copy_from(y);
  const LaunchSummary first = saxpy.launch(Domain{rows, cols}, 2.0f, fx, fy);
  EXPECT_TRUE(first.compiled);
  const std::vector<float> out = fy.to_vector<float>();
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], 2.0f * x[i] + 1.0f) << i;
  EXPECT_FALSE(saxpy.launch(Domain{rows, cols}, 2.0f, fx, fy).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

// Its compiler's diagnostics come back as a CompileError naming the user's body.
TEST(SerialBackend, CompileErrorsNameTheBody) {
  Runtime runtime(serial());
  Kernel broken = runtime.kernel({"broken", {inout<float>("y")}, "y = 1;\ny = missing;"});
  Field y = runtime.allocate<float>({4});
  try {
    broken.launch(Domain{4}, y);
    FAIL() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken.body:2"), std::string::npos) << error.log();
  }
}

class SerialForcedModes : public ::testing::TestWithParam<test::CoverageCase> {};

TEST_P(SerialForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const test::CoverageCase c = GetParam();
  RuntimeOptions options = serial();
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  test::check_tiny_limit_case(runtime, c);
}

INSTANTIATE_TEST_SUITE_P(AllRanks, SerialForcedModes, ::testing::ValuesIn(test::tiny_limit_cases()),
                         test::case_name);

}  // namespace
}  // namespace stubjit
