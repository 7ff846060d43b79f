// Sorts on the CPU backend (docs/patterns.md): 2^26 floats sorted ascending in place by
// a stubjit sort kernel (sort<float>, no body), against std::sort and std::stable_sort
// (one thread) and libstdc++'s parallel mode, __gnu_parallel::sort and stable_sort
// (OpenMP multiway merge sorts, every core), all g++ -O3 -march=native -fopenmp
// (hand_loops.cpp). The parallel policy of std::sort needs TBB, which is not among the
// packages used; the parallel mode is the best parallel sort Debian's g++ ships.
//
//   BM_Sort_Alternating  the five sides in every iteration, the order rotated, each from
//                        the same unsorted copy (the copy not timed); counters
//                        stubjit_ms, std_ms, std_stable_ms, par_ms, par_stable_ms
//                        (medians), X_over_stubjit for each (above 1: stubjit faster),
//                        Mkeys_per_s (stubjit's), parts (groups per pencil),
//                        first_launch_ms (the stages' compiles)
//   BM_Sort_Stubjit      one side per benchmark
//   BM_Sort_ParallelStable
//   BM_Sort_FirstLaunch  what a sort's first launch compiles, each side in a new runtime
//                        without the disk cache, alternating: a launch over one pencil
//                        of 1000 int64 keys (one part: the runs stage alone) and
//                        Kernel::prepare over one of 40000 (two parts on any host: both
//                        stages, side by side, as a split launch compiles them; prepare
//                        runs nothing, so the side times the compiles alone); counters
//                        one_part_ms, both_stages_ms (medians) and both_over_one_part;
//                        the Time column is the one-part side's
//
// Before timing, stubjit's keys are compared with std::stable_sort's, bit for bit.
// Environment: STUBJIT_SORT_ELEMENTS (default 2^26).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "hand_loops.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using i64 = std::int64_t;

i64 elements() {
  const char* text = std::getenv("STUBJIT_SORT_ELEMENTS");
  const i64 value = text ? std::atoll(text) : 0;
  return value > 0 ? value : i64(1) << 26;
}

RuntimeOptions cpu() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

constexpr int sides = 5;
const char* const side_names[sides] = {"stubjit", "std", "std_stable", "par", "par_stable"};

struct Sort {
  i64 n = elements();
  Runtime runtime{cpu()};
  Kernel kernel = runtime.kernel({"sort_floats", {sort<float>("x")}, ""});
  Field x = runtime.allocate<float>({n});
  std::vector<float> values = std::vector<float>(static_cast<std::size_t>(n));
  std::vector<float> hand = std::vector<float>(static_cast<std::size_t>(n));
  Domain domain{n};
  LaunchSummary summary;
  double compile_ms = 0;

  Sort() {
    // Uniform floats in [0, 1) (ties among 2^26 of them too).
    std::mt19937 rng(26);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& v : values) v = uniform(rng);
  }
  float* field() { return static_cast<float*>(x.data()); }
  // Each side from the same unsorted keys: the copy, then the timed sort.
  void reset(int side) {
    std::memcpy(side == 0 ? field() : hand.data(), values.data(), values.size() * sizeof(float));
  }
  void run(int side) {
    switch (side) {
      case 0:
        kernel.launch(domain, x);
        break;
      case 1:
        hand_sort_std(hand.data(), n);
        break;
      case 2:
        hand_stable_sort_std(hand.data(), n);
        break;
      case 3:
        hand_sort_parallel(hand.data(), n);
        break;
      default:
        hand_stable_sort_parallel(hand.data(), n);
        break;
    }
  }
  // Empty when stubjit's keys are std::stable_sort's, else what is wrong.
  std::string check() {
    reset(0);
    const auto start = std::chrono::steady_clock::now();
    summary = kernel.launch(domain, x);  // compiles the stages, outside the timing
    compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    reset(2);
    run(2);
    if (std::memcmp(field(), hand.data(), hand.size() * sizeof(float)) != 0)
      return "stubjit's keys are not std::stable_sort's";
    return {};
  }
};

std::unique_ptr<Sort> prepared(benchmark::State& state) {
  auto sort = std::make_unique<Sort>();
  const std::string problem = sort->check();
  if (!problem.empty()) {
    state.SkipWithError(problem.c_str());
    return nullptr;
  }
  state.SetLabel(std::to_string(sort->n) + " floats");
  return sort;
}

using stubjit::bench::milliseconds;

void BM_Sort_Alternating(benchmark::State& state) {
  const std::unique_ptr<Sort> sort = prepared(state);
  if (!sort) return;
  using Clock = std::chrono::steady_clock;
  std::vector<double> ms[sides];
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < sides; ++place) {
      const int side = static_cast<int>((iteration + place) % sides);
      sort->reset(side);
      const auto start = Clock::now();
      sort->run(side);
      ms[side].push_back(milliseconds(Clock::now() - start));
    }
    ++iteration;
    state.SetIterationTime(ms[0].back() / 1e3);
  }
  const double s = stubjit::bench::median(ms[0]);
  state.counters["stubjit_ms"] = s;
  for (int side = 1; side < sides; ++side) {
    const double m = stubjit::bench::median(ms[side]);
    state.counters[std::string(side_names[side]) + "_ms"] = m;
    state.counters[std::string(side_names[side]) + "_over_stubjit"] = m / s;
  }
  state.counters["Mkeys_per_s"] = double(sort->n) / s / 1e3;
  state.counters["parts"] = sort->summary.reduce_parts;
  state.counters["first_launch_ms"] = sort->compile_ms;
}
BENCHMARK(BM_Sort_Alternating)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);

void run_side(benchmark::State& state, int side) {
  const std::unique_ptr<Sort> sort = prepared(state);
  if (!sort) return;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    sort->reset(side);
    const auto start = Clock::now();
    sort->run(side);
    state.SetIterationTime(milliseconds(Clock::now() - start) / 1e3);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * sort->n);
}

void BM_Sort_Stubjit(benchmark::State& state) { run_side(state, 0); }
BENCHMARK(BM_Sort_Stubjit)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_Sort_ParallelStable(benchmark::State& state) { run_side(state, 4); }
BENCHMARK(BM_Sort_ParallelStable)->Unit(benchmark::kMillisecond)->UseManualTime();

// One side of BM_Sort_FirstLaunch in a runtime of its own; false if the compiles were
// not the side's, or the keys not what it leaves (sorted by the launch, untouched by
// prepare).
bool first_launch(bool one_part, double& ms) {
  RuntimeOptions options = cpu();
  options.disk_cache = false;
  Runtime runtime(options);
  Kernel kernel = runtime.kernel({"sort_first_launch", {sort<i64>("x")}, ""});
  const i64 n = one_part ? 1000 : 40000;
  Field x = runtime.allocate<i64>({n});
  std::vector<i64> keys(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) keys[std::size_t(k)] = (k * 7919) % n;
  x.copy_from(keys);
  const auto start = std::chrono::steady_clock::now();
  if (one_part)
    kernel.launch(Domain{n}, x);
  else
    kernel.prepare(Domain{n}, x);
  ms = milliseconds(std::chrono::steady_clock::now() - start);
  if (runtime.counters().compiles != (one_part ? 1u : 2u)) return false;
  const std::vector<i64> got = x.to_vector<i64>();
  for (i64 k = 0; k < n; ++k)
    if (got[std::size_t(k)] != (one_part ? k : keys[std::size_t(k)])) return false;
  return true;
}

void BM_Sort_FirstLaunch(benchmark::State& state) {
  stubjit::bench::time_first_launches(state, first_launch);
}
BENCHMARK(BM_Sort_FirstLaunch)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(7);

}  // namespace

BENCHMARK_MAIN();
