#include "bind/dense.hpp"

#include <cstdint>
#include <cstring>

#include "bind/arg_layout.hpp"

namespace stubjit::detail {

bool is_dense(const Signature& signature, const Domain& domain, const BoundArgs& bound) {
  const int rank = domain.rank();
  for (const Dim& dim : domain.dims())
    if (dim.first != 0 || dim.step != 1) return false;
  const unsigned char* packed = bound.packed.data();
  std::size_t at = 0;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const Binding binding = bound.bindings[i];
    if (binding == Binding::projection) {
      // The slot: data, then extents and strides of the slot's rank, the domain's
      // dimensions first (arg_layout.hpp).
      const std::size_t slot_rank = static_cast<std::size_t>(actual_rank(p, binding, rank));
      std::int64_t stride = 0;
      std::memcpy(&stride, packed + at + 8 + 8 * slot_rank + 8 * std::size_t(rank - 1),
                  sizeof stride);
      if (stride != 1) return false;
    }
    at += slot_size(p, binding, rank);
  }
  return true;
}

}  // namespace stubjit::detail
