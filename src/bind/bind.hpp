// bind: checks launch arguments against a kernel's signature and packs them.
#pragma once

#include <cstddef>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit::detail {

struct BoundArgs {
  std::vector<Binding> bindings;      // one per parameter
  std::vector<unsigned char> packed;  // the argument block (see arg_layout.hpp)
  // Every position, logical index and element offset fits in int32, so a stub may
  // use the 32-bit index variant.
  bool fits_int32 = true;
};

// Throws ArgumentError/AliasError naming the parameter on any mismatch; `owner` is
// the runtime the fields must belong to. Reuses `out`'s storage.
void bind_arguments(const Signature& signature, const Domain& domain, const Arg* args,
                    std::size_t count, const RuntimeState* owner, BoundArgs& out);

}  // namespace stubjit::detail
