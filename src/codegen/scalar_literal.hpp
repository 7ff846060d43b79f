// A specialized scalar's value as a C++ literal that every dialect's compiler reads
// back to the same bits: integers in decimal, floating-point values as hexadecimal
// literals (exact, no rounding), whatever the process's locale; float16 and bfloat16 by
// their bits. Infinities and NaNs in a float, double or complex have no literal: nullopt,
// and the stub reads such a value from its arguments instead (the same result, unfolded).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "stubjit/types.hpp"

namespace stubjit::detail {

// `bits`: the value as Arg::bits() holds it (in its low min(size_of(type), 8) bytes);
// `high_bits`: a complex<double>'s imaginary part (Arg::high_bits()).
std::optional<std::string> scalar_literal(ElementType type, std::uint64_t bits,
                                          std::uint64_t high_bits = 0);

}  // namespace stubjit::detail
