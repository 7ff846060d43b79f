// Runs the groups of one dispatch across the host's cores.
#pragma once

#include "backends/cpu/shared_object_loader.hpp"

namespace stubjit::detail {

// Dispatches with at most this many iterations run on the calling thread: below it,
// waking a thread team costs more than the work.
inline constexpr u64 serial_iterations = 16384;

// The workers run_groups shares a dispatch's groups among: `threads`, or where that is
// 0 one per core (OpenMP's count).
unsigned host_workers(unsigned threads);

// Splits the dispatch's groups into one contiguous range per worker (OpenMP, static
// schedule) and calls the stub's entry on each. `threads` 0 means one per core.
void run_groups(CpuEntry entry, const void* args, const LaunchParams& lp, unsigned threads);

}  // namespace stubjit::detail
