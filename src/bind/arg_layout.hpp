// The packed argument block: one 8-byte-aligned slot per non-index parameter, in
// signature order: a scalar's value in the low bytes of 8 (16 for a complex<double>:
// real part, imaginary part), or a field's data pointer,
// then its extents and strides in elements (8 bytes each). Its layout is the host side
// of the contract whose device side is a stub's stubjit_args_t (codegen/stub_writer.cpp),
// which static_asserts the offsets and sizes computed here, or, for an entry that takes
// its values one by one, the offsets the stub writer records for each
// (support/entry_parameters.hpp), taken from this layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stubjit/signature.hpp"
#include "support/scalar_words.hpp"

namespace stubjit::detail {

// The slot of a scalar of this type: its words (8 bytes, 16 for a complex<double>).
inline std::size_t scalar_slot_size(ElementType type) { return 8 * scalar_words(type); }

// Rank of the field a parameter receives under a binding over a rank-N domain.
inline int actual_rank(const Param& param, Binding binding, int domain_rank) {
  return binding == Binding::projection ? domain_rank + param.rank : param.rank;
}

inline std::size_t slot_size(const Param& param, Binding binding, int domain_rank) {
  switch (binding) {
    case Binding::scalar:
      return scalar_slot_size(param.type);
    case Binding::index:
      return 0;
    case Binding::broadcast:
    case Binding::projection:
      return 8 + 16 * static_cast<std::size_t>(actual_rank(param, binding, domain_rank));
  }
  return 0;
}

struct ArgLayout {
  std::vector<std::size_t> offset;  // per parameter; meaningless for index tokens
  std::size_t size = 0;             // at least 8: an empty block still has one slot
};

inline ArgLayout arg_layout(const Signature& signature, const std::vector<Binding>& bindings,
                            int domain_rank) {
  ArgLayout layout;
  layout.offset.reserve(signature.size());
  for (std::size_t i = 0; i < signature.size(); ++i) {
    layout.offset.push_back(layout.size);
    layout.size += slot_size(signature[i], bindings[i], domain_rank);
  }
  if (layout.size == 0) layout.size = 8;
  return layout;
}

}  // namespace stubjit::detail
