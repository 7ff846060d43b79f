// stubjit device-side prelude: index arithmetic of the stubs.
//
// A stub includes it when its own code uses it (the CPU stubs, every stub of a
// domain with first or step, spread stubs, a kernel taking its index) or its user
// code may name it; a GPU stub of a dense direct launch computes its positions
// inline and goes without (src/codegen/prelude.cpp).
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
// compare correctly before a stub narrows positions to a 32-bit index. A device has
// fewer than 2^32 groups along each dimension and fewer than 2^32 threads per group
// (a dispatch's extents are 32-bit in every launch API), so the ids and extents come
// as 32-bit values, the thread's id within its group is computed in 32 bits and only
// the group's in 64.
STUBJIT_HD u64 spread_linear(u64 linear_begin, u32 group_x, u32 group_y, u32 group_z, u32 grid_x,
                             u32 grid_y, u32 thread_x, u32 thread_y, u32 thread_z, u32 block_x,
                             u32 block_y, u32 block_z) {
  const u64 group = (u64(group_z) * grid_y + group_y) * grid_x + group_x;
  const u32 in_group = (thread_z * block_y + thread_y) * block_x + thread_x;
  return linear_begin + group * (block_x * block_y * block_z) + in_group;
}

// --- Division by a launch's constants ----------------------------------------------
//
// Spread indexing divides each thread's flat position by the domain's counts, which
// are the same for every thread of a launch. A divide costs tens of instructions on
// a GPU (a 64-bit one is a software routine), so the host computes, once per
// dispatch, a multiplier and a shift per count (FastDivisor, launch.h), and a
// thread divides with a multiply-high, an add and a shift. This is Granlund and
// Montgomery's division by invariant integers ("Division by Invariant Integers using
// Multiplication", PLDI 1994, also Hacker's Delight ch. 10), with its (N+1)-bit
// multiplier written as 2^N + m so that it fits in N bits:
//
//   l = ceil(log2 d),   m = floor(2^N * (2^l - d) / d) + 1,   n / d = (mulhi(n, m) + n) >> l
//
// where mulhi is the high N bits of the 2N-bit product. 2^N + m = floor(2^(N+l) / d)
// + 1, so (2^N + m) * d lies in (2^(N+l), 2^(N+l) + d], within 2^l of 2^(N+l): the
// condition under which floor(n * (2^N + m) / 2^(N+l)) = floor(n / d) for every n <
// 2^N. The sum mulhi(n, m) + n is at most 2n, so it fits in N bits for n < 2^(N-1),
// the contract here: positions are non-negative signed values (below 2^31 in a
// 32-bit stub, 2^63 in a 64-bit one). The N = 32 multiplier is the N = 64 one's high
// half, rounded the same way, so the host pays one wide division per count for both.
// A divisor above 2^(N-1) exceeds every dividend: multiplier 0 and shift N-1 give the
// quotient 0.

// The high half of the full product (mulhi).
STUBJIT_HD u32 mul_high(u32 a, u32 b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __umulhi(a, b);
#else
  return u32((u64(a) * b) >> 32);
#endif
}

STUBJIT_HD u64 mul_high(u64 a, u64 b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 u128;
  return u64((u128(a) * b) >> 64);
#endif
}

// n / d for a dividend n < 2^(N-1), from d's multiplier and shift.
template <class U>
STUBJIT_HD U fast_divide(U n, U multiplier, u32 shift) {
  return (mul_high(n, multiplier) + n) >> shift;
}

// Divides n by d in place and returns the remainder: raising a flat position one
// dimension at a time, the remainder is that dimension's position and the quotient
// what is left to raise.
template <class U>
STUBJIT_HD U fast_divmod(U& n, U d, U multiplier, u32 shift) {
  const U quotient = fast_divide(n, multiplier, shift);
  const U remainder = n - quotient * d;
  n = quotient;
  return remainder;
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
