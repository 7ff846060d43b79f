// The entries of group and tiled stubs (StubRequest::pattern), one per emitter family.
#pragma once

#include <functional>
#include <string>

#include "codegen/dialect.hpp"

namespace stubjit::detail {

// A static_assert that the stub's STUBJIT_WARP_SIZE is the target's warp width (CUDA's
// 32, the AMD target's wavefront size): for stubs whose warps must be the hardware's.
void emit_warp_width_check(const StubContext& context);
// What an entry's opening declares besides the group's number and the thread's rank:
// only what the entry reads (NVRTC warns about a local never read, on every compile).
struct EntryHead {
  StubContext::CountLocals counts = StubContext::CountLocals::every;
  bool threads = true;                          // stubjit_threads
  std::function<bool(const Param&)> arguments;  // whose locals; empty: every parameter's
};
// The opening of a CUDA or HIP entry whose groups are blocks, every such pattern's: its
// signature, the domain's locals, the group's number (stubjit_gid; a block past the
// last group leaves whole), the thread's rank in it and the group's threads
// (stubjit_rank, stubjit_threads), the arguments' locals. `bounds` as below.
void emit_gpu_entry_head(const StubContext& context, const std::string& bounds,
                         const EntryHead& head = {});
// The CUDA and HIP entry; `bounds` is its __launch_bounds__(...) with a trailing
// space, or empty.
void emit_gpu_group_entry(const StubContext& context, const std::string& bounds);
// The C++ entry's opening, every pattern's: its signature (the CPU backend's calling
// convention: a run of group numbers), the packed arguments and launch parameters, the
// domain's and the arguments' locals.
void emit_cpp_entry_head(const StubContext& context, const EntryHead& head = {});
// The C++ entry (the CPU backend's calling convention: a run of group numbers).
void emit_cpp_group_entry(const StubContext& context);

}  // namespace stubjit::detail
