#include "bind/view_stride.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "bind/arg_layout.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {

int view_inner_dim(const Param& view, int domain_rank, const IndexOrder& order) {
  if (view.rank != domain_rank) return view.rank - 1;
  for (int d = 0; d < domain_rank; ++d) {
    if (order[static_cast<std::size_t>(d)] == domain_rank - 1) return d;
  }
  return view.rank - 1;
}

std::int64_t common_view_stride(const Signature& signature, int domain_rank,
                                const BoundArgs& bound) {
  const unsigned char* packed = bound.packed.data();
  std::size_t at = 0;
  std::int64_t common = 0;
  bool found = false;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const Binding binding = bound.bindings[i];
    if (binding == Binding::broadcast && p.rank > 0) {
      // The slot: data, then the view's extents and strides (arg_layout.hpp).
      const std::size_t rank = static_cast<std::size_t>(p.rank);
      const std::size_t dim =
          static_cast<std::size_t>(view_inner_dim(p, domain_rank, bound.index_order));
      std::int64_t stride = 0;
      std::memcpy(&stride, packed + at + 8 + 8 * rank + 8 * dim, sizeof stride);
      if (found && stride != common) return 0;
      common = stride;
      found = true;
    }
    at += slot_size(p, binding, domain_rank);
  }
  return common;
}

std::int64_t view_stride_to_compile(const Signature& signature, const Domain& domain,
                                    const BoundArgs& bound) {
  const int rank = domain.rank();
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    if (bound.bindings[i] == Binding::broadcast && p.rank > 0 && p.rank != rank) return 0;
  }
  if (bound.uses_index && domain.dims()[static_cast<std::size_t>(rank - 1)].step != 1) return 0;
  const std::int64_t stride = common_view_stride(signature, rank, bound);
  return stride >= 2 && stride <= max_view_stride ? stride : 0;
}

}  // namespace stubjit::detail
