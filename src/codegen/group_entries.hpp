// The entries of group and tiled stubs (StubRequest::pattern), one per emitter family.
#pragma once

#include <string>

#include "codegen/dialect.hpp"

namespace stubjit::detail {

// The CUDA and HIP entry; `bounds` is its __launch_bounds__(...) with a trailing
// space, or empty.
void emit_gpu_group_entry(const StubContext& context, const std::string& bounds);
// The C++ entry's opening, every pattern's: its signature (the CPU backend's calling
// convention: a run of group numbers), the packed arguments and launch parameters, the
// domain's and the arguments' locals.
void emit_cpp_entry_head(const StubContext& context);
// The C++ entry (the CPU backend's calling convention: a run of group numbers).
void emit_cpp_group_entry(const StubContext& context);

}  // namespace stubjit::detail
