// stubjit device-side prelude: the 16-bit floating-point element types, float16
// (IEEE 754 binary16) and bfloat16, one definition for every backend.
//
// Storage types, as __fp16 is: arithmetic converts to float (an implicit conversion,
// so `h * 2.0f + x` is float arithmetic) and a float converts back rounded to nearest
// even. CUDA's __half is not used: NVRTC finds cuda_fp16.h only on the toolkit's
// include path, and there `__half + float` is ambiguous, so a body written for the
// other backends would not compile. Conversions use the hardware where a compiler
// offers it (PTX cvt under NVRTC, _Float16 on AMD GPUs, F16C on x86 hosts) and exact
// integer arithmetic elsewhere; both round to nearest even, and only NaN payloads
// may differ (PTX gives its canonical NaN). Defining STUBJIT_SOFTWARE_HALF selects
// the integer arithmetic everywhere (the tests' GPU emulator does).
//
// Included in a stub only when its user code or its own code names it
// (src/codegen/prelude.cpp).
#ifndef STUBJIT_HALF_H
#define STUBJIT_HALF_H

#include "stubjit/config.h"

namespace stubjit {

// A float's bits and back: NVRTC has no __builtin_bit_cast.
#if defined(__CUDACC_RTC__)
STUBJIT_HD u32 bits_of_float(float value) { return __float_as_uint(value); }
STUBJIT_HD float float_of_bits(u32 bits) { return __uint_as_float(bits); }
#else
STUBJIT_HD u32 bits_of_float(float value) { return __builtin_bit_cast(u32, value); }
STUBJIT_HD float float_of_bits(u32 bits) { return __builtin_bit_cast(float, bits); }
#endif

// binary16 from a float, rounded to nearest even, in integer arithmetic.
STUBJIT_HD u16 float16_bits_by_arithmetic(float value) {
  const u32 x = bits_of_float(value);
  const u32 sign = (x >> 16) & 0x8000u;
  const u32 magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: quiet, with the payload's leading bits
    return u16(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) return u16(sign | 0x7c00u);  // 65520 and up round to infinity
  if (magnitude >= 0x38800000u) {                               // a normal binary16
    // Rebias the exponent (127 to 15) and round the 13 dropped bits: adding
    // 0xfff plus the kept part's lowest bit carries exactly when the dropped bits
    // are above half, or at half with an odd kept part.
    const u32 rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return u16(sign | ((rounded - 0x38000000u) >> 13));
  }
  // A subnormal binary16 (or zero): the value in units of 2^-24, rounded to nearest
  // even. The significand with its leading bit is m * 2^(e - 150); in units of
  // 2^-24 that is m >> (126 - e).
  const u32 exponent = magnitude >> 23;
  if (exponent < 102) return u16(sign);  // below 2^-25: rounds to zero
  const u32 significand = (magnitude & 0x7fffffu) | 0x800000u;
  const u32 shift = 126u - exponent;  // 14 to 24
  const u32 kept = significand >> shift;
  const u32 dropped = significand & ((1u << shift) - 1u);
  const u32 half = 1u << (shift - 1u);
  const u32 up = (dropped > half || (dropped == half && (kept & 1u))) ? 1u : 0u;
  return u16(sign | (kept + up));  // a carry into 0x400 is the smallest normal, rightly
}

// The float a binary16 holds (every one is exact in a float).
STUBJIT_HD float float16_value_by_arithmetic(u16 bits) {
  const u32 sign = u32(bits & 0x8000u) << 16;
  const u32 exponent = (bits >> 10) & 0x1fu;
  const u32 fraction = bits & 0x3ffu;
  if (exponent == 0x1fu) return float_of_bits(sign | 0x7f800000u | (fraction << 13));
  if (exponent != 0) return float_of_bits(sign | ((exponent + 112u) << 23) | (fraction << 13));
  // Zero or subnormal: fraction * 2^-24, exact in a float.
  const float magnitude = float(fraction) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

#if !defined(STUBJIT_SOFTWARE_HALF) && defined(__CUDA_ARCH__)
STUBJIT_HD u16 float16_bits(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}
STUBJIT_HD float float16_value(u16 bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}
#elif !defined(STUBJIT_SOFTWARE_HALF) && defined(STUBJIT_DEVICE_COMPILER) && defined(__FLT16_MAX__)
STUBJIT_HD u16 float16_bits(float value) { return __builtin_bit_cast(u16, static_cast<_Float16>(value)); }
STUBJIT_HD float float16_value(u16 bits) { return float(__builtin_bit_cast(_Float16, bits)); }
#elif !defined(STUBJIT_SOFTWARE_HALF) && defined(__F16C__) && defined(__clang__)
// Clang keeps __fp16 as a storage type on x86 and converts with F16C's vcvtps2ph
// and vcvtph2ps (rounding to nearest even) when the target has them.
STUBJIT_HD u16 float16_bits(float value) { return __builtin_bit_cast(u16, static_cast<__fp16>(value)); }
STUBJIT_HD float float16_value(u16 bits) { return float(__builtin_bit_cast(__fp16, bits)); }
#else
STUBJIT_HD u16 float16_bits(float value) { return float16_bits_by_arithmetic(value); }
STUBJIT_HD float float16_value(u16 bits) { return float16_value_by_arithmetic(bits); }
#endif

// bfloat16 is a float's upper half: rounding is one add, in integer arithmetic on
// every backend.
STUBJIT_HD u16 bfloat16_bits(float value) {
  const u32 x = bits_of_float(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return u16((x >> 16) | 0x40u);  // NaN, quiet
  return u16((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);  // may carry up to infinity
}
STUBJIT_HD float bfloat16_value(u16 bits) { return float_of_bits(u32(bits) << 16); }

// The conversions of each 16-bit format, for small_float.
struct float16_format {
  STUBJIT_HD static u16 bits_of(float value) { return float16_bits(value); }
  STUBJIT_HD static float value_of(u16 bits) { return float16_value(bits); }
};
struct bfloat16_format {
  STUBJIT_HD static u16 bits_of(float value) { return bfloat16_bits(value); }
  STUBJIT_HD static float value_of(u16 bits) { return bfloat16_value(bits); }
};

// The element types. Trivial, as float is: `float16 h;` is uninitialized, and
// `float16 h{};` is +0.
// Like CUDA's __half, a conditional mixing one with a float needs a cast:
// `c ? float(h) : 0.0f` (both types convert to the other).
template <class Format>
struct small_float {
  u16 storage;  // the code; bits() reads it, as on the host
  small_float() = default;
  STUBJIT_HD small_float(float value) : storage(Format::bits_of(value)) {}
  // From the other 16-bit format, through float (exact), then rounded.
  template <class Other>
  STUBJIT_HD small_float(small_float<Other> value) : small_float(float(value)) {}
  STUBJIT_HD operator float() const { return Format::value_of(storage); }
  STUBJIT_HD u16 bits() const { return storage; }
  STUBJIT_HD static small_float from_bits(u16 b) {
    small_float h;
    h.storage = b;
    return h;
  }
  template <class T>
  STUBJIT_HD small_float& operator+=(T other) {
    return *this = small_float(float(*this) + other);
  }
  template <class T>
  STUBJIT_HD small_float& operator-=(T other) {
    return *this = small_float(float(*this) - other);
  }
  template <class T>
  STUBJIT_HD small_float& operator*=(T other) {
    return *this = small_float(float(*this) * other);
  }
  template <class T>
  STUBJIT_HD small_float& operator/=(T other) {
    return *this = small_float(float(*this) / other);
  }
};

typedef small_float<float16_format> float16;
typedef small_float<bfloat16_format> bfloat16;

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit storage types");

}  // namespace stubjit

#endif  // STUBJIT_HALF_H
