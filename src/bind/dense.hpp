// Dense launches: the common case of a domain that starts at 0 with unit steps over
// fields that are contiguous along its innermost dimension. A stub for such a launch
// needs no logical-index arithmetic (the index is the position) and no innermost
// stride, which makes it smaller, and on GPUs quicker to compile.
#pragma once

#include "bind/bind.hpp"
#include "stubjit/domain.hpp"
#include "stubjit/signature.hpp"

namespace stubjit::detail {

// Whether the launch of `bound` (bound over `domain`, the domain it runs) is dense.
bool is_dense(const Signature& signature, const Domain& domain, const BoundArgs& bound);

}  // namespace stubjit::detail
