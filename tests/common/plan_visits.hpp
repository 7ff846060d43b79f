// How often a plan visits each position of its domain, found by enumerating every
// physical thread of every dispatch and mapping it with the prelude's own device-side
// functions (the code stubs run). Shared by the planner's tests and its fuzzer.
#pragma once

#include <cstdint>
#include <vector>

#include "stubjit/index.h"
#include "stubjit/plan.hpp"

namespace stubjit::test {

// The threads a plan launches in all (saturating at UINT64_MAX): what enumerate_visits
// walks, so a caller can refuse plans too large to enumerate.
inline std::uint64_t launched_threads(const Plan& plan) {
  constexpr std::uint64_t most = ~std::uint64_t(0);
  std::uint64_t threads = 0;
  for (const Dispatch& dispatch : plan.dispatches) {
    std::uint64_t n = 1;
    for (std::uint64_t factor :
         {dispatch.grid[0], dispatch.grid[1], dispatch.grid[2], std::uint64_t(plan.block[0]),
          std::uint64_t(plan.block[1]), std::uint64_t(plan.block[2])}) {
      if (__builtin_mul_overflow(n, factor, &n)) return most;
    }
    if (__builtin_add_overflow(threads, n, &threads)) return most;
  }
  return threads;
}

struct Visits {
  std::vector<int> per_position;  // by flat position of the domain
  // Threads the stub would run at a position outside the domain: a spread stub stops
  // only at its dispatch's linear_end, so a range past the domain's size reads and
  // writes out of bounds. Must be 0.
  std::uint64_t outside = 0;
};

// Visits per flat position of the domain, from enumerating every thread of a plan.
inline Visits enumerate_visits(const Domain& domain, const Plan& plan) {
  Visits result;
  std::vector<int>& visits = result.per_position;
  visits.assign(static_cast<std::size_t>(domain.size()), 0);
  const int rank = domain.rank();
  std::vector<i64> counts(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) counts[static_cast<std::size_t>(d)] = domain[d].count;
  for (const Dispatch& dispatch : plan.dispatches) {
    for (u64 gz = 0; gz < dispatch.grid[2]; ++gz)
      for (u64 gy = 0; gy < dispatch.grid[1]; ++gy)
        for (u64 gx = 0; gx < dispatch.grid[0]; ++gx)
          for (u32 tz = 0; tz < plan.block[2]; ++tz)
            for (u32 ty = 0; ty < plan.block[1]; ++ty)
              for (u32 tx = 0; tx < plan.block[0]; ++tx) {
                std::vector<i64> position(static_cast<std::size_t>(rank));
                if (plan.spread_indexing()) {
                  const u64 lin = spread_linear(static_cast<u64>(dispatch.linear_begin), gx, gy, gz,
                                                dispatch.grid[0], dispatch.grid[1], tx, ty, tz,
                                                plan.block[0], plan.block[1], plan.block[2]);
                  if (lin >= static_cast<u64>(dispatch.linear_end)) continue;
                  // raise<N> needs N at compile time; the test raises with a loop.
                  u64 rest = lin;
                  for (int d = rank - 1; d >= 0; --d) {
                    position[static_cast<std::size_t>(d)] = static_cast<i64>(
                        rest % static_cast<u64>(counts[static_cast<std::size_t>(d)]));
                    rest /= static_cast<u64>(counts[static_cast<std::size_t>(d)]);
                  }
                  if (rest != 0) {  // beyond the domain
                    ++result.outside;
                    continue;
                  }
                } else {
                  const u64 group[3] = {gx, gy, gz};
                  const u32 thread[3] = {tx, ty, tz};
                  bool inside = true;
                  for (int p = 0; p < 3; ++p) {
                    const u64 q = direct_position(
                        static_cast<u64>(dispatch.origin[static_cast<std::size_t>(p)]), group[p],
                        plan.block[static_cast<std::size_t>(p)], thread[p]);
                    if (p < rank) {
                      inside = inside &&
                               q < static_cast<u64>(counts[static_cast<std::size_t>(rank - 1 - p)]);
                      position[static_cast<std::size_t>(rank - 1 - p)] = static_cast<i64>(q);
                    } else {
                      inside = inside && q == 0;  // unused dimensions hold one position
                    }
                  }
                  if (!inside) continue;
                }
                i64 flat = 0;
                for (int d = 0; d < rank; ++d)
                  flat = flat * counts[static_cast<std::size_t>(d)] +
                         position[static_cast<std::size_t>(d)];
                ++visits[static_cast<std::size_t>(flat)];
              }
  }
  return result;
}

}  // namespace stubjit::test
