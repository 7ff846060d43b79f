#include "codegen/scalar_literal.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace stubjit::detail {
namespace {

template <class T>
T value_of(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);  // the low bytes (little-endian hosts)
  return value;
}

// "%a" is exact for a double, and a float widens to a double exactly.
std::optional<std::string> hex_float(double value, const char* suffix) {
  if (!std::isfinite(value)) return std::nullopt;
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return "(" + std::string(text) + suffix + ")";
}

}  // namespace

std::optional<std::string> scalar_literal(ElementType type, std::uint64_t bits) {
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
  }
  return std::nullopt;
}

}  // namespace stubjit::detail
