// Small helpers the benchmark programs share.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace stubjit::bench {

// Runs both timed sides once, alternating which goes first with each iteration, so that
// drift of a shared machine reaches both alike; appends each side's milliseconds.
template <class Index, class First, class Second>
void time_both_alternating(Index iteration, First&& first, std::vector<double>& first_ms,
                           Second&& second, std::vector<double>& second_ms) {
  if (iteration % 2 == 0) {
    first_ms.push_back(first());
    second_ms.push_back(second());
  } else {
    second_ms.push_back(second());
    first_ms.push_back(first());
  }
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

inline double milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// BM_Sort_FirstLaunch, BM_Scan_FirstLaunch: `side(one_part, ms)` runs one side in a
// runtime of its own and sets its milliseconds, false where it compiled the wrong
// stages or left the wrong values. Two one-part sides run untimed first, at once: they
// start two compile workers, which load the compiler plugin, so that two are ready for
// the timed sides, as in a process that has compiled two stubs at once (a process's
// first compiles are timed whole by bench/two_stage_process.py). Then the sides
// alternate; counters one_part_ms, both_stages_ms (medians) and both_over_one_part,
// and the Time column is the one-part side's.
template <class Side>
void time_first_launches(benchmark::State& state, Side&& side) {
  double ms = 0, beside_ms = 0;
  bool beside_ok = false;
  std::thread beside([&] { beside_ok = side(true, beside_ms); });
  const bool ok = side(true, ms);
  beside.join();
  if (!ok || !beside_ok) {
    state.SkipWithError("a side compiled the wrong stages or left the wrong values");
    return;
  }
  std::vector<double> one_part, both;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < 2; ++place) {
      const bool side_one_part = (iteration + place) % 2 == 0;
      if (!side(side_one_part, ms)) {
        state.SkipWithError("a side compiled the wrong stages or left the wrong values");
        return;
      }
      (side_one_part ? one_part : both).push_back(ms);
    }
    ++iteration;
    state.SetIterationTime(one_part.back() / 1e3);
  }
  state.counters["one_part_ms"] = median(one_part);
  state.counters["both_stages_ms"] = median(both);
  state.counters["both_over_one_part"] = median(both) / median(one_part);
}

}  // namespace stubjit::bench
