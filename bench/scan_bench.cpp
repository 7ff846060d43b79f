// Scans on the CPU backend (docs/patterns.md): the inclusive prefix sum of 2^28 floats
// by a stubjit scan kernel (`y = x;`, Combiner::sum, x into y), against
// std::inclusive_scan (one thread) and a two-pass OpenMP scan, both g++ -O3
// -march=native -fopenmp (hand_loops.cpp).
//
//   BM_Scan_Alternating  the three sides in every iteration, the order rotated;
//                        counters stubjit_ms, std_ms, omp_ms (medians), std_over_stubjit
//                        and omp_over_stubjit (above 1: stubjit faster), GBps (stubjit's
//                        bytes read and written per second), parts (groups per
//                        pencil), first_launch_ms (both stages' compiles)
//   BM_Scan_Stubjit      one side per benchmark, for
//   BM_Scan_Std          --benchmark_enable_random_interleaving
//   BM_Scan_Omp
//
// Before timing, stubjit's prefixes are compared with a second run of its own (bit for
// bit) and, every 4099th, with a double-precision host prefix: each side's largest
// relative error is a counter (stubjit_error, std_error, omp_error), stubjit's must be
// below 1e-2. Environment: STUBJIT_SCAN_ELEMENTS (default 2^28).
//
//   BM_ScanIntegers<T>   the same three sides for sums of int8 or uint32 (below)
//   BM_Scan_FirstLaunch  what a scan's first launch compiles, each side in a new runtime
//                        without the disk cache, alternating: a launch over one pencil
//                        of 1000 int64 values (one part: the scan stage alone) and
//                        Kernel::prepare over one of 2^22 (parts on any host: the
//                        partials stage too, side by side, as a split launch compiles
//                        them; prepare runs nothing, so the side times the compiles
//                        alone); counters one_part_ms, both_stages_ms (medians) and
//                        both_over_one_part; the Time column is the one-part side's
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "hand_loops.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using i64 = std::int64_t;

i64 elements() {
  const char* text = std::getenv("STUBJIT_SCAN_ELEMENTS");
  const i64 value = text ? std::atoll(text) : 0;
  return value > 0 ? value : i64(1) << 28;
}

RuntimeOptions cpu() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

struct Scan {
  i64 n = elements();
  Runtime runtime{cpu()};
  Kernel kernel =
      runtime.kernel({"prefix", {in<float>("x"), scan<float>("y", Combiner::sum)}, "y = x;"});
  Field x = runtime.allocate<float>({n});
  Field y = runtime.allocate<float>({n});
  std::vector<float> hand_out = std::vector<float>(static_cast<std::size_t>(n));
  Domain domain{n};
  LaunchSummary summary;
  double compile_ms = 0;
  double stubjit_error = 0, std_error = 0, omp_error = 0;  // the largest relative errors

  Scan() {
    std::vector<float> values(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = float(k % 1000) * 0.001f;
    x.copy_from(values);
  }
  const float* input() const { return static_cast<const float*>(x.data()); }
  void run_stubjit() { kernel.launch(domain, x, y); }
  void run_std() { hand_scan_sum_std(input(), hand_out.data(), n); }
  void run_omp() { hand_scan_sum_omp(input(), hand_out.data(), n); }
  // Empty when the prefixes are right, else what is wrong. A float running sum of 2^28
  // values rounds far from the exact one (each side differently, none of them exact):
  // each side's largest relative error over the sampled prefixes is kept for the
  // record, and stubjit's must be below 1e-2, which a part's carry lost or doubled
  // exceeds.
  std::string check() {
    const auto start = std::chrono::steady_clock::now();
    summary = kernel.launch(domain, x, y);  // compiles the stages, outside the timing
    compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<float> first = y.to_vector<float>();
    run_stubjit();
    const std::vector<float> second = y.to_vector<float>();
    if (std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) != 0)
      return "two stubjit scans differ";
    run_std();
    const std::vector<float> by_std = hand_out;
    run_omp();
    double want = 0;
    for (i64 k = 0; k < n; ++k) {
      want += double(k % 1000) * double(0.001f);
      if ((k % 4099 == 0 || k == n - 1) && want > 0) {
        const std::size_t at = static_cast<std::size_t>(k);
        stubjit_error = std::max(stubjit_error, std::fabs(double(first[at]) - want) / want);
        std_error = std::max(std_error, std::fabs(double(by_std[at]) - want) / want);
        omp_error = std::max(omp_error, std::fabs(double(hand_out[at]) - want) / want);
      }
    }
    if (stubjit_error > 1e-2) {
      return "stubjit's prefixes are off by " + std::to_string(stubjit_error) + " (relative)";
    }
    return {};
  }
};

std::unique_ptr<Scan> prepared(benchmark::State& state) {
  auto scan = std::make_unique<Scan>();
  const std::string problem = scan->check();
  if (!problem.empty()) {
    state.SkipWithError(problem.c_str());
    return nullptr;
  }
  state.SetLabel(std::to_string(scan->n) + " floats");
  return scan;
}

using stubjit::bench::milliseconds;

// The three sides (stubjit, std, omp) timed once each in every iteration, the order
// rotated, so that drift of a shared machine reaches all three alike; the manual time
// is stubjit's. Sets the counters stubjit_ms, std_ms, omp_ms (medians),
// std_over_stubjit, omp_over_stubjit and GBps (stubjit's, for `bytes` read and written).
template <class Stubjit, class Std, class Omp>
void time_three_sides(benchmark::State& state, double bytes, Stubjit&& stubjit, Std&& std_side,
                      Omp&& omp) {
  using Clock = std::chrono::steady_clock;
  const auto time = [](auto&& run) {
    const auto start = Clock::now();
    run();
    return milliseconds(Clock::now() - start);
  };
  std::vector<double> ms[3];  // stubjit, std, omp
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < 3; ++place) {
      const int side = static_cast<int>((iteration + place) % 3);
      ms[side].push_back(side == 0 ? time(stubjit) : side == 1 ? time(std_side) : time(omp));
    }
    ++iteration;
    state.SetIterationTime(ms[0].back() / 1e3);
  }
  const double s = stubjit::bench::median(ms[0]), d = stubjit::bench::median(ms[1]),
               o = stubjit::bench::median(ms[2]);
  state.counters["stubjit_ms"] = s;
  state.counters["std_ms"] = d;
  state.counters["omp_ms"] = o;
  state.counters["std_over_stubjit"] = d / s;
  state.counters["omp_over_stubjit"] = o / s;
  state.counters["GBps"] = bytes / s / 1e6;
}

void BM_Scan_Alternating(benchmark::State& state) {
  const std::unique_ptr<Scan> scan = prepared(state);
  if (!scan) return;
  time_three_sides(
      state, double(scan->n) * 2 * sizeof(float), [&] { scan->run_stubjit(); },
      [&] { scan->run_std(); }, [&] { scan->run_omp(); });
  state.counters["parts"] = scan->summary.reduce_parts;
  state.counters["first_launch_ms"] = scan->compile_ms;
  state.counters["stubjit_error"] = scan->stubjit_error;
  state.counters["std_error"] = scan->std_error;
  state.counters["omp_error"] = scan->omp_error;
}
BENCHMARK(BM_Scan_Alternating)->Unit(benchmark::kMillisecond)->UseManualTime();

void BM_Scan_Stubjit(benchmark::State& state) {
  const std::unique_ptr<Scan> scan = prepared(state);
  if (!scan) return;
  for (auto _ : state) scan->run_stubjit();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * scan->n * 8);
}
BENCHMARK(BM_Scan_Stubjit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Scan_Std(benchmark::State& state) {
  const std::unique_ptr<Scan> scan = prepared(state);
  if (!scan) return;
  for (auto _ : state) scan->run_std();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * scan->n * 8);
}
BENCHMARK(BM_Scan_Std)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Scan_Omp(benchmark::State& state) {
  const std::unique_ptr<Scan> scan = prepared(state);
  if (!scan) return;
  for (auto _ : state) scan->run_omp();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * scan->n * 8);
}
BENCHMARK(BM_Scan_Omp)->Unit(benchmark::kMillisecond)->UseRealTime();

// Integer sums, where a scan is not bound by memory traffic the way 2^28 floats are:
// 2^26 elements (STUBJIT_SCAN_INT_ELEMENTS) of int8 or uint32, wrapping, values
// `k % 7`, the three sides alternating as above. Before timing, stubjit's prefixes are
// compared with std::inclusive_scan's, every element.
template <class T>
void BM_ScanIntegers(benchmark::State& state) {
  const char* text = std::getenv("STUBJIT_SCAN_INT_ELEMENTS");
  const i64 n = text && std::atoll(text) > 0 ? std::atoll(text) : i64(1) << 26;
  Runtime runtime{cpu()};
  Kernel kernel =
      runtime.kernel({"prefix_int", {in<T>("x"), scan<T>("y", Combiner::sum)}, "y = x;"});
  Field x = runtime.allocate<T>({n});
  Field y = runtime.allocate<T>({n});
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = T(k % 7);
  x.copy_from(values);
  std::vector<T> hand(values.size());
  const T* input = static_cast<const T*>(x.data());
  kernel.launch(Domain{n}, x, y);  // compiles the stages, outside the timing
  hand_scan_sum_std(input, hand.data(), n);
  if (y.to_vector<T>() != hand) {
    state.SkipWithError("stubjit's prefixes differ from std::inclusive_scan's");
    return;
  }
  std::vector<T> by_omp(values.size());
  hand_scan_sum_omp(input, by_omp.data(), n);
  if (by_omp != hand) {
    state.SkipWithError("the OpenMP scan's prefixes differ from std::inclusive_scan's");
    return;
  }
  time_three_sides(
      state, double(n) * 2 * sizeof(T), [&] { kernel.launch(Domain{n}, x, y); },
      [&] { hand_scan_sum_std(input, hand.data(), n); },
      [&] { hand_scan_sum_omp(input, hand.data(), n); });
  state.SetLabel(std::to_string(n) + " elements");
}
BENCHMARK_TEMPLATE(BM_ScanIntegers, std::int8_t)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK_TEMPLATE(BM_ScanIntegers, std::uint32_t)->Unit(benchmark::kMillisecond)->UseManualTime();

// One side of BM_Scan_FirstLaunch in a runtime of its own; false if the compiles were
// not the side's, or the prefixes not what it leaves (1, 2, ..., n from a launch over
// ones; untouched zeros from prepare).
bool first_launch(bool one_part, double& ms) {
  RuntimeOptions options = cpu();
  options.disk_cache = false;
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(
      {"scan_first_launch", {in<i64>("x"), scan<i64>("y", Combiner::sum)}, "y = x;"});
  const i64 n = one_part ? 1000 : i64(1) << 22;
  Field x = runtime.allocate<i64>({n});
  Field y = runtime.allocate<i64>({n});
  x.copy_from(std::vector<i64>(static_cast<std::size_t>(n), 1));
  y.copy_from(std::vector<i64>(static_cast<std::size_t>(n), 0));
  const auto start = std::chrono::steady_clock::now();
  if (one_part)
    kernel.launch(Domain{n}, x, y);
  else
    kernel.prepare(Domain{n}, x, y);
  ms = stubjit::bench::milliseconds(std::chrono::steady_clock::now() - start);
  if (runtime.counters().compiles != (one_part ? 1u : 2u)) return false;
  const std::vector<i64> got = y.to_vector<i64>();
  for (i64 k = 0; k < n; ++k)
    if (got[std::size_t(k)] != (one_part ? k + 1 : 0)) return false;
  return true;
}

void BM_Scan_FirstLaunch(benchmark::State& state) {
  stubjit::bench::time_first_launches(state, first_launch);
}
BENCHMARK(BM_Scan_FirstLaunch)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(7);

}  // namespace

BENCHMARK_MAIN();
