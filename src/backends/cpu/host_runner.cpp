#include "backends/cpu/host_runner.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace stubjit::detail {

namespace {

// The group memory of a group stub's shared arrays on this thread: a buffer of the
// thread's own on the heap (not its stack, whose size the caller's thread decides),
// grown to the largest a launch has asked for and kept, so that a launch like the
// last allocates nothing.
u8* group_memory(std::uint32_t bytes) {
  if (bytes == 0) return nullptr;
  thread_local std::vector<std::max_align_t> memory;
  const std::size_t words = (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  if (memory.size() < words) memory.resize(words);
  return reinterpret_cast<u8*>(memory.data());
}

}  // namespace

unsigned host_workers(unsigned threads) {
  return threads != 0 ? threads : static_cast<unsigned>(std::max(omp_get_max_threads(), 1));
}

void run_groups(CpuEntry entry, const void* args, const LaunchParams& lp, unsigned threads) {
  const u64 groups = lp.grid[0] * lp.grid[1] * lp.grid[2];
  if (groups == 0) return;
  const u64 iterations = groups * lp.block[0] * lp.block[1] * lp.block[2];
  // Small dispatches first: they run here, without asking OpenMP anything.
  if (groups == 1 || iterations <= serial_iterations) {
    entry(args, &lp, 0, groups, group_memory(lp.shared_bytes));
    return;
  }
  const int workers = static_cast<int>(host_workers(threads));
  if (workers <= 1) {
    entry(args, &lp, 0, groups, group_memory(lp.shared_bytes));
    return;
  }
  const auto chunks = static_cast<long long>(std::min<u64>(groups, static_cast<u64>(workers)));
  const u64 per_chunk = groups / static_cast<u64>(chunks);
  const u64 remainder = groups % static_cast<u64>(chunks);
#pragma omp parallel for num_threads(workers) schedule(static, 1)
  for (long long c = 0; c < chunks; ++c) {
    const u64 k = static_cast<u64>(c);
    const u64 begin = k * per_chunk + std::min(k, remainder);
    const u64 end = begin + per_chunk + (k < remainder ? 1 : 0);
    entry(args, &lp, begin, end, group_memory(lp.shared_bytes));
  }
}

}  // namespace stubjit::detail
