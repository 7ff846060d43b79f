// The host's prefix of a scan, for the scan tests (cpu/scan_test.cpp,
// cuda/gpu_scan_checks.hpp): pencil by pencil along one dimension of a row-major box,
// each from the identity, never through the library.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "stubjit/signature.hpp"

namespace stubjit::test {

// The inclusive or exclusive prefix of `values` (row-major over `counts`) along
// dimension `along`, each pencil on its own, combined with `combine` from `identity`.
template <class T, class Combine>
std::vector<T> host_scan(const std::vector<T>& values, const std::vector<std::int64_t>& counts,
                         int along, ScanKind kind, T identity, Combine combine) {
  std::vector<T> out(values.size());
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(along) + 1; d < counts.size(); ++d) inner *= counts[d];
  const std::int64_t length = counts[std::size_t(along)];
  if (length == 0 || inner == 0) return out;
  const std::int64_t outer = std::int64_t(values.size()) / (inner * length);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t r = 0; r < inner; ++r) {
      T running = identity;
      for (std::int64_t k = 0; k < length; ++k) {
        const std::size_t at = std::size_t((o * length + k) * inner + r);
        if (kind == ScanKind::exclusive) out[at] = running;
        running = combine(running, values[at]);
        if (kind == ScanKind::inclusive) out[at] = running;
      }
    }
  }
  return out;
}

// A float prefix out of bounds: its position and the host's double-precision prefix.
struct FloatPrefixOffBound {
  std::size_t k;
  double host;
};

// The first prefix k of a float sum's `n` results `got` (inclusive, over `values`)
// farther from the double-precision prefix than (k + 8) epsilon times the sum of the
// magnitudes so far: a bound on rounding that no order of combination exceeds (a loose
// one: the exact checks are the integer scans'). A NaN is never within it. None: all are.
inline std::optional<FloatPrefixOffBound> first_float_prefix_off_bound(const float* got,
                                                                       const float* values,
                                                                       std::size_t n) {
  const double eps = std::numeric_limits<float>::epsilon();
  double running = 0, magnitude = 0;
  for (std::size_t k = 0; k < n; ++k) {
    running += values[k];
    magnitude += std::abs(values[k]);
    if (!(std::abs(double(got[k]) - running) <= double(k + 8) * eps * magnitude))
      return FloatPrefixOffBound{k, running};
  }
  return std::nullopt;
}

}  // namespace stubjit::test
