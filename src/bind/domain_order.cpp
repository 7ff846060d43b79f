#include "bind/domain_order.hpp"

#include <cstring>

#include "bind/arg_layout.hpp"

namespace stubjit::detail {
namespace {

std::int64_t read_i64(const unsigned char* at) {
  std::int64_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

void write_i64(unsigned char* at, std::int64_t value) { std::memcpy(at, &value, sizeof value); }

}  // namespace

void permute_domain_dims(const Signature& signature, int rank, const DimOrder& order, bool index,
                         BoundArgs& bound) {
  const auto r = static_cast<std::size_t>(rank);
  unsigned char* packed = bound.packed.data();
  std::size_t at = 0;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const Binding binding = bound.bindings[i];
    if (binding == Binding::projection) {
      // The slot: data, then extents and strides of rank + p.rank dimensions, the
      // domain's first (arg_layout.hpp).
      const auto slot_rank = static_cast<std::size_t>(actual_rank(p, binding, rank));
      unsigned char* extents = packed + at + 8;
      unsigned char* strides = extents + 8 * slot_rank;
      std::array<std::int64_t, Domain::max_rank> old_extents, old_strides;
      for (std::size_t d = 0; d < r; ++d) {
        old_extents[d] = read_i64(extents + 8 * d);
        old_strides[d] = read_i64(strides + 8 * d);
      }
      for (std::size_t q = 0; q < r; ++q) {
        const auto d = static_cast<std::size_t>(order[q]);
        write_i64(extents + 8 * q, old_extents[d]);
        write_i64(strides + 8 * q, old_strides[d]);
      }
    }
    at += slot_size(p, binding, rank);
  }
  if (!index) return;
  std::array<std::uint8_t, Domain::max_rank> position{};  // where each current dimension goes
  for (std::size_t q = 0; q < r; ++q)
    position[static_cast<std::size_t>(order[q])] = static_cast<std::uint8_t>(q);
  for (std::size_t d = 0; d < r; ++d) bound.index_order[d] = position[bound.index_order[d]];
}

std::optional<Domain> to_c_order(const Signature& signature, const Domain& domain,
                                 BoundArgs& bound) {
  const int rank = domain.rank();
  if (domain.order() != Order::fortran || rank < 2) return std::nullopt;
  DimOrder reversed{};
  for (int q = 0; q < rank; ++q) reversed[static_cast<std::size_t>(q)] = rank - 1 - q;
  permute_domain_dims(signature, rank, reversed, bound.uses_index, bound);
  return domain.in_c_order();
}

}  // namespace stubjit::detail
