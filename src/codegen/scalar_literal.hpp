// A specialized scalar's value as a C++ literal that every dialect's compiler reads
// back to the same bits: integers in decimal, floating-point values as hexadecimal
// literals (exact, no rounding), whatever the process's locale. Infinities and NaNs have no
// literal: nullopt, and the stub reads such a value from its arguments instead (the same result,
// unfolded).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "stubjit/types.hpp"

namespace stubjit::detail {

// `bits`: the value as Arg::bits() holds it (in its low size_of(type) bytes).
std::optional<std::string> scalar_literal(ElementType type, std::uint64_t bits);

}  // namespace stubjit::detail
