// Broadcast views along the innermost loop: a view the body indexes itself (a
// stencil's field) is read at indices the body computes, so how its addresses move
// from one element of a row to the next depends on its stride along the dimension the
// innermost loop follows. The CPU stub has a copy of its loops in which that stride is
// a constant (docs/performance.md); these find which dimension and which stride.
#pragma once

#include <cstdint>

#include "bind/bind.hpp"
#include "stubjit/domain.hpp"
#include "stubjit/signature.hpp"

namespace stubjit::detail {

// The dimension of a broadcast view that most likely follows the innermost loop of a
// rank-`domain_rank` launch: for a view of the domain's rank, the kernel dimension
// that the launch runs innermost (`order` may have moved it); else the view's last.
int view_inner_dim(const Param& view, int domain_rank, const IndexOrder& order);

// The stride, along view_inner_dim, that every broadcast view of rank 1 or more of a
// launch bound as `bound` over a rank-`domain_rank` domain shares; 0 where the kernel
// has no such view or where two of them differ.
std::int64_t common_view_stride(const Signature& signature, int domain_rank,
                                const BoundArgs& bound);

// The stride a CPU stub of this launch (over `domain`, the domain it runs, with rows
// of any length) has compiled in: the shared one where it is 2 to max_view_stride, every broadcast
// view has the domain's rank (a stencil's fields, the case measured: a table read at indices of its
// own keeps the stub it had), and the stub's constant-stride copy of its loops can run (the
// innermost step is 1, or the kernel takes no index); 0 otherwise.
std::int64_t view_stride_to_compile(const Signature& signature, const Domain& domain,
                                    const BoundArgs& bound);

}  // namespace stubjit::detail
