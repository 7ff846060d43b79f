// Dimension fusion: the launch a stub runs, in fewer dimensions where the arguments
// allow it.
//
// A kernel that takes no index token cannot tell which logical index it runs at: it
// sees only the elements of its projected fields there (and the same broadcast fields
// and scalars everywhere). So a launch may walk the domain in any order and shape that
// visits every element once. Fusion picks the cheapest: dimensions of one index drop
// out, dimensions run in the memory order of the first written field (outermost:
// largest stride; a negative stride is walked backwards), and neighbouring dimensions
// merge where every projected field steps through them as through one (outer stride =
// inner count x inner stride). A dense 40M x 1 domain becomes one run of 40M, a
// column-major field is walked along its columns, and every-other-element views still
// fuse.
//
// A kernel that takes its index token is not fused (its index is the domain's), but its
// dimensions may still run in memory order, with the token put back in its own order
// by the stub.
//
// The fused launch is an ordinary launch over a domain of first 0, step 1 in each
// fused dimension, with each projected field rebased to its first element and given
// the fused strides: its stub is the stub of that rank, so the fusion is part of the
// stub identity through the rank, and nothing in a stub knows about it.
#pragma once

#include <optional>

#include "bind/bind.hpp"

namespace stubjit::detail {

// For a launch bound by bind_arguments: the domain it runs over, with `bound.packed`
// rewritten for it, or nullopt (nothing touched) when the domain is empty or of rank
// 1, or nothing would change. A kernel that takes an index token is only reordered
// (see reorder in fusion.cpp): the same dimensions with their own logical indices, in
// memory order, and `bound.index_order` says where each of the kernel's dimensions
// went. `bound.bindings` and `bound.fits_int32` stay valid: the positions, strides and
// element offsets are within those checked for the domain as given.
std::optional<Domain> fuse_dimensions(const Signature& signature, const Domain& domain,
                                      BoundArgs& bound);

}  // namespace stubjit::detail
