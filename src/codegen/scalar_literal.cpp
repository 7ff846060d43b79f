#include "codegen/scalar_literal.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace stubjit::detail {
namespace {

template <class T>
T value_of(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);  // the low bytes (little-endian hosts)
  return value;
}

// Hexadecimal digits are exact for a double, and a float widens to a double exactly.
// Spelled here rather than by printf's "%a" (which follows the C locale, whose decimal
// point may be a comma) or std::to_chars (libstdc++ 12 writes the subnormal
// 0x0.fffffffffffffp-1022 where 13 writes 0x1.ffffffffffffep-1023): a stub's text, and
// so its cache key, must not depend on the library the host was built with. Always the
// normalized form: 0x1.<up to 13 digits, trailing zeros dropped>p<exponent>, or 0x0p+0.
std::optional<std::string> hex_float(double value, const char* suffix) {
  if (!std::isfinite(value)) return std::nullopt;
  std::uint64_t bits = 0;
  const double magnitude = std::fabs(value);
  std::memcpy(&bits, &magnitude, sizeof bits);
  constexpr std::uint64_t fraction_mask = (std::uint64_t(1) << 52) - 1;
  std::uint64_t fraction = bits & fraction_mask;
  int exponent = static_cast<int>(bits >> 52);
  std::string digits = "0";
  if (exponent == 0 && fraction == 0) {
    exponent = 0;
  } else {
    if (exponent == 0) {  // subnormal: shift the leading one into the implicit place
      exponent = -1022;
      while ((fraction & (std::uint64_t(1) << 52)) == 0) {
        fraction <<= 1;
        --exponent;
      }
      fraction &= fraction_mask;
    } else {
      exponent -= 1023;
    }
    digits = "1";
    if (fraction != 0) {
      static const char hex[] = "0123456789abcdef";
      std::string places;
      for (int shift = 48; shift >= 0; shift -= 4) places += hex[(fraction >> shift) & 0xf];
      places.erase(places.find_last_not_of('0') + 1);
      digits += "." + places;
    }
  }
  return std::string(std::signbit(value) ? "(-0x" : "(0x") + digits + "p" +
         (exponent < 0 ? "-" : "+") + std::to_string(std::abs(exponent)) + suffix + ")";
}

}  // namespace

std::optional<std::string> scalar_literal(ElementType type, std::uint64_t bits,
                                          std::uint64_t high_bits) {
  switch (type) {
    case ElementType::f32:
      return hex_float(value_of<float>(bits), "f");
    case ElementType::f64:
      return hex_float(value_of<double>(bits), "");
    case ElementType::i32: {
      const std::int32_t value = value_of<std::int32_t>(bits);
      // The minimum has no literal of its own: 2147483648 is not an int.
      if (value == INT32_MIN) return std::string("(-2147483647 - 1)");
      return "(" + std::to_string(value) + ")";
    }
    case ElementType::i64: {
      const std::int64_t value = value_of<std::int64_t>(bits);
      if (value == INT64_MIN) return std::string("(-9223372036854775807LL - 1)");
      return "(" + std::to_string(value) + "LL)";
    }
    case ElementType::u32:
      return std::to_string(value_of<std::uint32_t>(bits)) + "u";
    // The narrow integers as ints (every value of theirs is one), converted where used.
    case ElementType::i8:
      return "(" + std::to_string(value_of<std::int8_t>(bits)) + ")";
    case ElementType::u8:
      return std::to_string(value_of<std::uint8_t>(bits));
    case ElementType::i16:
      return "(" + std::to_string(value_of<std::int16_t>(bits)) + ")";
    case ElementType::u16:
      return std::to_string(value_of<std::uint16_t>(bits));
    case ElementType::u64:
      return std::to_string(value_of<std::uint64_t>(bits)) + "ULL";
    case ElementType::boolean:
      return value_of<std::uint8_t>(bits) != 0 ? "true" : "false";
    // The 16-bit floats by their bits: exact, NaN and infinities included.
    case ElementType::float16:
      return "stubjit::float16::from_bits(" + std::to_string(value_of<std::uint16_t>(bits)) + ")";
    case ElementType::bfloat16:
      return "stubjit::bfloat16::from_bits(" + std::to_string(value_of<std::uint16_t>(bits)) + ")";
    case ElementType::complex_f32: {
      const std::optional<std::string> re = hex_float(value_of<float>(bits), "f");
      const std::optional<std::string> im = hex_float(value_of<float>(bits >> 32), "f");
      if (!re || !im) return std::nullopt;
      return "stubjit::complex<float>(" + *re + ", " + *im + ")";
    }
    case ElementType::complex_f64: {
      const std::optional<std::string> re = hex_float(value_of<double>(bits), "");
      const std::optional<std::string> im = hex_float(value_of<double>(high_bits), "");
      if (!re || !im) return std::nullopt;
      return "stubjit::complex<double>(" + *re + ", " + *im + ")";
    }
  }
  return std::nullopt;
}

}  // namespace stubjit::detail
