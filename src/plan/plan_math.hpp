// Overflow-safe unsigned arithmetic for planning domains beyond 2^32.
#pragma once

#include <cstdint>
#include <limits>

namespace stubjit::detail {

inline std::uint64_t div_ceil(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// a*b, or UINT64_MAX when the product does not fit.
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

}  // namespace stubjit::detail
