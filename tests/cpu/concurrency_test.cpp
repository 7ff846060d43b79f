#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

TEST(Concurrency, SixteenThreadsLaunchingANewKernelCompileItOnce) {
  Runtime runtime(test::cpu_options());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  constexpr int threads = 16;
  constexpr std::int64_t n = 4096;
  std::vector<Field> xs, ys;
  for (int t = 0; t < threads; ++t) {
    xs.push_back(runtime.allocate<float>({n}));
    ys.push_back(runtime.allocate<float>({n}));
    xs.back().copy_from(std::vector<float>(n, float(t)));
    ys.back().copy_from(std::vector<float>(n, 1.0f));
  }
  std::atomic<int> arrived{0};
  std::atomic<int> compiled_flags{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ++arrived;
      while (arrived.load() < threads) std::this_thread::yield();  // start together
      if (saxpy
              .launch(Domain{n}, 2.0f, xs[static_cast<std::size_t>(t)],
                      ys[static_cast<std::size_t>(t)])
              .compiled)
        ++compiled_flags;
    });
  }
  for (auto& thread : pool) thread.join();
  const CacheCounters counters = runtime.counters();
  EXPECT_EQ(counters.compiles, 1u);
  EXPECT_EQ(compiled_flags.load(), 1);
  EXPECT_EQ(counters.memory_hits, static_cast<std::uint64_t>(threads - 1));
  EXPECT_EQ(counters.launches, static_cast<std::uint64_t>(threads));
  for (int t = 0; t < threads; ++t) {
    for (float v : ys[static_cast<std::size_t>(t)].to_vector<float>())
      ASSERT_EQ(v, 2.0f * float(t) + 1.0f) << "thread " << t;
  }
}

TEST(Concurrency, DifferentKernelsCompileSideBySide) {
  Runtime runtime(test::cpu_options());
  std::vector<std::thread> pool;
  std::atomic<int> correct{0};
  for (int t = 0; t < 4; ++t) {
    pool.emplace_back([&, t] {
      Kernel k = runtime.kernel({"scale" + std::to_string(t),
                                 {inout<std::int32_t>("v")},
                                 "v = v * " + std::to_string(t + 2) + ";",
                                 "",
                                 {}});
      Field v = runtime.allocate<std::int32_t>({100});
      v.copy_from(std::vector<std::int32_t>(100, 3));
      k.launch(Domain{100}, v);
      if (v.to_vector<std::int32_t>()[99] == 3 * (t + 2)) ++correct;
    });
  }
  for (auto& thread : pool) thread.join();
  EXPECT_EQ(correct.load(), 4);
  EXPECT_EQ(runtime.counters().compiles, 4u);
}

}  // namespace
}  // namespace stubjit
