// Small helpers the benchmark programs share.
#pragma once

#include <algorithm>
#include <chrono>
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

}  // namespace stubjit::bench
