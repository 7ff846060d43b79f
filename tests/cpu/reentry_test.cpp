// A launch made while another is in progress on the same thread: here a kernel body
// calls back into the host (the JIT resolves symbols of the process), and the host
// launches again. The outer launch's later dispatches must still see its own packed
// arguments and plan: they live in the launch's own storage, not in one buffer per
// thread, and the thread's launch memo is not overwritten while a launch uses it.
#include <gtest/gtest.h>

#include "common/coverage.hpp"
#include "stubjit/stubjit.hpp"

namespace {

stubjit::Kernel* inner = nullptr;
stubjit::Field* inner_field = nullptr;
stubjit::Kernel* outer = nullptr;
stubjit::Field* outer_small = nullptr;
int depth = 0;
int reentries = 0;
bool relaunch_outer = false;

}  // namespace

// Called from the outer kernel's body at index (0, 0), in its first dispatch.
extern "C" void test_reenter_from_body(long long) {
  if (depth > 0) return;
  ++depth;
  ++reentries;
  inner->launch(stubjit::Domain{5}, *inner_field);
  // The outer kernel itself, over another domain: it misses the thread's memo entry
  // that the outer launch is dispatching from, and must not overwrite it.
  if (relaunch_outer) outer->launch(stubjit::Domain{2, 2}, *outer_small, std::int64_t(1000));
  --depth;
}

namespace stubjit {
namespace {

TEST(Reentry, ALaunchFromWithinALaunchLeavesTheOuterOneIntact) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.limits = test::tiny_limits();  // the outer launch is several dispatches
  Runtime runtime(options);
  Kernel outer_kernel =
      runtime.kernel({"outer",
                      {index("i"), inout<std::int64_t>("out"), scalar<std::int64_t>("tag")},
                      "if (i[0] == 0 && i[1] == 0) test_reenter_from_body(tag);\n"
                      "out = i[0] * 100 + i[1] + tag;",
                      "extern \"C\" void test_reenter_from_body(long long);"});
  Kernel inner_kernel = runtime.kernel({"inner", {inout<std::int64_t>("v")}, "v += 1;"});
  Field out = runtime.allocate<std::int64_t>({12, 12});
  Field small = runtime.allocate<std::int64_t>({2, 2});
  Field counts = runtime.allocate<std::int64_t>({5});
  counts.copy_from(std::vector<std::int64_t>(5, 0));
  inner = &inner_kernel;
  inner_field = &counts;
  outer = &outer_kernel;
  outer_small = &small;
  LaunchOptions multi;
  multi.mode = Mode::multi;
  ASSERT_GE(outer_kernel.plan(Domain{12, 12}, Mode::multi).dispatches.size(), 2u);
  // The first launch plans and fills the thread's memo entry; the later ones run from
  // it, and from within them the outer kernel is launched again over another domain.
  for (int launch = 1; launch <= 3; ++launch) {
    relaunch_outer = launch > 1;
    out.copy_from(std::vector<std::int64_t>(144, -1));
    small.copy_from(std::vector<std::int64_t>(4, -1));
    outer_kernel.launch(multi, Domain{12, 12}, out, std::int64_t(7));
    const std::vector<std::int64_t> values = out.to_vector<std::int64_t>();
    for (std::int64_t r = 0; r < 12; ++r) {
      for (std::int64_t c = 0; c < 12; ++c) {
        ASSERT_EQ(values[static_cast<std::size_t>(r * 12 + c)], r * 100 + c + 7)
            << "launch " << launch << " at " << r << "," << c;
      }
    }
    EXPECT_EQ(reentries, launch);
    EXPECT_EQ(counts.to_vector<std::int64_t>(), std::vector<std::int64_t>(5, launch));
    const std::vector<std::int64_t> expected_small =
        relaunch_outer ? std::vector<std::int64_t>{1000, 1001, 1100, 1101}
                       : std::vector<std::int64_t>(4, -1);
    EXPECT_EQ(small.to_vector<std::int64_t>(), expected_small);
  }
  // The outer kernel (multi, then direct over 2 x 2) and the inner one: three stubs.
  EXPECT_EQ(runtime.counters().compiles, 3u);
}

}  // namespace
}  // namespace stubjit
