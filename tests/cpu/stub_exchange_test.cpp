// StubExchange in one process: the orders a runtime lacks, compiled by another
// runtime of the same toolchain and installed where they were missing, without MPI
// (tests/mpi covers the job-wide service built on it).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace {

constexpr std::int64_t n = 100;

stubjit::RuntimeOptions memory_only() {
  stubjit::RuntimeOptions options;
  options.backend = "cpu";
  options.cpu_threads = 1;
  options.disk_cache = false;
  return options;
}

stubjit::KernelSource shift(int k) {
  return {"shift" + std::to_string(k),
          {stubjit::in<float>("x"), stubjit::inout<float>("y")},
          "y = x + " + std::to_string(k) + ".0f;"};
}

struct Side {
  stubjit::Runtime runtime;
  stubjit::Field x, y;
  explicit Side(stubjit::RuntimeOptions options = memory_only())
      : runtime(std::move(options)),
        x(runtime.allocate<float>({n})),
        y(runtime.allocate<float>({n})) {
    std::vector<float> values(n);
    for (std::int64_t i = 0; i < n; ++i) values[i] = float(i);
    x.copy_from(values);
  }
  std::vector<stubjit::PlannedLaunch> launches(std::vector<stubjit::Kernel>& kernels) {
    std::vector<stubjit::PlannedLaunch> out;
    for (stubjit::Kernel& kernel : kernels) out.push_back({kernel, stubjit::Domain{n}, {x, y}});
    return out;
  }
  void expect_shifted_by(float k) {
    const std::vector<float> ys = y.to_vector<float>();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ys[i], float(i) + k) << i;
  }
};

TEST(StubExchange, MissingNamesEachLackingStubOnceAndCompilesNothing) {
  Side side;
  std::vector<stubjit::Kernel> kernels{side.runtime.kernel(shift(1)), side.runtime.kernel(shift(2)),
                                       side.runtime.kernel(shift(1))};  // the same stub again
  const std::vector<stubjit::StubOrder> orders =
      stubjit::StubExchange::missing(side.runtime, side.launches(kernels));
  ASSERT_EQ(orders.size(), 2u);
  EXPECT_EQ(orders[0].kernel, "shift1");
  EXPECT_EQ(orders[1].kernel, "shift2");
  EXPECT_NE(orders[0].key, orders[1].key);
  EXPECT_EQ(orders[0].key.size(), 32u);
  EXPECT_NE(orders[0].source.find("y = x + 1.0f;"), std::string::npos);
  EXPECT_EQ(orders[0].toolchain, stubjit::StubExchange::toolchain(side.runtime));
  EXPECT_EQ(side.runtime.counters().compiles, 0u);
  // Nothing of the deferral stays behind: the launch compiles and runs as ever.
  kernels[0].launch(stubjit::Domain{n}, side.x, side.y);
  side.expect_shifted_by(1.0f);
  EXPECT_EQ(side.runtime.counters().compiles, 1u);
  EXPECT_EQ(stubjit::StubExchange::missing(side.runtime, side.launches(kernels)).size(), 1u);
}

TEST(StubExchange, AStubCompiledByOneRuntimeRunsInAnotherWithoutCompiling) {
  Side needs, compiles;
  std::vector<stubjit::Kernel> kernels{needs.runtime.kernel(shift(3))};
  const std::vector<stubjit::StubOrder> orders =
      stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels));
  ASSERT_EQ(orders.size(), 1u);
  const stubjit::StubBinary binary = stubjit::StubExchange::compile(compiles.runtime, orders[0]);
  EXPECT_EQ(compiles.runtime.counters().compiles, 1u);
  EXPECT_EQ(binary.format, "elf-shared-object");
  EXPECT_EQ(binary.cache_name, orders[0].key);
  stubjit::StubExchange::install(needs.runtime, orders[0], binary, false);
  EXPECT_TRUE(stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels)).empty());
  const stubjit::LaunchSummary summary = kernels[0].launch(stubjit::Domain{n}, needs.x, needs.y);
  EXPECT_FALSE(summary.compiled);
  EXPECT_EQ(needs.runtime.counters().compiles, 0u);
  needs.expect_shifted_by(3.0f);
}

TEST(StubExchange, InstallToDiskWritesTheEntryANewRuntimeLoads) {
  // This suite runs with STUBJIT_CACHE=off (tests/CMakeLists.txt): on for this test.
  const stubjit::test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);
  stubjit::test::TempDir cache;
  stubjit::RuntimeOptions options = memory_only();
  options.disk_cache = true;
  options.cache_dir = cache.path();
  {
    Side needs(options), compiles;
    std::vector<stubjit::Kernel> kernels{needs.runtime.kernel(shift(4))};
    const std::vector<stubjit::StubOrder> orders =
        stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels));
    ASSERT_EQ(orders.size(), 1u);
    stubjit::StubExchange::install(needs.runtime, orders[0],
                                   stubjit::StubExchange::compile(compiles.runtime, orders[0]),
                                   true);
    EXPECT_EQ(needs.runtime.counters().disk_writes, 1u);
  }
  Side later(options);
  std::vector<stubjit::Kernel> kernels{later.runtime.kernel(shift(4))};
  kernels[0].launch(stubjit::Domain{n}, later.x, later.y);
  later.expect_shifted_by(4.0f);
  EXPECT_EQ(later.runtime.counters().compiles, 0u);
  EXPECT_EQ(later.runtime.counters().disk_hits, 1u);
}

TEST(StubExchange, OrdersOfAnotherToolchainAreRefused) {
  stubjit::RuntimeOptions other = memory_only();
  other.compiler_options = {"-DSTUBJIT_OTHER=1"};
  Side needs, elsewhere(other);
  std::vector<stubjit::Kernel> kernels{needs.runtime.kernel(shift(5))};
  const stubjit::StubOrder order =
      stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels)).at(0);
  EXPECT_NE(stubjit::StubExchange::toolchain(needs.runtime),
            stubjit::StubExchange::toolchain(elsewhere.runtime));
  try {
    stubjit::StubExchange::compile(elsewhere.runtime, order);
    FAIL() << "compiled for another toolchain";
  } catch (const stubjit::Error& error) {
    EXPECT_NE(std::string(error.what()).find("another toolchain"), std::string::npos);
  }
  EXPECT_EQ(elsewhere.runtime.counters().compiles, 0u);
  const stubjit::StubBinary binary = stubjit::StubExchange::compile(needs.runtime, order);
  EXPECT_THROW(stubjit::StubExchange::install(elsewhere.runtime, order, binary, false),
               stubjit::Error);
  // The toolchain is read from the key itself: a label that says otherwise is no pass.
  stubjit::StubOrder relabelled = order;
  relabelled.toolchain = stubjit::StubExchange::toolchain(elsewhere.runtime);
  EXPECT_THROW(stubjit::StubExchange::compile(elsewhere.runtime, relabelled), stubjit::Error);
  EXPECT_THROW(stubjit::StubExchange::install(elsewhere.runtime, relabelled, binary, false),
               stubjit::Error);
  EXPECT_EQ(elsewhere.runtime.counters().compiles, 0u);
}

TEST(StubExchange, DamagedOrdersAndEmptyBinariesAreRefusedBeforeAnythingIsKept) {
  Side needs;
  std::vector<stubjit::Kernel> kernels{needs.runtime.kernel(shift(6))};
  const stubjit::StubOrder order =
      stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels)).at(0);

  stubjit::StubOrder other_source = order;
  other_source.source += "\n// changed\n";
  EXPECT_THROW(stubjit::StubExchange::compile(needs.runtime, other_source), stubjit::Error);
  stubjit::StubOrder other_key = order;
  other_key.key_text += "x";
  EXPECT_THROW(stubjit::StubExchange::compile(needs.runtime, other_key), stubjit::Error);
  EXPECT_EQ(needs.runtime.counters().compiles, 0u);

  const stubjit::StubBinary binary = stubjit::StubExchange::compile(needs.runtime, order);
  EXPECT_THROW(stubjit::StubExchange::install(needs.runtime, other_key, binary, false),
               stubjit::Error);
  EXPECT_THROW(stubjit::StubExchange::install(needs.runtime, order, stubjit::StubBinary{}, false),
               stubjit::Error);
  stubjit::StubBinary of_another = binary;
  of_another.cache_name = std::string(32, 'a');
  EXPECT_THROW(stubjit::StubExchange::install(needs.runtime, order, of_another, false),
               stubjit::Error);
  stubjit::StubBinary other_target = binary;
  other_target.target = "sm_90";
  EXPECT_THROW(stubjit::StubExchange::install(needs.runtime, order, other_target, false),
               stubjit::Error);
  // Nothing was installed: the stub is still missing.
  EXPECT_EQ(stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels)).size(), 1u);
}

TEST(StubExchange, KernelsOfAnotherRuntimeAndRefusedLaunchesThrow) {
  Side one, two;
  std::vector<stubjit::Kernel> theirs{two.runtime.kernel(shift(7))};
  EXPECT_THROW(stubjit::StubExchange::missing(one.runtime, two.launches(theirs)), stubjit::Error);
  EXPECT_THROW(stubjit::StubExchange::missing(one.runtime, {stubjit::PlannedLaunch{}}),
               stubjit::Error);
  std::vector<stubjit::Kernel> mine{one.runtime.kernel(shift(7))};
  std::vector<stubjit::PlannedLaunch> short_one = one.launches(mine);
  short_one[0].args.pop_back();
  EXPECT_THROW(stubjit::StubExchange::missing(one.runtime, short_one), stubjit::ArgumentError);
  EXPECT_EQ(one.runtime.counters().compiles, 0u);
}

TEST(StubExchange, ACompileErrorCarriesTheUsersLine) {
  Side needs;
  std::vector<stubjit::Kernel> kernels{needs.runtime.kernel(
      {"broken", {stubjit::in<float>("x"), stubjit::inout<float>("y")}, "y = x +;"})};
  const stubjit::StubOrder order =
      stubjit::StubExchange::missing(needs.runtime, needs.launches(kernels)).at(0);
  try {
    stubjit::StubExchange::compile(needs.runtime, order);
    FAIL() << "compiled";
  } catch (const stubjit::CompileError& error) {
    EXPECT_EQ(error.kernel(), "broken");
    EXPECT_NE(error.log().find("broken.body:1"), std::string::npos) << error.log();
  }
  EXPECT_EQ(needs.runtime.counters().compile_failures, 1u);
}

}  // namespace
