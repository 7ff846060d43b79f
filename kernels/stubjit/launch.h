// stubjit device-side prelude: the per-dispatch launch parameters.
//
// One LaunchParams is passed to every dispatch next to the packed arguments. Its
// layout is part of the host/device contract; the host fills it from the domain and
// the plan's dispatch.
#ifndef STUBJIT_LAUNCH_H
#define STUBJIT_LAUNCH_H

#include "stubjit/config.h"
#include "stubjit/index.h"

namespace stubjit {

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
  u32 reserved;
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
