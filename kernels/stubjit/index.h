// stubjit device-side prelude: index arithmetic shared by every stub.
//
// Terms: a *position* is the 0-based ordinal k of an index along a dimension; the
// *logical index* is first + step*k. Flatten/raise work on positions, row-major
// (the last dimension varies fastest), as the host planner assumes.
#ifndef STUBJIT_INDEX_H
#define STUBJIT_INDEX_H

#include "stubjit/config.h"

namespace stubjit {

// ceil(a / b) for a >= 0, b > 0.
template <class I>
STUBJIT_HD I div_ceil(I a, I b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Trip count of the Fortran loop `do i = first, last, step` (last inclusive). A step
// that runs away from last gives 0. The distance and the step's size are taken in the
// unsigned type, where they are exact even for first = INT64_MIN, last = INT64_MAX or
// step = INT64_MIN; a count beyond INT64_MAX (which the host refuses) wraps.
STUBJIT_HD i64 loop_len(i64 first, i64 last, i64 step) {
  if (step > 0) return last < first ? 0 : i64((u64(last) - u64(first)) / u64(step) + 1);
  return last > first ? 0 : i64((u64(first) - u64(last)) / (u64(0) - u64(step)) + 1);
}

// The logical index first + step * position. The product alone may overflow where
// the index does not (first = INT64_MIN, step = INT64_MAX, position 2), so it is
// computed in the unsigned type and wraps; the host checks that every logical index of
// a domain fits in I.
template <class I>
STUBJIT_HD I logical_index(I first, I step, I position) {
  using U = typename unsigned_of<I>::type;
  return I(U(first) + U(step) * U(position));
}

// a * b, wrapping where it overflows (for a product that may be out of range only
// where it is never used).
template <class I>
STUBJIT_HD I wrapping_product(I a, I b) {
  using U = typename unsigned_of<I>::type;
  return I(U(a) * U(b));
}

// Linear offset -> positions over `count` (rank N, row-major).
template <int N, class I>
STUBJIT_HD void raise(I linear, const I* count, I* position) {
  for (int d = N - 1; d > 0; --d) {
    position[d] = linear % count[d];
    linear /= count[d];
  }
  position[0] = linear;
}

// Positions -> linear offset over `count`; the inverse of raise.
template <int N, class I>
STUBJIT_HD I flatten(const I* position, const I* count) {
  I linear = position[0];
  for (int d = 1; d < N; ++d) linear = linear * count[d] + position[d];
  return linear;
}

// Flat position of a thread within a spread dispatch: the group's linear id (x
// fastest) times the group size, plus the thread's linear id within its group, plus
// the dispatch's first position. 64-bit, so that threads past the end of a domain
// compare correctly before a stub narrows positions to a 32-bit index.
STUBJIT_HD u64 spread_linear(u64 linear_begin, u64 group_x, u64 group_y, u64 group_z, u64 grid_x,
                             u64 grid_y, u32 thread_x, u32 thread_y, u32 thread_z, u32 block_x,
                             u32 block_y, u32 block_z) {
  const u64 group = (group_z * grid_y + group_y) * grid_x + group_x;
  const u64 in_group = (u64(thread_z) * block_y + thread_y) * block_x + thread_x;
  return linear_begin + group * (u64(block_x) * block_y * block_z) + in_group;
}

// Position of a thread along one physical dimension of a direct dispatch (64-bit,
// for the same reason).
STUBJIT_HD u64 direct_position(u64 origin, u64 group, u32 block, u32 thread) {
  return origin + group * block + thread;
}

// The logical index of an activity, as the kernel's `index` parameter sees it.
template <int N, class I = i64>
struct Index {
  static constexpr int rank = N;
  I value[N];
  STUBJIT_HD I operator[](int d) const { return value[d]; }
};

}  // namespace stubjit

#endif  // STUBJIT_INDEX_H
