// Dimension fusion end to end, the rules around it: forced direct launches, fixed group
// shapes, and one stub for the launches of one fused shape. (The matrix of ranks,
// layouts and modes is fusion_matrix_test.cpp.)
#include <gtest/gtest.h>

#include <vector>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

TEST(Fusion, ForcedDirectOverMoreThanThreeDimensionsIsRefusedWhateverTheStrides) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(
      {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}});
  std::vector<float> x(16, 1.0f), y(16, 2.0f);
  const Field fx = runtime.wrap(static_cast<const float*>(x.data()), {2, 2, 2, 2});
  const Field fy = runtime.wrap(y.data(), {2, 2, 2, 2});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  EXPECT_THROW(kernel.launch(direct, Domain{2, 2, 2, 2}, 1.0f, fx, fy), PlanError);
  EXPECT_EQ(y, std::vector<float>(16, 2.0f));  // nothing ran
}

// Direct's limits are per dimension: a forced direct launch is accepted or refused as
// its domain is given, and fused only where the fused domain fits too.
TEST(Fusion, ForcedDirectIsJudgedOverTheDomainAsGiven) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();  // at most 3 groups per dimension
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(
      {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  std::vector<float> x(24, 1.0f), y(24, 2.0f);
  // 4 x 6 fits direct (2 x 2 groups of 4 x 2); fused, 24 in a row would need 6 groups
  // of 4: it runs unfused.
  const Field fx = runtime.wrap(static_cast<const float*>(x.data()), {4, 6});
  const Field fy = runtime.wrap(y.data(), {4, 6});
  const LaunchSummary ran = kernel.launch(direct, Domain{4, 6}, 3.0f, fx, fy);
  EXPECT_EQ(ran.mode, Mode::direct);
  EXPECT_EQ(ran.rank, 2);
  EXPECT_EQ(y, std::vector<float>(24, 5.0f));
  // 12 x 1 needs 6 groups of 2 along y (refused as given), though fused, 12 in a row
  // would fit in 3 groups of 4: refused, and nothing ran.
  const Field gx = runtime.wrap(static_cast<const float*>(x.data()), {12, 1});
  const Field gy = runtime.wrap(y.data(), {12, 1});
  EXPECT_THROW(kernel.launch(direct, Domain{12, 1}, 3.0f, gx, gy), PlanError);
  EXPECT_EQ(y, std::vector<float>(24, 5.0f));
  // Without a forced mode the same launch fuses and runs.
  EXPECT_EQ(kernel.launch(Domain{12, 1}, 3.0f, gx, gy).rank, 1);
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 12), std::vector<float>(12, 8.0f));
}

TEST(Fusion, AFixedGroupShapeKeepsTheDomainsDimensions) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  KernelSource source{
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}};
  source.block.shape = {4, 2, 1};
  Kernel kernel = runtime.kernel(source);
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  const Field fx = runtime.wrap(static_cast<const float*>(x.data()), {8, 8});
  const Field fy = runtime.wrap(y.data(), {8, 8});
  EXPECT_EQ(kernel.launch(Domain{8, 8}, 2.0f, fx, fy).rank, 2);
  EXPECT_EQ(y, std::vector<float>(64, 2.0f));
}

TEST(Fusion, LaunchesOfOneShapeShareTheStubOfTheFusedRank) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(
      {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}});
  std::vector<float> x(120, 1.0f), y(120, 0.0f);
  // Dense fields over domains of rank 1, 2 and 3 of the same elements: one stub.
  for (const std::vector<std::int64_t>& extents :
       {std::vector<std::int64_t>{120}, {10, 12}, {2, 6, 10}, {4, 30}}) {
    const Field fx = runtime.wrap(static_cast<const float*>(x.data()), extents);
    const Field fy = runtime.wrap(y.data(), extents);
    std::vector<Dim> dims;
    for (std::int64_t e : extents) dims.push_back(Dim{0, e, 1});
    EXPECT_EQ(kernel.launch(Domain(dims), 2.0f, fx, fy).rank, 1);
  }
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(y, std::vector<float>(120, 8.0f));
}

}  // namespace
}  // namespace stubjit
