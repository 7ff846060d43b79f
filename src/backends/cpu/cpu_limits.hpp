// The CPU backend's device limits, in a header of their own: the planner's fuzzer
// (tests/fuzz), built without the backends, plans with them too.
#pragma once

#include <cstdint>

#include "stubjit/plan.hpp"

namespace stubjit::detail {

// The host as a target: limits that only keep products inside 64 bits.
inline DeviceLimits cpu_limits() {
  // No hardware grid: limits only keep products inside 64 bits. A group is a run of
  // iterations one worker takes at a time: one long stretch of a row, so each worker
  // streams contiguous memory and the innermost loop vectorizes (1024x4 groups
  // measured 2-3% slower on a 2-D saxpy; the planner still folds x into y and z for
  // narrow domains).
  DeviceLimits limits;
  constexpr std::uint64_t huge = std::uint64_t(1) << 40;
  limits.max_grid = {huge, huge, huge};
  limits.max_block = {1u << 20, 1u << 20, 1u << 20};
  limits.max_threads_per_block = 1u << 20;
  limits.warp_size = 1;
  limits.preferred_block.spread = {4096, 1, 1};
  limits.preferred_block.direct = {{{4096, 1, 1}, {4096, 1, 1}, {4096, 1, 1}}};
  // A group's shared arrays live on the stack of the host thread running it (alloca'd
  // once per run of groups): well inside the default 8 MiB stacks of the threads that
  // run groups, and more than any GPU gives a block.
  limits.max_shared_bytes = 256 * 1024;
  return limits;
}

}  // namespace stubjit::detail
