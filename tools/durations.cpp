#include "durations.hpp"

#include <cctype>
#include <limits>

namespace stubjit::tool {

std::optional<std::int64_t> parse_duration_seconds(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const std::int64_t number = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  std::int64_t scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1;
  } else if (unit == "m") {
    scale = 60;
  } else if (unit == "h") {
    scale = 3600;
  } else if (unit == "d") {
    scale = 86400;
  } else if (unit == "w") {
    scale = 7 * 86400;
  } else {
    return std::nullopt;
  }
  return number * scale;  // at most 12 digits times a week: no overflow
}

}  // namespace stubjit::tool
