// Reference binary16 and bfloat16 rounding for the tests, independent of the
// library's conversions: a code's value from its fields with std::ldexp, and a real
// number's nearest code by binary search over the (ordered) positive codes, ties to
// the even code, past the largest finite value by the same rule to infinity.
#pragma once

#include <cmath>
#include <cstdint>

namespace stubjit::test {

struct SmallFloatFormat {
  int fraction_bits;       // 10 (binary16) or 7 (bfloat16)
  int exponent_bits;       // 5 or 8
  int exponent_bias;       // 15 or 127
  std::uint16_t sign;      // 0x8000
  std::uint16_t infinity;  // the positive infinity's code
};

inline constexpr SmallFloatFormat binary16_format{10, 5, 15, 0x8000, 0x7c00};
inline constexpr SmallFloatFormat bfloat16_format{7, 8, 127, 0x8000, 0x7f80};

// The value of a code: NaN for every NaN code.
inline double value_of_code(const SmallFloatFormat& f, std::uint16_t code) {
  const int exponent = (code >> f.fraction_bits) & ((1 << f.exponent_bits) - 1);
  const int fraction = code & ((1 << f.fraction_bits) - 1);
  const double sign = (code & f.sign) ? -1.0 : 1.0;
  if (exponent == (1 << f.exponent_bits) - 1) return fraction ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(fraction, 1 - f.exponent_bias - f.fraction_bits);
  return sign * std::ldexp(fraction + (1 << f.fraction_bits),
                           exponent - f.exponent_bias - f.fraction_bits);
}

// The code nearest to `value` (not NaN), ties to the even code.
inline std::uint16_t nearest_code(const SmallFloatFormat& f, double value) {
  const std::uint16_t sign = std::signbit(value) ? f.sign : 0;
  const double magnitude = std::fabs(value);
  const std::uint16_t largest = static_cast<std::uint16_t>(f.infinity - 1);
  // The largest code whose value is at most `magnitude`.
  std::uint16_t low = 0;
  std::uint16_t high = f.infinity;  // treated as just past `largest`
  while (high - low > 1) {
    const auto mid = static_cast<std::uint16_t>((low + high) / 2);
    if (value_of_code(f, mid) <= magnitude)
      low = mid;
    else
      high = mid;
  }
  const double below = value_of_code(f, low);
  if (below == magnitude) return static_cast<std::uint16_t>(sign | low);
  // The next code up; past the largest finite one, the value one step of its
  // exponent further (which rounds to infinity).
  const double above = low == largest
                           ? below + (value_of_code(f, largest) - value_of_code(f, largest - 1))
                           : value_of_code(f, static_cast<std::uint16_t>(low + 1));
  const auto next = static_cast<std::uint16_t>(low + 1);  // infinity's code after `largest`
  const double to_below = magnitude - below;
  const double to_above = above - magnitude;
  std::uint16_t chosen;
  if (to_below < to_above)
    chosen = low;
  else if (to_above < to_below)
    chosen = next;
  else
    chosen = (low & 1) ? next : low;
  if (magnitude >= above && low == largest) chosen = f.infinity;
  return static_cast<std::uint16_t>(sign | chosen);
}

}  // namespace stubjit::test
