// Launches over a domain's dimensions in another order: the projected fields' slots and
// the index token's dimensions follow the domain's. Used to run a Fortran-order domain as
// the C-order launch every stub expects (its fastest dimension innermost), and by
// fusion.cpp to run a kernel's dimensions in memory order.
#pragma once

#include <array>
#include <optional>

#include "bind/bind.hpp"

namespace stubjit::detail {

// order[q]: the dimension of the launch's current domain that becomes dimension q.
using DimOrder = std::array<int, Domain::max_rank>;

// Rewrites `bound` for a launch over the current domain's dimensions in `order`: each
// projected slot's extents and strides of the domain's `rank` dimensions move with
// them, and, when `index` (the stub computes the index), bound.index_order follows (the
// kernel's dimension d stays where its logical index is).
void permute_domain_dims(const Signature& signature, int rank, const DimOrder& order, bool index,
                         BoundArgs& bound);

// A launch over a Fortran-order domain of rank 2 or more: the same launch over
// domain.in_c_order(), with `bound` rewritten for it (the fields keep the dimension
// each domain dimension binds; the index token gets its dimensions back in the
// domain's order). nullopt, nothing touched, for a C-order domain or rank 1.
std::optional<Domain> to_c_order(const Signature& signature, const Domain& domain,
                                 BoundArgs& bound);

}  // namespace stubjit::detail
