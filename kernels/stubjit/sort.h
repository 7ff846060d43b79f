// stubjit device-side prelude: sort stubs (docs/patterns.md).
//
// A sort launch sorts each segment (a pencil along the dimension sorted) stably, in
// stages over two buffers of the launch's scratch, each holding every segment's
// elements densely (keys, then each payload, an array each):
//   sort_runs   group g evaluates part g % parts of segment g / parts (the body run
//               per element) into buffer `to` and sorts it there: a run (where a
//               segment is one part, into the fields: then no merge pass follows). On
//               the CPU a built-in order of integer, bool or real keys sorts it by
//               radix (radix_sort_run), a custom order by merges (sort_run).
//   sort_merge  merges the runs of `width` elements of buffer `from` in pairs into
//               buffer `to` or, in the last pass, into the fields.
// A merge is stable: of keys that compare equal, the left run's go first. Each group
// (and on a GPU each thread) finds where its share of a merge's output starts by a
// binary search along the merge path (merge_split), then merges sequentially
// (merge_run; on the CPU the share's two halves in lockstep, merge_run_pair): no group
// waits for another.
#ifndef STUBJIT_SORT_H
#define STUBJIT_SORT_H

#include "stubjit/config.h"

#if defined(STUBJIT_DEVICE_COMPILER) && !defined(STUBJIT_GROUP_BARRIER)
#define STUBJIT_GROUP_BARRIER() __syncthreads()
#endif

namespace stubjit {

// What a sort launch passes after the packed arguments (the host side:
// src/runtime/sort_launch.cpp). Addresses as integers, so that the struct is the same
// on every side.
struct SortParams {
  u64 parts;        // groups per segment
  u64 part_length;  // elements per group (the last of a segment may have fewer)
  u64 width;        // sort_merge: the length of the runs merged in pairs
  u64 from;         // sort_merge: the buffer read
  u64 to;           // the buffer written (sort_merge: unless into_fields)
  u64 spare;        // sort_runs: a buffer whose positions of the part a group may use
  u64 total;        // elements of each array of a buffer (every segment's)
  u32 into_fields;  // 1: write into the fields (the last merge pass; sort_runs where a
                    // segment is one part, and no pass follows)
  u32 thread_run;   // sort_runs on a GPU: elements each thread sorts on its own first
};

static_assert(sizeof(SortParams) == 64, "SortParams layout changed: update the host side");

// The bytes of an array of `total` elements of `size` bytes in a buffer, rounded up to
// 16 so that the next array is aligned.
STUBJIT_HD u64 sort_array_bytes(u64 total, u64 size) { return (total * size + 15) / 16 * 16; }

// Of the first `diag` outputs of the stable merge of keys a[0, na) and b[0, nb), how
// many come from a (the rest, diag minus that, from b).
template <class Key, class Less>
STUBJIT_HD u64 merge_split(const Key* a, u64 na, const Key* b, u64 nb, u64 diag, Less less) {
  u64 lo = diag > nb ? diag - nb : 0;
  u64 hi = diag < na ? diag : na;
  while (lo < hi) {
    const u64 mid = lo + (hi - lo) / 2;
    // a[mid] is among the first diag unless b's element before the diagonal goes first.
    if (less(b[diag - 1 - mid], a[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Of the merge's position (i, j) over runs a of na keys and b of nb: the index, in the
// two runs side by side (a's first), of the key that goes next, where from_b says
// whether b's goes. Masks, not a choice: a compiler may make a choice a branch, which
// on random keys goes the wrong way half the time. On the CPU the mask passes through
// an empty asm statement, so that the compiler cannot see a choice in it (Clang 14 made
// the choice a conditional move, then, in the merge loops, a branch again).
STUBJIT_HD u64 merge_source(bool from_b, u64 i, u64 na, u64 j) {
  u64 b_mask = u64(0) - u64(from_b);
#if !defined(STUBJIT_DEVICE_COMPILER)
  __asm__("" : "+r"(b_mask));
#endif
  return i ^ ((i ^ (na + j)) & b_mask);
}

// `count` outputs of the merge of a[0, na) and b[0, nb) from its position (i, j) on:
// put(o, index) for output o of them, in order, the index that of merge_source.
template <class Key, class Less, class Put>
STUBJIT_HD void merge_run(const Key* a, u64 na, const Key* b, u64 nb, u64 i, u64 j, u64 count,
                          Less less, const Put& put) {
  u64 o = 0;
  // While both runs have keys left: one comparison per output. Then the rest of
  // whichever run is left, without comparing.
  while (o < count && i < na && j < nb) {
    const bool from_b = less(b[j], a[i]);
    put(o++, merge_source(from_b, i, na, j));
    j += u64(from_b);
    i += u64(1) - u64(from_b);
  }
  while (o < count && i < na) put(o++, i++);
  while (o < count && j < nb) put(o++, na + j++);
}

#if !defined(STUBJIT_DEVICE_COMPILER)
// Outputs a CPU share needs at least before its halves merge in lockstep.
constexpr u64 merge_pair_least = 64;

// Two stretches of the merge of a[0, na) and b[0, nb) at once, in lockstep: n0 outputs
// from position (i0, j0) as outputs [0, n0), n1 from (i1, j1) as [n0, n0 + n1); put as
// merge_run's. Each output's comparison waits on the one before it (which index moved),
// so one merge is a chain of load, compare and select; two chains side by side keep the
// processor busy while each waits. (Three or more ran slower: their indices no longer
// fit the registers.)
template <class Key, class Less, class Put>
void merge_run_pair(const Key* a, u64 na, const Key* b, u64 nb, u64 i0, u64 j0, u64 n0, u64 i1,
                    u64 j1, u64 n1, Less less, const Put& put) {
  u64 o0 = 0, o1 = n0;
  const u64 end1 = n0 + n1;
  while (o0 < n0 && i0 < na && j0 < nb && o1 < end1 && i1 < na && j1 < nb) {
    const bool from_b0 = less(b[j0], a[i0]);
    const bool from_b1 = less(b[j1], a[i1]);
    put(o0++, merge_source(from_b0, i0, na, j0));
    put(o1++, merge_source(from_b1, i1, na, j1));
    j0 += u64(from_b0);
    i0 += u64(1) - u64(from_b0);
    j1 += u64(from_b1);
    i1 += u64(1) - u64(from_b1);
  }
  merge_run(a, na, b, nb, i0, j0, n0 - o0, less, [&](u64 o, u64 k) { put(o0 + o, k); });
  merge_run(a, na, b, nb, i1, j1, end1 - o1, less, [&](u64 o, u64 k) { put(o1 + o, k); });
}
#endif

// Outputs [begin, begin + count) of the merge of the runs at `at` of buffer x: a of
// na elements, b right after it of nb; put(o, index in x) for output begin + o. On the
// CPU the two halves of merge_pair_least outputs or more merge in lockstep
// (merge_run_pair); a GPU thread merges its share alone, beside the other threads.
template <class Buffer, class Less, class Put>
STUBJIT_HD void merge_outputs(const Buffer& x, u64 at, u64 na, u64 nb, u64 begin, u64 count,
                              Less less, const Put& put) {
  const auto* a = x.keys + at;
  const auto* b = a + na;
  const auto put_x = [&](u64 o, u64 k) { put(o, at + k); };
#if !defined(STUBJIT_DEVICE_COMPILER)
  // Short shares (a part's first merges by a custom order, sort_run) in one chain: the
  // second search would cost more than the lockstep saves.
  if (count >= merge_pair_least) {
    const u64 half = count / 2;
    const u64 i0 = merge_split(a, na, b, nb, begin, less);
    const u64 i1 = merge_split(a, na, b, nb, begin + half, less);
    merge_run_pair(a, na, b, nb, i0, begin - i0, half, i1, begin + half - i1, count - half, less,
                   put_x);
    return;
  }
#endif
  const u64 i = merge_split(a, na, b, nb, begin, less);
  merge_run(a, na, b, nb, i, begin - i, count, less, put_x);
}

// Sorts the n elements of buffer x at `at` by insertion, stably (runs short enough
// that shifting costs less than merging).
template <class Buffer, class Less>
STUBJIT_HD void insertion_sort(Buffer& x, u64 at, u64 n, Less less) {
  for (u64 i = 1; i < n; ++i) {
    const auto record = x.load(at + i);
    u64 k = i;
    while (k > 0 && less(record.key, x.keys[at + k - 1])) {
      x.move(at + k, x, at + k - 1);
      --k;
    }
    x.store(at + k, record);
  }
}

// Sorts the n elements of buffer x at `at` stably by their radix bits (least significant
// byte first: an LSD radix sort), with y's positions [at, at + n) as room: the result
// in x. Radix: `bits`, an unsigned type whose order is the sort's, and bits(key), equal
// for keys the order holds equal (NaNs, -0 and +0). One pass counts every byte's
// digits; then a pass a byte moves each element to its digit's next position, in order
// (stable), but a byte every key shares moves nothing and is skipped. The CPU's sort
// of a part with a built-in order: a pass a byte costs less than the log2(n) passes of
// comparing merges. The counts take 2 KiB of the thread's stack per byte of a key
// (16 KiB for 8-byte keys): a host worker's, or the launching thread's where a dispatch
// runs on it.
template <class Buffer, class Radix>
STUBJIT_HD void radix_sort_run(Buffer& x, Buffer& y, u64 at, u64 n, Radix radix) {
  typedef typename Radix::bits bits;
  constexpr int bytes = int(sizeof(bits));
  if (n < 2) return;
  u64 counts[bytes][256];
  for (int d = 0; d < bytes; ++d)
    for (int b = 0; b < 256; ++b) counts[d][b] = 0;
  for (u64 k = at; k < at + n; ++k) {
    const bits r = radix(x.keys[k]);
    for (int d = 0; d < bytes; ++d) ++counts[d][(r >> (8 * d)) & 255];
  }
  Buffer* from = &x;
  Buffer* to = &y;
  for (int d = 0; d < bytes; ++d) {
    u64* const next = counts[d];
    if (next[(radix(from->keys[at]) >> (8 * d)) & 255] == n) continue;
    u64 start = at;
    for (int b = 0; b < 256; ++b) {
      const u64 count = next[b];
      next[b] = start;
      start += count;
    }
    for (u64 k = at; k < at + n; ++k)
      to->move(next[(radix(from->keys[k]) >> (8 * d)) & 255]++, *from, k);
    Buffer* const swap = from;
    from = to;
    to = swap;
  }
  if (from != &x)
    for (u64 k = at; k < at + n; ++k) x.move(k, y, k);
}

// Runs of this many elements are sorted by insertion before a run is merged.
constexpr u64 sort_insertion_run = 16;

// Sorts the n elements of buffer x at `at` stably, one thread alone, with y's
// positions [at, at + n) as room to merge into: the result in x.
template <class Buffer, class Less>
STUBJIT_HD void sort_run(Buffer& x, Buffer& y, u64 at, u64 n, Less less) {
  for (u64 s = 0; s < n; s += sort_insertion_run)
    insertion_sort(x, at + s, min_of(sort_insertion_run, n - s), less);
  Buffer* from = &x;
  Buffer* to = &y;
  for (u64 width = sort_insertion_run; width < n; width *= 2) {
    for (u64 s = 0; s < n; s += 2 * width) {
      const u64 na = min_of(width, n - s);
      const u64 nb = min_of(width, n - s - na);
      merge_outputs(*from, at + s, na, nb, 0, na + nb, less,
                    [&](u64 o, u64 k) { to->move(at + s + o, *from, k); });
    }
    Buffer* const swap = from;
    from = to;
    to = swap;
  }
  if (from != &x)
    for (u64 k = at; k < at + n; ++k) x.move(k, y, k);
}

}  // namespace stubjit

#endif  // STUBJIT_SORT_H
