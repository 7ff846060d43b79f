// How often a plan visits each position of its domain, found by enumerating every
// physical thread of every dispatch and mapping it with the prelude's own device-side
// functions (the code stubs run). Shared by the planner's tests and its fuzzer.
#pragma once

#include <cstdint>
#include <vector>

#include "stubjit/index.h"
#include "stubjit/launch.h"
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
  // Divisions by the host's divisors that differ from a plain division. Must be 0.
  std::uint64_t wrong_raise = 0;
};

// Visits per flat position of the domain, from enumerating every thread of a plan and
// mapping it as a GPU stub does (gpu_dialect.cpp): spread indexing raises the flat
// position with the divisors the host puts in LaunchParams (checked against a plain
// division, and the 32-bit divisors too where the domain fits a 32-bit stub); direct
// indexing checks the unused physical dimensions only for threads, and only where a
// group has more than one there (a fixed shape), as the stub does: a plan that puts
// more than one group there visits positions twice.
inline Visits enumerate_visits(const Domain& domain, const Plan& plan) {
  Visits result;
  std::vector<int>& visits = result.per_position;
  visits.assign(static_cast<std::size_t>(domain.size()), 0);
  const int rank = domain.rank();
  const bool fits32 = domain.size() <= 0x7fffffff;
  std::vector<i64> counts(static_cast<std::size_t>(rank));
  std::vector<FastDivisor> divisors(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    counts[static_cast<std::size_t>(d)] = domain[d].count;
    divisors[static_cast<std::size_t>(d)] = make_fast_divisor(static_cast<u64>(domain[d].count));
  }
  for (const Dispatch& dispatch : plan.dispatches) {
    for (u64 gz = 0; gz < dispatch.grid[2]; ++gz)
      for (u64 gy = 0; gy < dispatch.grid[1]; ++gy)
        for (u64 gx = 0; gx < dispatch.grid[0]; ++gx)
          for (u32 tz = 0; tz < plan.block[2]; ++tz)
            for (u32 ty = 0; ty < plan.block[1]; ++ty)
              for (u32 tx = 0; tx < plan.block[0]; ++tx) {
                std::vector<i64> position(static_cast<std::size_t>(rank));
                if (plan.spread_indexing()) {
                  const u64 lin =
                      spread_linear(static_cast<u64>(dispatch.linear_begin), u32(gx), u32(gy),
                                    u32(gz), u32(dispatch.grid[0]), u32(dispatch.grid[1]), tx, ty,
                                    tz, plan.block[0], plan.block[1], plan.block[2]);
                  if (lin >= static_cast<u64>(dispatch.linear_end)) continue;
                  // Beyond the domain: the stub would index out of it (its raise puts
                  // what is left into position 0 unchecked).
                  if (lin >= static_cast<u64>(domain.size())) {
                    ++result.outside;
                    continue;
                  }
                  u64 rest = lin;
                  u32 rest32 = u32(lin);
                  for (int d = rank - 1; d > 0; --d) {
                    const std::size_t k = static_cast<std::size_t>(d);
                    const u64 count = static_cast<u64>(counts[k]);
                    const u64 expected = rest % count;
                    const u64 got = fast_divmod<u64>(rest, count, divisors[k].multiplier64,
                                                     divisors[k].shift64);
                    if (got != expected) ++result.wrong_raise;
                    if (fits32) {
                      const u32 got32 = fast_divmod<u32>(
                          rest32, u32(count), divisors[k].multiplier32, divisors[k].shift32);
                      if (got32 != expected || rest32 != rest) ++result.wrong_raise;
                    }
                    position[k] = static_cast<i64>(got);
                  }
                  position[0] = static_cast<i64>(rest);
                } else {
                  const u64 group[3] = {gx, gy, gz};
                  const u32 thread[3] = {tx, ty, tz};
                  bool inside = true;
                  for (int p = 0; p < 3; ++p) {
                    const std::size_t k = static_cast<std::size_t>(p);
                    if (p < rank) {
                      // As a direct GPU stub computes it (gpu_dialect.cpp).
                      const u64 q = static_cast<u64>(dispatch.origin[k]) +
                                    group[p] * plan.block[k] + thread[p];
                      inside = inside &&
                               q < static_cast<u64>(counts[static_cast<std::size_t>(rank - 1 - p)]);
                      position[static_cast<std::size_t>(rank - 1 - p)] = static_cast<i64>(q);
                    } else if (plan.block[k] > 1) {
                      inside = inside && thread[p] == 0;
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
