// stubjit device-side prelude: reduce stubs (docs/patterns.md).
//
// A reduce launch numbers its groups segment by segment: group g reduces part
// g % parts of segment g / parts (a segment: the values one element of the result
// combines; a part: part_length of them, the last fewer). Each group combines its
// part in a fixed order (on a GPU, each thread a fixed stride of it, then a tree over
// the group's threads in group memory; on the CPU, sixteen lanes, then a fixed tree), so
// the same plan gives the same bits every run. With one part per segment the group
// writes the result; with more, it leaves its value in the partials and counts its
// arrival, and the segment's last group to arrive combines the partials, in part
// order, and writes the result: no atomic ever adds a value.
#ifndef STUBJIT_REDUCE_H
#define STUBJIT_REDUCE_H

#include "stubjit/config.h"

namespace stubjit {

// What a reduce launch passes after the packed arguments (the host side:
// src/runtime/reduce_launch.cpp). Addresses as integers, so that the struct is the
// same on every side.
struct ReduceParams {
  u64 parts;        // groups per segment
  u64 part_length;  // values per group
  u64 partials;     // parts * segments values (parts > 1)
  u64 arrivals;     // one u32 per segment, 0 before and after a launch (parts > 1)
  u32 assign;       // 1: write the reduction over the result's value; 0: combine
  u32 unused;       // 0
};

static_assert(sizeof(ReduceParams) == 40, "ReduceParams layout changed: update the host side");

// The identities of min and max for floating-point values: the infinities (from
// their bits: no header of the device compilers is needed).
STUBJIT_HD float reduce_infinity() {
  union {
    u32 bits;
    float value;
  } infinity = {0x7f800000u};
  return infinity.value;
}

// A value another group wrote, read from memory rather than from a cache that may
// hold an older copy (a GPU's L1 is not coherent between blocks): byte by byte
// through volatile, for values of any type. The partials of one segment are few.
template <class T>
STUBJIT_HD T reduce_load(const T* from) {
  T value;
  const volatile u8* bytes = reinterpret_cast<const volatile u8*>(from);
  u8* to = reinterpret_cast<u8*>(&value);
  for (u32 i = 0; i < u32(sizeof(T)); ++i) to[i] = bytes[i];
  return value;
}

#if defined(STUBJIT_DEVICE_COMPILER)

#ifndef STUBJIT_GROUP_BARRIER
#define STUBJIT_GROUP_BARRIER() __syncthreads()
#endif
#ifndef STUBJIT_GROUP_MEMORY
#define STUBJIT_GROUP_MEMORY(name) \
  extern __shared__ __attribute__((aligned(16))) stubjit::u8 name[]
#endif

// Counts a group's arrival at its segment; returns the arrivals before it. Its part
// is written before (the fence makes it visible device-wide first).
__device__ __forceinline__ u32 reduce_arrive(u64 arrivals, u64 segment) {
  __threadfence();
  return atomicAdd(reinterpret_cast<u32*>(arrivals) + segment, 1u);
}

// The combination of every thread's `value`, returned to every thread of the group:
// a tree over the threads' ranks in `scratch` (one T per thread, group memory), the
// same order every run. Every thread of the group calls it.
template <class T, class Combine>
__device__ __forceinline__ T group_reduce(T value, T* scratch, u32 rank, u32 threads,
                                          Combine combine) {
  scratch[rank] = value;
  STUBJIT_GROUP_BARRIER();
  u32 half = 1;
  while (half * 2 < threads) half *= 2;
  for (; half > 0; half /= 2) {
    if (rank < half && rank + half < threads)
      scratch[rank] = combine(scratch[rank], scratch[rank + half]);
    STUBJIT_GROUP_BARRIER();
  }
  const T total = scratch[0];
  STUBJIT_GROUP_BARRIER();  // scratch may be used again
  return total;
}

#else

inline u32 reduce_arrive(u64 arrivals, u64 segment) {
  return __atomic_fetch_add(reinterpret_cast<u32*>(arrivals) + segment, 1u, __ATOMIC_ACQ_REL);
}

#endif

}  // namespace stubjit

#endif  // STUBJIT_REDUCE_H
