// Small helpers the benchmark programs share.
#pragma once

#include <algorithm>
#include <vector>

namespace stubjit::bench {

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace stubjit::bench
