// The host's 16-bit floating-point element types: IEEE 754 binary16 (float16) and
// bfloat16, as small storage types. Arithmetic converts to float (implicitly, as the
// kernels' own float16 and bfloat16 do) and a float converts back, rounded to nearest
// even: `float16 h = 1.5f; float f = h * 2.0f;`. The conversions are the library's and
// are exact where a value is representable; NaN stays NaN, too-large values become
// infinities. Where the host compiler has _Float16 (GCC 12 on x86-64 does), a
// _Float16 maps to ElementType::float16 as well (types.hpp).
#pragma once

#include <cstdint>

#include "stubjit/export.hpp"

// Whether the host compiler has a C++ _Float16: Clang defines __FLT16_MAX__ only where
// it has; GCC defined it before 13 on targets where _Float16 was C-only (aarch64), and
// has the C++ type from 12 on x86-64 and from 13 elsewhere.
#if defined(__FLT16_MAX__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 13) || \
                               (defined(__GNUC__) && __GNUC__ >= 12 && defined(__x86_64__)))
#define STUBJIT_HOST_HAS_FLOAT16 1
#else
#define STUBJIT_HOST_HAS_FLOAT16 0
#endif

namespace stubjit {

namespace detail {
STUBJIT_API std::uint16_t float16_bits_of(float value) noexcept;
STUBJIT_API float float_of_float16_bits(std::uint16_t bits) noexcept;
STUBJIT_API std::uint16_t bfloat16_bits_of(float value) noexcept;
STUBJIT_API float float_of_bfloat16_bits(std::uint16_t bits) noexcept;

struct float16_format {
  static std::uint16_t bits_of(float value) noexcept { return float16_bits_of(value); }
  static float value_of(std::uint16_t bits) noexcept { return float_of_float16_bits(bits); }
};
struct bfloat16_format {
  static std::uint16_t bits_of(float value) noexcept { return bfloat16_bits_of(value); }
  static float value_of(std::uint16_t bits) noexcept { return float_of_bfloat16_bits(bits); }
};

// A 16-bit float of one format (float16 and bfloat16 below).
template <class Format>
class small_float {
 public:
  small_float() = default;  // uninitialized, as a float is; small_float{} is zero
  small_float(float value) noexcept : bits_(Format::bits_of(value)) {}  // NOLINT: implicit
  // From the other 16-bit format, through float (exact), then rounded.
  template <class Other>
  small_float(small_float<Other> value) noexcept  // NOLINT: implicit
      : small_float(static_cast<float>(value)) {}
  operator float() const noexcept { return Format::value_of(bits_); }  // NOLINT
  static small_float from_bits(std::uint16_t bits) noexcept {
    small_float value;
    value.bits_ = bits;
    return value;
  }
  std::uint16_t bits() const noexcept { return bits_; }

 private:
  std::uint16_t bits_;
};
}  // namespace detail

using float16 = detail::small_float<detail::float16_format>;
// The upper half of a float: its sign, its 8-bit exponent and 7 bits of its fraction.
using bfloat16 = detail::small_float<detail::bfloat16_format>;

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit storage types");

}  // namespace stubjit
