// Specialize::background: a launch with new values of specialized scalars runs the
// kernel's generic stub at once while the specialized one compiles on the kernel's
// worker; later launches run the specialized stub. Results are checked against a host
// loop every time, so a launch that ran the wrong stub for its values would show.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i32 = std::int32_t;

// y = the polynomial x^degree + c (x^(degree-1) + ... + 1), by Horner's rule.
KernelSource poly_source(Specialize specialize) {
  KernelSource source{
      "poly",
      {specialized<i32>("degree"), specialized<i32>("c"), in<i32>("x"), inout<i32>("y")},
      "i32 v = 1;\nfor (i32 k = 0; k < degree; ++k) v = v * x + c;\ny = v;",
      "using i32 = stubjit::i32;"};
  source.specialize = specialize;
  return source;
}

std::vector<i32> host_poly(const std::vector<i32>& x, i32 degree, i32 c) {
  std::vector<i32> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    i32 v = 1;
    for (i32 k = 0; k < degree; ++k) v = v * x[i] + c;
    y[i] = v;
  }
  return y;
}

struct PolyRun {
  explicit PolyRun(Runtime& runtime)
      : x(runtime.allocate<i32>({n})), y(runtime.allocate<i32>({n})) {
    for (std::int64_t i = 0; i < n; ++i) values.push_back(static_cast<i32>(i % 7) - 3);
    x.copy_from(values);
  }
  LaunchSummary launch(Kernel& kernel, i32 degree, i32 c) {
    const LaunchSummary summary = kernel.launch(Domain{n}, degree, c, x, y);
    EXPECT_EQ(y.to_vector<i32>(), host_poly(values, degree, c)) << degree << " " << c;
    return summary;
  }
  static constexpr std::int64_t n = 1000;
  std::vector<i32> values;
  Field x;
  Field y;
};

TEST(BackgroundSpecialization, RunsTheGenericStubAtOnceAndSwitchesWhenReady) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel poly = runtime.kernel(poly_source(Specialize::background));
  PolyRun run(runtime);

  const LaunchSummary first = run.launch(poly, 3, 2);
  EXPECT_TRUE(first.generic);
  EXPECT_TRUE(first.compiled);  // the generic stub, compiled by this launch
  poly.finish_specializing();
  EXPECT_EQ(runtime.counters().compiles, 2u);  // generic, then specialized for (3, 2)

  const LaunchSummary second = run.launch(poly, 3, 2);
  EXPECT_FALSE(second.generic);
  EXPECT_FALSE(second.compiled);
  EXPECT_FALSE(run.launch(poly, 3, 2).generic);  // the launch memo's path

  // New values run at once on the generic stub: this launch compiles nothing.
  const LaunchSummary other = run.launch(poly, 5, -1);
  EXPECT_TRUE(other.generic);
  EXPECT_FALSE(other.compiled);
  poly.finish_specializing();
  EXPECT_EQ(runtime.counters().compiles, 3u);
  const LaunchSummary specialized_now = run.launch(poly, 5, -1);
  EXPECT_FALSE(specialized_now.generic);
  EXPECT_FALSE(specialized_now.compiled);
  EXPECT_EQ(runtime.counters().compiles, 3u);
}

TEST(BackgroundSpecialization, AtLaunchIsTheDefaultAndWaitsForItsStub) {
  EXPECT_EQ(KernelSource{}.specialize, Specialize::at_launch);
  Runtime runtime(test::cpu_memory_only_options());
  Kernel poly = runtime.kernel(poly_source(Specialize::at_launch));
  PolyRun run(runtime);
  const LaunchSummary first = run.launch(poly, 4, 1);
  EXPECT_FALSE(first.generic);
  EXPECT_TRUE(first.compiled);
  poly.finish_specializing();  // nothing queued: returns at once
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

// Several threads launch with values of their own while the worker compiles: every
// launch gives its own values' results, and once the queue is done every value runs
// its specialized stub.
TEST(BackgroundSpecialization, ConcurrentLaunchesWithManyValues) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel poly = runtime.kernel(poly_source(Specialize::background));
  std::vector<std::thread> threads;
  for (i32 t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      PolyRun run(runtime);
      for (i32 round = 0; round < 2; ++round)
        for (i32 degree = 1; degree <= 4; ++degree) run.launch(poly, degree, t);
    });
  }
  for (std::thread& thread : threads) thread.join();
  poly.finish_specializing();
  EXPECT_EQ(runtime.counters().compiles, 1u + 3u * 4u);  // one generic, twelve specialized
  PolyRun run(runtime);
  for (i32 t = 0; t < 3; ++t)
    for (i32 degree = 1; degree <= 4; ++degree) EXPECT_FALSE(run.launch(poly, degree, t).generic);
}

// A SplitKernel's parts launch as Kernel::launch does: with new values each part's
// check, before any part launches, compiles the generic stub and queues the specialized
// one on the part's worker instead of compiling it then and there (so the parts do not
// wait for it); the launches run the generic stub, or the specialized one where the
// worker was already done; later launches run the specialized stubs.
TEST(BackgroundSpecialization, SplitKernelPartsDoNotWaitForTheSpecializedStub) {
  Runtime left(test::cpu_memory_only_options()), right(test::cpu_memory_only_options());
  SplitKernel poly({&left, &right}, poly_source(Specialize::background));
  PolyRun left_run(left), right_run(right);
  const auto launch = [&](i32 degree, i32 c) {
    const std::vector<LaunchSummary> summaries =
        poly.launch({{Domain{PolyRun::n}, {degree, c, left_run.x, left_run.y}},
                     {Domain{PolyRun::n}, {degree, c, right_run.x, right_run.y}}});
    for (PolyRun* run : {&left_run, &right_run})
      EXPECT_EQ(run->y.to_vector<i32>(), host_poly(run->values, degree, c)) << degree << " " << c;
    return summaries;
  };
  // The generic stub ran, compiled by the check; or the worker finished first and the
  // specialized one ran, compiled by the worker, not by this launch.
  for (const LaunchSummary& part : launch(3, 2)) EXPECT_EQ(part.compiled, part.generic);
  for (std::size_t part = 0; part < poly.parts(); ++part) poly.kernel(part).finish_specializing();
  // The generic stub (the check's), then the specialized one (the worker's): a check
  // that compiled the specialized stub itself would have left the generic one uncompiled.
  EXPECT_EQ(left.counters().compiles, 2u);
  EXPECT_EQ(right.counters().compiles, 2u);
  for (const LaunchSummary& part : launch(3, 2)) {
    EXPECT_FALSE(part.generic);
    EXPECT_FALSE(part.compiled);
  }
}

// Kernel::repeat with swaps checks the launch after the first trade before its first
// iteration, as that launch would run: the generic stub compiled there, the specialized
// one queued on the worker (a check that compiled the specialized stub itself made the
// loop wait for it, and left the generic one uncompiled).
TEST(BackgroundSpecialization, RepeatWithSwapsDoesNotWaitForTheSpecializedStub) {
  Runtime runtime(test::cpu_memory_only_options());
  KernelSource source{
      "divide",
      {specialized<i32>("d"), in<i32>("x"), inout<i32>("y"), result<bool>("done", Combiner::all)},
      "y = x / d; done = y == 0;"};
  source.specialize = Specialize::background;
  Kernel divide = runtime.kernel(source);
  const std::vector<i32> values = {1000, 3, 0, 77, -500, 26};
  const i32 d = 3;
  // The host's loop: divide until every element is zero, every state kept.
  std::vector<std::vector<i32>> states{values};
  for (bool done = false; !done;) {
    std::vector<i32> next;
    for (const i32 v : states.back()) next.push_back(v / d);
    done = std::all_of(next.begin(), next.end(), [](i32 v) { return v == 0; });
    states.push_back(std::move(next));
  }
  const auto iterations = static_cast<std::int64_t>(states.size()) - 1;
  const std::vector<i32>& last = states.back();
  const std::vector<i32>& before = states[states.size() - 2];
  ASSERT_EQ(iterations, 7);  // 1000 needs seven divisions by 3
  const auto n = static_cast<std::int64_t>(values.size());
  Field a = runtime.allocate<i32>({n}), b = runtime.allocate<i32>({n});
  a.copy_from(values);
  RepeatOptions options;
  options.swaps = {{a, b}};
  const RepeatSummary summary = divide.repeat(options, Domain{n}, d, a, b);
  EXPECT_TRUE(summary.converged);
  EXPECT_EQ(summary.iterations, iterations);
  EXPECT_TRUE(summary.compiled);
  EXPECT_EQ((summary.swapped ? a : b).to_vector<i32>(), last);
  EXPECT_EQ((summary.swapped ? b : a).to_vector<i32>(), before);
  divide.finish_specializing();
  EXPECT_EQ(runtime.counters().compiles, 2u);  // generic (the check's), specialized (the worker's)
  a.copy_from(values);
  const RepeatSummary again = divide.repeat(options, Domain{n}, d, a, b);
  EXPECT_EQ(again.iterations, iterations);
  EXPECT_FALSE(again.compiled);
  EXPECT_EQ((again.swapped ? a : b).to_vector<i32>(), last);
  EXPECT_EQ(runtime.counters().compiles, 2u);
}

// The last handle of a kernel may go while its worker compiles: the compile under way
// finishes, the queued ones are dropped, and the runtime goes on.
TEST(BackgroundSpecialization, AKernelDroppedWhileCompilingGoesCleanly) {
  Runtime runtime(test::cpu_memory_only_options());
  {
    Kernel poly = runtime.kernel(poly_source(Specialize::background));
    PolyRun run(runtime);
    for (i32 degree = 1; degree <= 5; ++degree) EXPECT_TRUE(run.launch(poly, degree, 1).generic);
  }
  Kernel again = runtime.kernel(poly_source(Specialize::background));
  PolyRun run(runtime);
  run.launch(again, 2, 2);
  again.finish_specializing();
  EXPECT_FALSE(run.launch(again, 2, 2).generic);
}

// More stubs than the kernel's own table holds (KernelStubs::capacity, 64): the ones
// compiled in the background past it are found in the runtime's cache, and launches
// with their values run them too.
TEST(BackgroundSpecialization, StubsPastTheKernelsTableAreRunWhenReady) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel poly = runtime.kernel(poly_source(Specialize::background));
  PolyRun run(runtime);
  constexpr i32 values = 70;
  for (i32 c = 0; c < values; ++c) EXPECT_TRUE(run.launch(poly, 2, c).generic) << c;
  poly.finish_specializing();
  EXPECT_EQ(runtime.counters().compiles, 1u + values);
  for (i32 c = 0; c < values; ++c) {
    const LaunchSummary summary = run.launch(poly, 2, c);
    EXPECT_FALSE(summary.generic) << c;
    EXPECT_FALSE(summary.compiled) << c;
  }
  EXPECT_EQ(runtime.counters().compiles, 1u + values);
}

// A specialized compile that fails leaves its values on the generic stub: launches go
// on, with the right results, and nothing is compiled again for them. The generic
// stub comes from the disk cache; the second runtime's compile limit (1 ms) stops
// every compile it starts.
TEST(BackgroundSpecialization, AFailedSpecializedCompileKeepsTheGenericStub) {
  const test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);  // ctest turns it off here
  const test::TempDir cache;
  RuntimeOptions options = test::cpu_options();
  options.cache_dir = cache.path();
  {
    Runtime first(options);
    Kernel poly = first.kernel(poly_source(Specialize::background));
    PolyRun run(first);
    EXPECT_TRUE(run.launch(poly, 2, 1).generic);
    poly.finish_specializing();
  }
  options.compile_timeout = std::chrono::milliseconds(1);
  Runtime second(options);
  Kernel poly = second.kernel(poly_source(Specialize::background));
  PolyRun run(second);
  const LaunchSummary launched = run.launch(poly, 6, -2);  // the generic stub, from disk
  EXPECT_TRUE(launched.generic);
  EXPECT_FALSE(launched.compiled);
  poly.finish_specializing();
  EXPECT_EQ(second.counters().compile_failures, 1u);
  const LaunchSummary after = run.launch(poly, 6, -2);
  EXPECT_TRUE(after.generic);
  EXPECT_FALSE(after.compiled);
  poly.finish_specializing();
  EXPECT_EQ(second.counters().compile_failures, 1u);  // not tried again
  // Values the first runtime specialized: their stub is on disk, loaded by the worker
  // (no compile, so the limit does not stop it); meanwhile the generic stub runs.
  EXPECT_TRUE(run.launch(poly, 2, 1).generic);
  poly.finish_specializing();
  const LaunchSummary from_disk = run.launch(poly, 2, 1);
  EXPECT_FALSE(from_disk.generic);
  EXPECT_FALSE(from_disk.compiled);
  EXPECT_EQ(second.counters().compile_failures, 1u);
  EXPECT_EQ(second.counters().compiles, 0u);
}

TEST(BackgroundSpecialization, AnInvalidModeIsRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  KernelSource source = poly_source(Specialize::background);
  source.specialize = static_cast<Specialize>(7);
  try {
    runtime.kernel(source);
    FAIL() << "specialize 7 was accepted";
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("specialize is 7, which is no Specialize"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace stubjit
