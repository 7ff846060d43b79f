// One stub identity: a kernel launched in turn with different bindings, domain ranks
// and forced modes runs the stub made for each launch (every result checked), kernels
// that differ only in element types run their own stubs, and a body that does not
// compile is compiled once and throws the same CompileError on every launch.
#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <set>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

// out = src(0) + 1000 * src.extent(0): a projected src (a row of a rank N+1 field) and
// a broadcast one (the whole rank-1 field) give different, predictable results.
KernelSource tag_kernel() {
  return {"tag",
          {in<std::int64_t>("src", 1), inout<std::int64_t>("out")},
          "out = src(0) + 1000 * src.extent(0);"};
}

TEST(Identity, OneKernelRunsTheRightStubForEachVariant) {
  RuntimeOptions options = test::cpu_options();
  options.fuse_dimensions = false;  // the rank-2 variant stays rank 2
  Runtime runtime(options);
  Kernel tag = runtime.kernel(tag_kernel());
  const std::int64_t n = 6;
  // Projected: src is n x 2, row i starts with 10 + i.
  Field rows = runtime.allocate<std::int64_t>({n, 2});
  std::vector<std::int64_t> row_values(static_cast<std::size_t>(2 * n));
  for (std::int64_t i = 0; i < n; ++i) row_values[static_cast<std::size_t>(2 * i)] = 10 + i;
  rows.copy_from(row_values);
  // Broadcast: one field of three elements, 7 first.
  Field table = runtime.allocate<std::int64_t>({3});
  table.copy_from(std::vector<std::int64_t>{7, 8, 9});
  // Rank 2: a 2 x 3 domain over a 2 x 3 x 4 source.
  Field cube = runtime.allocate<std::int64_t>({2, 3, 4});
  std::vector<std::int64_t> cube_values(24);
  std::iota(cube_values.begin(), cube_values.end(), 0);
  cube.copy_from(cube_values);

  Field out1 = runtime.allocate<std::int64_t>({n});
  Field out2 = runtime.allocate<std::int64_t>({2, 3});
  const auto projected = [&] {
    std::vector<std::int64_t> expected;
    for (std::int64_t i = 0; i < n; ++i) expected.push_back(10 + i + 2000);
    return expected;
  }();
  const std::vector<std::int64_t> broadcast(static_cast<std::size_t>(n), 7 + 3000);
  const std::vector<std::int64_t> rank2 = {4000, 4004, 4008, 4012, 4016, 4020};

  struct Step {
    const char* what;
    std::optional<Mode> mode;
    int variant;  // 0: projected rank 1, 1: broadcast rank 1, 2: projected rank 2
  };
  const std::vector<Step> steps = {
      {"projected", std::nullopt, 0},
      {"broadcast", std::nullopt, 1},
      {"projected again", std::nullopt, 0},
      {"rank 2", std::nullopt, 2},
      {"broadcast again", std::nullopt, 1},
      {"projected, spread", Mode::spread, 0},
      {"projected, multi", Mode::multi, 0},
      {"broadcast, spread", Mode::spread, 1},
      {"rank 2, spread", Mode::spread, 2},
      {"projected, direct", Mode::direct, 0},
      {"projected, spread again", Mode::spread, 0},
  };
  std::set<std::string> variants_seen;
  for (const Step& step : steps) {
    LaunchOptions options;
    options.mode = step.mode;
    Field& out = step.variant == 2 ? out2 : out1;
    out.copy_from(std::vector<std::int64_t>(static_cast<std::size_t>(out.size()), -1));
    const std::uint64_t compiles_before = runtime.counters().compiles;
    LaunchSummary summary;
    if (step.variant == 0) summary = tag.launch(options, Domain{n}, rows, out);
    if (step.variant == 1) summary = tag.launch(options, Domain{n}, table, out);
    if (step.variant == 2) summary = tag.launch(options, Domain{2, 3}, cube, out);
    const std::vector<std::int64_t>& expected = step.variant == 0   ? projected
                                                : step.variant == 1 ? broadcast
                                                                    : rank2;
    EXPECT_EQ(out.to_vector<std::int64_t>(), expected) << step.what;
    // A variant not seen before compiles once; one seen before compiles nothing.
    const std::string variant = std::to_string(step.variant) + name_of(summary.mode);
    const bool new_variant = variants_seen.insert(variant).second;
    EXPECT_EQ(runtime.counters().compiles - compiles_before, new_variant ? 1u : 0u) << step.what;
    EXPECT_EQ(summary.compiled, new_variant) << step.what;
  }
}

// The identity holds the signature: kernels of one name and body over other element
// types are other stubs, each run with its own.
TEST(Identity, KernelsThatDifferOnlyInElementTypesRunTheirOwnStubs) {
  Runtime runtime(test::cpu_options());
  const auto scale = [&](Param x, Param y) {
    return runtime.kernel({"scale", {std::move(x), std::move(y)}, "y = x * 3;"});
  };
  Kernel as_float = scale(in<float>("x"), inout<float>("y"));
  Kernel as_double = scale(in<double>("x"), inout<double>("y"));
  Kernel as_int = scale(in<std::int32_t>("x"), inout<std::int32_t>("y"));
  Field xf = runtime.allocate<float>({4}), yf = runtime.allocate<float>({4});
  Field xd = runtime.allocate<double>({4}), yd = runtime.allocate<double>({4});
  Field xi = runtime.allocate<std::int32_t>({4}), yi = runtime.allocate<std::int32_t>({4});
  xf.copy_from(std::vector<float>(4, 1.5f));
  xd.copy_from(std::vector<double>(4, 0.1));
  xi.copy_from(std::vector<std::int32_t>(4, 7));
  for (int round = 0; round < 2; ++round) {
    as_float.launch(Domain{4}, xf, yf);
    as_int.launch(Domain{4}, xi, yi);
    as_double.launch(Domain{4}, xd, yd);
    EXPECT_EQ(yf.to_vector<float>(), std::vector<float>(4, 4.5f));
    EXPECT_EQ(yd.to_vector<double>(), std::vector<double>(4, 0.1 * 3));
    EXPECT_EQ(yi.to_vector<std::int32_t>(), std::vector<std::int32_t>(4, 21));
  }
  EXPECT_EQ(runtime.counters().compiles, 3u);
}

TEST(Identity, ABodyThatDoesNotCompileIsCompiledOnceAndThrowsTheSameErrorEachTime) {
  Runtime runtime(test::cpu_options());
  const KernelSource source{"broken", {inout<float>("y")}, "y = 1;\ny += missing_name;"};
  Kernel broken = runtime.kernel(source);
  Field y = runtime.allocate<float>({8});
  std::string first_log;
  for (int launch = 0; launch < 3; ++launch) {
    try {
      broken.launch(Domain{8}, y);
      FAIL() << "launch " << launch << " of a body that does not compile ran";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("broken.body:2"), std::string::npos) << error.log();
      if (launch == 0) first_log = error.log();
      EXPECT_EQ(error.log(), first_log);
    }
  }
  // Another handle on the same source finds the failure in the runtime's cache.
  EXPECT_THROW(runtime.kernel(source).launch(Domain{8}, y), CompileError);
  EXPECT_EQ(runtime.counters().compile_failures, 1u);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().launches, 0u);
  // The same name with a body that compiles is another stub.
  Kernel fixed = runtime.kernel({"broken", {inout<float>("y")}, "y = 1;"});
  EXPECT_NO_THROW(fixed.launch(Domain{8}, y));
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(8, 1.0f));
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

}  // namespace
}  // namespace stubjit
