// The host's float16 and bfloat16 conversions (include/stubjit/half.hpp) are the
// kernels' own (kernels/stubjit/half.h): one definition of the rounding for host and
// device. That header defines stubjit::float16 as well, so this file declares the
// functions itself rather than including the public header, whose float16 is
// another type of the same name.
#include <cstdint>

#include "stubjit/export.hpp"
#include "stubjit/half.h"

namespace stubjit::detail {

STUBJIT_API std::uint16_t float16_bits_of(float value) noexcept;
STUBJIT_API float float_of_float16_bits(std::uint16_t bits) noexcept;
STUBJIT_API std::uint16_t bfloat16_bits_of(float value) noexcept;
STUBJIT_API float float_of_bfloat16_bits(std::uint16_t bits) noexcept;

std::uint16_t float16_bits_of(float value) noexcept { return float16_bits(value); }
float float_of_float16_bits(std::uint16_t bits) noexcept { return float16_value(bits); }
std::uint16_t bfloat16_bits_of(float value) noexcept { return bfloat16_bits(value); }
float float_of_bfloat16_bits(std::uint16_t bits) noexcept { return bfloat16_value(bits); }

}  // namespace stubjit::detail
