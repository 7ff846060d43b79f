// stubjit device-side prelude: reduce stubs (docs/patterns.md).
//
// A reduce launch numbers its groups segment by segment: group g reduces part
// g % parts of segment g / parts (a segment: the values one element of the result
// combines; a part: part_length of them, the last fewer). Each group combines its
// part in a fixed order (on a GPU, each thread a fixed stride of it, then shuffles
// within each warp and the warps' values in the first; on the CPU, sixteen lanes (32
// for 8- and 16-bit integers and bools), then a fixed tree), so
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
  u64 partials;     // parts * segments values (parts > 1); a one-pass GPU scan: two per group
  u64 arrivals;     // one u32 per segment, 0 before and after a launch (parts > 1); a
                    // one-pass GPU scan: its ticket counter (0 before it), then a flag per group
  u32 assign;       // 1: write the reduction over the result's value; 0: combine
  u32 epoch;        // a one-pass GPU scan: the launch's mark in its flags (else 0)
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

enum class ShuffleFrom { above, below, lane };

// `value` of another lane of the caller's warp, for a value of any type: moved as 32-bit
// words. From above: the lane `delta` lanes up (the caller's own value past the warp's
// width); below: `delta` lanes down (the caller's own value below lane 0); either, from
// a lane the warp does not have, a value the caller must leave unused. Lane: lane
// `delta` itself, which the warp must have. `lanes`: the lanes the warp has (its last may have fewer than the
// width), every one of which calls it.
template <ShuffleFrom From, class T>
__device__ __forceinline__ T warp_shuffle(T value, u32 delta, u32 lanes) {
  constexpr u32 words = u32((sizeof(T) + 3) / 4);
  u32 word[words];
  const u8* from = reinterpret_cast<const u8*>(&value);
  u8* bytes = reinterpret_cast<u8*>(word);
  for (u32 i = 0; i < 4 * words; ++i) bytes[i] = i < u32(sizeof(T)) ? from[i] : u8(0);
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  const u32 mask = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;
  for (u32 w = 0; w < words; ++w)
    word[w] = From == ShuffleFrom::above  ? __shfl_down_sync(mask, word[w], delta)
              : From == ShuffleFrom::below ? __shfl_up_sync(mask, word[w], delta)
                                           : __shfl_sync(mask, word[w], int(delta));
#else
  (void)lanes;
  for (u32 w = 0; w < words; ++w)
    word[w] = u32(From == ShuffleFrom::above   ? __shfl_down(int(word[w]), delta)
                  : From == ShuffleFrom::below ? __shfl_up(int(word[w]), delta)
                                               : __shfl(int(word[w]), int(delta)));
#endif
  T moved;
  u8* to = reinterpret_cast<u8*>(&moved);
  for (u32 i = 0; i < u32(sizeof(T)); ++i) to[i] = bytes[i];
  return moved;
}

template <class T>
__device__ __forceinline__ T warp_shuffle_down(T value, u32 delta, u32 lanes) {
  return warp_shuffle<ShuffleFrom::above>(value, delta, lanes);
}
template <class T>
__device__ __forceinline__ T warp_shuffle_up(T value, u32 delta, u32 lanes) {
  return warp_shuffle<ShuffleFrom::below>(value, delta, lanes);
}
// `value` of lane `source` of the caller's warp, to every lane.
template <class T>
__device__ __forceinline__ T warp_broadcast(T value, u32 source, u32 lanes) {
  return warp_shuffle<ShuffleFrom::lane>(value, source, lanes);
}

// The combination of the first `count` lanes' values of the caller's warp, in lane 0
// (the others hold partial combinations): a tree by shuffles, halving the distance,
// each lane combining with the one `offset` above it where that lane exists. The same
// order every run, for widths 32 and 64 and warps of any number of lanes.
// `present`: the lanes the warp has, all of which call it (the shuffles' mask);
// `count` <= present: the lanes whose values count; `width`: the warp width.
template <class T, class Combine>
__device__ __forceinline__ T warp_reduce(T value, u32 lane, u32 present, u32 count, u32 width,
                                         Combine combine) {
  for (u32 offset = width / 2; offset > 0; offset /= 2) {
    const T other = warp_shuffle_down(value, offset, present);
    if (lane + offset < count) value = combine(value, other);
  }
  return value;
}

// The combination of every thread's `value`, returned to every thread of the group:
// each warp's values by shuffles (warp_reduce), then the warps' in the first warp, in
// warp order, through `scratch` (group memory, one T per warp; a group has at most as
// many warps as a warp has lanes). `width`: the target's warp width (a stub passes
// STUBJIT_WARP_SIZE, and checks when it compiles that it is the target's). The same order every
// run. Every thread of the group calls it.
template <class T, class Combine>
__device__ __forceinline__ T group_reduce(T value, T* scratch, u32 rank, u32 threads, u32 width,
                                          Combine combine) {
  const u32 lane = rank % width, warp = rank / width;
  const u32 left = threads - warp * width;
  const u32 lanes = left < width ? left : width;
  value = warp_reduce(value, lane, lanes, lanes, width, combine);
  const u32 warps = (threads + width - 1) / width;
  if (warps > 1) {
    if (lane == 0) scratch[warp] = value;
    STUBJIT_GROUP_BARRIER();
    // The first warp, whole (there is more than one), combines the warps' values.
    if (warp == 0) {
      value = lane < warps ? scratch[lane] : value;
      value = warp_reduce(value, lane, width, warps, width, combine);
    }
  }
  if (rank == 0) scratch[0] = value;
  STUBJIT_GROUP_BARRIER();
  const T total = scratch[0];
  STUBJIT_GROUP_BARRIER();  // scratch may be used again
  return total;
}

// The inclusive scan of the caller's warp's values in lane order: each lane gets the
// combination of lanes 0 to its own, by shuffles up doubling the distance (the same
// order every run). `lanes`: the lanes the warp has, all of which call it.
template <class T, class Combine>
__device__ __forceinline__ T warp_scan(T value, u32 lane, u32 lanes, u32 width, Combine combine) {
  for (u32 offset = 1; offset < width; offset *= 2) {
    const T other = warp_shuffle_up(value, offset, lanes);
    if (lane >= offset) value = combine(other, value);
  }
  return value;
}

// The exclusive scan of the warps' values over the group in warp order: each thread
// passes its warp's `of_warp` (lane 0's is read) and gets in `before` the combination of
// the warps before its own (the identity for warp 0) and in `total` the group's. The
// first thread combines them in warp order through `scratch` (group memory, one T per
// warp and one more), so the order is the same every run. Every thread calls it.
template <class T, class Combine>
__device__ __forceinline__ void warps_scan(T of_warp, T* scratch, u32 lane, u32 warp, u32 warps,
                                           T identity, Combine combine, T& before, T& total) {
  if (lane == 0) scratch[warp] = of_warp;
  STUBJIT_GROUP_BARRIER();
  if (lane == 0 && warp == 0) {
    T running = identity;
    for (u32 w = 0; w < warps; ++w) {
      const T value = scratch[w];
      scratch[w] = running;
      running = combine(running, value);
    }
    scratch[warps] = running;
  }
  STUBJIT_GROUP_BARRIER();
  before = scratch[warp];
  total = scratch[warps];
  STUBJIT_GROUP_BARRIER();  // scratch may be used again
}

// --- One-pass scans: each part's prefix from the parts before it -----------------------
//
// A GPU scan launch that splits a segment into parts runs them in one pass (a decoupled
// look-back): each group takes the next part in the order groups start (a ticket, so
// that it waits only on groups that have started, which therefore run), scans its
// part, publishes the part's combination (its aggregate), finds the combination of
// the parts before it (its exclusive prefix) from their published values, publishes
// its own inclusive prefix, and writes its elements. Every value it waits on is
// published by a group that never waits on a later one.
//
// The order of combination is fixed: the exclusive prefix of part p is
// ((identity + a0) + a1) + ... + a(p-1), combined left to right (ai: part i's
// aggregate), and each inclusive prefix is made the same way (its exclusive prefix,
// then its aggregate). A look-back starts from the inclusive prefix of the nearest
// earlier part that published one (the identity at the segment's start) and combines
// the aggregates after it in part order: the same bits whichever part that was, so the
// result does not depend on the order in which parts finish.
//
// The launch's flags: one u32 per group, (epoch << 2) | state, written after the value
// it announces (a fence between). A flag of another epoch (an earlier launch's, or
// memory never written) reads as not yet published, so a launch need not clear them.

inline constexpr u32 scan_published_aggregate = 1;
inline constexpr u32 scan_published_prefix = 2;

// Whether a part publishes its inclusive prefix for the parts after it: on a GPU
// always. The host emulator (tests/emulator/gpu_shim.h) withholds some, so that its
// look-backs combine many aggregates: its groups run one at a time, and would
// otherwise always find the prefix of the part just before.
#ifndef STUBJIT_SCAN_PUBLISHES_PREFIX
#define STUBJIT_SCAN_PUBLISHES_PREFIX(part) true
#endif

// The group's part: the launch's next ticket (`status`: the ticket counter).
__device__ __forceinline__ u64 scan_ticket(u32* status) { return atomicAdd(status, 1u); }

// Publishes `value` for `group` (values: two per group, the aggregate then the
// inclusive prefix) with the flag `state` of this launch's `epoch`.
template <class T>
__device__ __forceinline__ void scan_publish(T* values, u32* flags, u64 group, u32 state,
                                             u32 epoch, T value) {
  values[2 * group + (state == scan_published_prefix ? 1 : 0)] = value;
  __threadfence();  // the value before the flag, device-wide
  *reinterpret_cast<volatile u32*>(flags + group) = (epoch << 2) | state;
}

// What `group` has published in this launch's `epoch`, once it has published anything:
// its aggregate, or its inclusive prefix too. A value read after it is the one it
// announced.
__device__ __forceinline__ u32 scan_wait_published(const u32* flags, u64 group, u32 epoch) {
  const volatile u32* flag = flags + group;
  u32 seen = *flag;
  while ((seen >> 2) != epoch) seen = *flag;
  __threadfence();  // the flag before the value
  return seen & 3u;
}

struct ScanLarger {
  __device__ __forceinline__ u32 operator()(u32 a, u32 b) const { return a < b ? b : a; }
};

// The exclusive prefix of part `part` of the segment whose part 0 is group `first`
// (the order above), to every lane of the calling warp; `lanes`: the lanes it has, all
// of which call it. It walks back a window of `lanes` parts at a time (lane l the l-th
// nearest) until one has published its inclusive prefix or the segment starts, then
// combines the aggregates after that part a window at a time, in part order.
template <class T, class Combine>
__device__ __forceinline__ T scan_look_back(const T* values, const u32* flags, u64 first,
                                            u64 part, u32 epoch, u32 lane, u32 lanes, u32 width,
                                            T identity, Combine combine) {
  T prefix = identity;
  u64 from = 0;  // the first part whose aggregate is combined
  for (u64 end = part; end > 0;) {
    const u64 window = end < lanes ? end : lanes;
    u32 nearest = 0;  // lanes - l for a lane l whose part published its prefix
    T mine = identity;
    if (lane < window) {
      const u64 group = first + end - 1 - lane;
      if (scan_wait_published(flags, group, epoch) == scan_published_prefix) {
        nearest = lanes - lane;
        mine = reduce_load(values + 2 * group + 1);
      }
    }
    nearest = warp_broadcast(warp_reduce(nearest, lane, lanes, lanes, width, ScanLarger()), 0u,
                             lanes);
    if (nearest != 0) {
      const u32 l = lanes - nearest;
      prefix = warp_broadcast(mine, l, lanes);
      from = end - l;
      break;
    }
    end -= window;
  }
  for (u64 start = from; start < part; start += lanes) {
    const u64 count = part - start < lanes ? part - start : lanes;
    T aggregate = identity;
    if (lane < count) {
      const u64 group = first + start + lane;
      scan_wait_published(flags, group, epoch);
      aggregate = reduce_load(values + 2 * group);
    }
    for (u32 k = 0; k < u32(count); ++k) prefix = combine(prefix, warp_broadcast(aggregate, k, lanes));
  }
  return prefix;
}

// A one-pass scan's part (`part` of the segment whose part 0 is group `first`), whose
// values combine to `total`: publishes the aggregate, looks back (the group's first
// warp), publishes the inclusive prefix, and returns the exclusive prefix to every
// thread of the group (through `scratch`, group memory for one T). Every thread of the
// group calls it.
template <class T, class Combine>
__device__ __forceinline__ T scan_part_prefix(T* values, u32* flags, u64 first, u64 part,
                                              u32 epoch, T total, T* scratch, u32 rank,
                                              u32 threads, u32 width, T identity,
                                              Combine combine) {
  if (rank < width) {
    const u32 lanes = threads < width ? threads : width;
    if (rank == 0) scan_publish(values, flags, first + part, scan_published_aggregate, epoch, total);
    const T before =
        scan_look_back(values, flags, first, part, epoch, rank, lanes, width, identity, combine);
    if (rank == 0) {
      if (STUBJIT_SCAN_PUBLISHES_PREFIX(part))
        scan_publish(values, flags, first + part, scan_published_prefix, epoch,
                     combine(before, total));
      *scratch = before;
    }
  }
  STUBJIT_GROUP_BARRIER();
  const T before = *scratch;
  STUBJIT_GROUP_BARRIER();  // scratch may be used again
  return before;
}

#else

inline u32 reduce_arrive(u64 arrivals, u64 segment) {
  return __atomic_fetch_add(reinterpret_cast<u32*>(arrivals) + segment, 1u, __ATOMIC_ACQ_REL);
}

#endif

}  // namespace stubjit

#endif  // STUBJIT_REDUCE_H
