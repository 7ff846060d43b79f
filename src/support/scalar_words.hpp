// A scalar argument's value as the launch carries it: 8-byte words, one per scalar
// but for a complex<double>, which takes two (Arg::bits, then Arg::high_bits). The
// values of specialized scalars are kept as such words (in the launch's bound
// arguments, its memo and the stub identity), so their arrays hold two per parameter.
#pragma once

#include <cstddef>

#include "stubjit/signature.hpp"
#include "stubjit/types.hpp"

namespace stubjit::detail {

inline constexpr std::size_t max_specialized_words = 2 * max_specialized_parameters;

inline std::size_t scalar_words(ElementType type) noexcept {
  return type == ElementType::complex_f64 ? 2 : 1;
}

}  // namespace stubjit::detail
