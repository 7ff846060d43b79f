#include "backends/cpu/host_runner.hpp"

#include <omp.h>

#include <algorithm>

namespace stubjit::detail {

void run_groups(CpuEntry entry, const void* args, const LaunchParams& lp, unsigned threads) {
  const u64 groups = lp.grid[0] * lp.grid[1] * lp.grid[2];
  if (groups == 0) return;
  const u64 iterations = groups * lp.block[0] * lp.block[1] * lp.block[2];
  // Small dispatches first: they run here, without asking OpenMP anything.
  if (groups == 1 || iterations <= serial_iterations) {
    entry(args, &lp, 0, groups);
    return;
  }
  const int workers = threads != 0 ? static_cast<int>(threads) : omp_get_max_threads();
  if (workers <= 1) {
    entry(args, &lp, 0, groups);
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
    entry(args, &lp, begin, end);
  }
}

}  // namespace stubjit::detail
