// Reductions on the CPU backend (docs/patterns.md): the sum of 2^28 floats by a
// stubjit reduce kernel (`v = x;`, Combiner::sum), against the same sum as a g++ -O3
// -march=native -fopenmp loop with `reduction(+:s)` (hand_reduce_sum in
// hand_loops.cpp: the baseline; g++ does not vectorize it, a float sum being
// order-dependent), and with `parallel for simd reduction(+:s)` (hand_reduce_sum_simd:
// vectorized, the fastest plain loop).
//
//   BM_Sum_Alternating   the three sides in every iteration, the order rotated;
//                        counters stubjit_ms, hand_ms, simd_ms (medians),
//                        hand_over_stubjit and simd_over_stubjit (above 1: stubjit
//                        faster), GBps (stubjit's bytes read per second), parts
//                        (groups per segment), first_launch_ms (the compile)
//   BM_Sum_Stubjit       one side per benchmark, for
//   BM_Sum_HandLoop      --benchmark_enable_random_interleaving
//
// Before timing, stubjit's sum is compared with a double-precision host sum (within
// 1e-4 relative) and with itself (a second run, bit for bit); both sides' relative
// errors are counters (stubjit_error, hand_error), for the record.
//
//   BM_IntegerReduce/<type>_<combiner>   the min of int8s, the max of uint16s, the
//                        wrapping sum of uint32s and the sum of int64s, against
//                        `parallel for simd reduction(op : r)` loops (hand_loops.cpp),
//                        alternating; counters stubjit_ms, hand_ms,
//                        hand_over_stubjit, GBps and first_launch_ms (the stub's
//                        compile: run with STUBJIT_CACHE=off). Both sides' results
//                        are checked against a host loop's before timing.
//
// Environment: STUBJIT_REDUCE_ELEMENTS (default 2^28).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_support.hpp"
#include "hand_loops.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using i64 = std::int64_t;

i64 elements() {
  const char* text = std::getenv("STUBJIT_REDUCE_ELEMENTS");
  const i64 value = text ? std::atoll(text) : 0;
  return value > 0 ? value : i64(1) << 28;
}

RuntimeOptions cpu() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

struct Sum {
  i64 n = elements();
  Runtime runtime{cpu()};
  Kernel kernel =
      runtime.kernel({"sum", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"});
  Field x = runtime.allocate<float>({n});
  Domain domain{n};
  LaunchSummary summary;
  double compile_ms = 0;
  // Relative errors against a double-precision sum: each side sums in float (the hand
  // loop one running sum per thread, stubjit eight lanes per group and a tree).
  double stubjit_error = 0, hand_error = 0, simd_error = 0;

  Sum() {
    std::vector<float> values(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = float(k % 1000) * 0.001f;
    x.copy_from(values);
  }
  float run_stubjit() { return kernel.reduce<float>(domain, x); }
  float run_hand() { return hand_reduce_sum(static_cast<const float*>(x.data()), n); }
  float run_simd() { return hand_reduce_sum_simd(static_cast<const float*>(x.data()), n); }
  // Empty when both sums are right, else what is wrong.
  std::string check() {
    const auto start = std::chrono::steady_clock::now();
    const float first = run_stubjit();  // compiles the stub, outside the timing
    compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const Field out = runtime.allocate<float>({});  // rank 0: one element
    summary = kernel.prepare(domain, x, out);       // the launch's summary (a memory hit)
    const float second = run_stubjit();
    const float hand = run_hand();
    double want = 0;
    for (i64 k = 0; k < n; ++k) want += double(k % 1000) * double(0.001f);
    stubjit_error = std::fabs(double(first) - want) / want;
    hand_error = std::fabs(double(hand) - want) / want;
    simd_error = std::fabs(double(run_simd()) - want) / want;
    if (std::memcmp(&first, &second, sizeof(float)) != 0) return "two stubjit sums differ";
    if (stubjit_error > 1e-4) {
      return "stubjit's sum " + std::to_string(first) + " is not " + std::to_string(want);
    }
    return {};
  }
};

std::unique_ptr<Sum> prepared(benchmark::State& state) {
  auto sum = std::make_unique<Sum>();
  const std::string problem = sum->check();
  if (!problem.empty()) {
    state.SkipWithError(problem.c_str());
    return nullptr;
  }
  state.SetLabel(std::to_string(sum->n) + " floats");
  return sum;
}

using stubjit::bench::milliseconds;

void BM_Sum_Alternating(benchmark::State& state) {
  const std::unique_ptr<Sum> sum = prepared(state);
  if (!sum) return;
  using Clock = std::chrono::steady_clock;
  const auto time = [](auto&& run) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(run());
    return milliseconds(Clock::now() - start);
  };
  std::vector<double> ms[3];  // stubjit, hand, simd
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < 3; ++place) {
      const int side = static_cast<int>((iteration + place) % 3);
      ms[side].push_back(side == 0   ? time([&] { return sum->run_stubjit(); })
                         : side == 1 ? time([&] { return sum->run_hand(); })
                                     : time([&] { return sum->run_simd(); }));
    }
    ++iteration;
    state.SetIterationTime(ms[0].back() / 1e3);
  }
  const double s = stubjit::bench::median(ms[0]), h = stubjit::bench::median(ms[1]),
               v = stubjit::bench::median(ms[2]);
  state.counters["stubjit_ms"] = s;
  state.counters["hand_ms"] = h;
  state.counters["simd_ms"] = v;
  state.counters["hand_over_stubjit"] = h / s;
  state.counters["simd_over_stubjit"] = v / s;
  state.counters["GBps"] = double(sum->n) * sizeof(float) / s / 1e6;
  state.counters["parts"] = sum->summary.reduce_parts;
  state.counters["first_launch_ms"] = sum->compile_ms;
  state.counters["stubjit_error"] = sum->stubjit_error;
  state.counters["hand_error"] = sum->hand_error;
  state.counters["simd_error"] = sum->simd_error;
}
BENCHMARK(BM_Sum_Alternating)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_Sum_Stubjit(benchmark::State& state) {
  const std::unique_ptr<Sum> sum = prepared(state);
  if (!sum) return;
  for (auto _ : state) benchmark::DoNotOptimize(sum->run_stubjit());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * sum->n * 4);
}
BENCHMARK(BM_Sum_Stubjit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Sum_HandLoop(benchmark::State& state) {
  const std::unique_ptr<Sum> sum = prepared(state);
  if (!sum) return;
  for (auto _ : state) benchmark::DoNotOptimize(sum->run_hand());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * sum->n * 4);
}
BENCHMARK(BM_Sum_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Sum_HandLoopSimd(benchmark::State& state) {
  const std::unique_ptr<Sum> sum = prepared(state);
  if (!sum) return;
  for (auto _ : state) benchmark::DoNotOptimize(sum->run_simd());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * sum->n * 4);
}
BENCHMARK(BM_Sum_HandLoopSimd)->Unit(benchmark::kMillisecond)->UseRealTime();

// An integer reduction of n values `(k * 7919) % 97` (plus 1 for the sum of int64s, so
// no prefix is 0), the same kernel shape as the float sum's.
template <class T>
struct IntegerReduce {
  using Hand = T (*)(const T*, i64);
  i64 n = elements();
  Runtime runtime{cpu()};
  Kernel kernel;
  Field x = runtime.allocate<T>({n});
  Domain domain{n};
  Hand hand;
  T want;
  double compile_ms = 0;

  IntegerReduce(const std::string& name, Combiner combiner, Hand hand_loop, T identity,
                T (*combine)(T, T))
      : kernel(runtime.kernel({name, {in<T>("x"), result<T>("v", combiner)}, "v = x;"})),
        hand(hand_loop),
        want(identity) {
    std::vector<T> values(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < values.size(); ++k) {
      values[k] = T(i64((k * 7919) % 97) + (std::is_same_v<T, i64> ? 1 : 0));
      want = combine(want, values[k]);
    }
    x.copy_from(values);
  }
  T run_stubjit() { return kernel.reduce<T>(domain, x); }
  T run_hand() { return hand(static_cast<const T*>(x.data()), n); }
  std::string check() {
    const auto start = std::chrono::steady_clock::now();
    const T first = run_stubjit();  // compiles the stub, outside the timing
    compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (first != want)
      return "stubjit's result " + std::to_string(first) + " is not " + std::to_string(want);
    if (run_hand() != want) return "the hand loop's result is not " + std::to_string(want);
    return {};
  }
};

template <class T>
void integer_reduce(benchmark::State& state, const std::string& name, Combiner combiner,
                    T (*hand)(const T*, i64), T identity, T (*combine)(T, T)) {
  IntegerReduce<T> reduce(name, combiner, hand, identity, combine);
  const std::string problem = reduce.check();
  if (!problem.empty()) {
    state.SkipWithError(problem.c_str());
    return;
  }
  state.SetLabel(std::to_string(reduce.n) + " values");
  using Clock = std::chrono::steady_clock;
  std::vector<double> ms[2];  // stubjit, hand
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < 2; ++place) {
      const int side = static_cast<int>((iteration + place) % 2);
      const auto start = Clock::now();
      benchmark::DoNotOptimize(side == 0 ? reduce.run_stubjit() : reduce.run_hand());
      ms[side].push_back(milliseconds(Clock::now() - start));
    }
    ++iteration;
    state.SetIterationTime(ms[0].back() / 1e3);
  }
  const double s = stubjit::bench::median(ms[0]), h = stubjit::bench::median(ms[1]);
  state.counters["stubjit_ms"] = s;
  state.counters["hand_ms"] = h;
  state.counters["hand_over_stubjit"] = h / s;
  state.counters["GBps"] = double(reduce.n) * sizeof(T) / s / 1e6;
  state.counters["first_launch_ms"] = reduce.compile_ms;
}

void BM_IntegerReduce_i8_min(benchmark::State& state) {
  integer_reduce<std::int8_t>(state, "min_i8", Combiner::min, hand_reduce_min_i8, std::int8_t(127),
                              [](std::int8_t a, std::int8_t b) { return b < a ? b : a; });
}
void BM_IntegerReduce_u16_max(benchmark::State& state) {
  integer_reduce<std::uint16_t>(state, "max_u16", Combiner::max, hand_reduce_max_u16,
                                std::uint16_t(0),
                                [](std::uint16_t a, std::uint16_t b) { return a < b ? b : a; });
}
void BM_IntegerReduce_u32_sum(benchmark::State& state) {
  integer_reduce<std::uint32_t>(
      state, "sum_u32", Combiner::sum, hand_reduce_sum_u32, std::uint32_t(0),
      [](std::uint32_t a, std::uint32_t b) { return std::uint32_t(a + b); });
}
void BM_IntegerReduce_i64_sum(benchmark::State& state) {
  integer_reduce<i64>(state, "sum_i64", Combiner::sum, hand_reduce_sum_i64, i64(0),
                      [](i64 a, i64 b) { return a + b; });
}
BENCHMARK(BM_IntegerReduce_i8_min)
    ->Name("BM_IntegerReduce/i8_min")
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_IntegerReduce_u16_max)
    ->Name("BM_IntegerReduce/u16_max")
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_IntegerReduce_u32_sum)
    ->Name("BM_IntegerReduce/u32_sum")
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_IntegerReduce_i64_sum)
    ->Name("BM_IntegerReduce/i64_sum")
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
