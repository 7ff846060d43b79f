// stubjit device-side prelude: the per-dispatch launch parameters.
//
// The host fills one LaunchParams per dispatch from the domain and the plan's
// dispatch. An entry that takes the two structs gets it whole, next to the packed
// arguments; a GPU forall entry takes the members it reads one by one
// (src/support/entry_parameters.hpp). Its layout is part of the host/device contract.
#ifndef STUBJIT_LAUNCH_H
#define STUBJIT_LAUNCH_H

#include "stubjit/config.h"

namespace stubjit {

// The multipliers and shifts of one divisor, for 64- and 32-bit dividends (spread
// stubs divide with them: index.h, fast_divmod, which says how): 24 bytes, no
// padding. The shifts are whole 32-bit words because a narrower one costs a GPU stub
// an instruction per dimension to widen.
struct FastDivisor {
  u64 multiplier64;
  u32 multiplier32;
  u32 shift32;
  u32 shift64;
  u32 unused;  // 0
};

// The host computes them (a device never does: its stubs only divide).
#if !defined(STUBJIT_DEVICE_COMPILER)
// For d >= 1 (0, never a divisor, gives all zeros).
inline FastDivisor make_fast_divisor(u64 d) {
  FastDivisor divisor = {0, 0, 31, 63, 0};
  if (d == 0) return {0, 0, 0, 0, 0};
  // l = ceil(log2 d): the bit length of d - 1 (0 for d = 1).
  const u32 l = d == 1 ? 0 : 64 - u32(__builtin_clzll(d - 1));
  if (l <= 63) {
    // floor(2^64 * (2^l - d) / d): 2^l - d < d, so the quotient fits in 64 bits.
    __extension__ typedef unsigned __int128 u128;
    const u64 scaled = u64((u128((u64(1) << l) - d) << 64) / d);
    divisor.multiplier64 = scaled + 1;
    divisor.shift64 = l;
    if (l <= 31) {
      // floor(2^32 * (2^l - d) / d) is the high half of floor(2^64 * (2^l - d) / d).
      divisor.multiplier32 = u32(scaled >> 32) + 1;
      divisor.shift32 = l;
    }
  }
  return divisor;
}
#endif

constexpr int max_domain_rank = 8;

struct LaunchParams {
  // The compute domain, per logical dimension (outermost first).
  i64 first[max_domain_rank];
  i64 count[max_domain_rank];
  i64 step[max_domain_rank];
  // Direct indexing: first position covered, per physical dimension x, y, z.
  i64 origin[3];
  // Spread indexing: the flat positions [linear_begin, linear_end) of this dispatch.
  i64 linear_begin;
  i64 linear_end;
  // Groups per physical dimension, and threads per group (x, y, z): what the dispatch
  // was launched with. GPU stubs read them here rather than from gridDim and blockDim,
  // which AMD GPUs compute (gridDim by a division) from the dispatch packet.
  u64 grid[3];
  u32 block[3];
  // Group launches: the bytes of group-shared memory each group has (a GPU launches
  // with them as dynamic shared memory; a CPU stub takes them from its stack). 0
  // otherwise.
  u32 shared_bytes;
  // Spread indexing: division by count[d] (index.h), for d = 1 .. rank-1 of a plan
  // that spreads (divisor[0] is never used: position 0 is what is left after the
  // others). Zeros otherwise.
  FastDivisor divisor[max_domain_rank];
};

static_assert(sizeof(FastDivisor) == 24, "FastDivisor layout changed: update the host side");
static_assert(sizeof(LaunchParams) ==
                  8 * (3 * max_domain_rank + 3 + 2 + 3) + 16 + 24 * max_domain_rank,
              "LaunchParams layout changed: update the host side");

}  // namespace stubjit

#endif  // STUBJIT_LAUNCH_H
