// stubjit device-side prelude: sort stubs (docs/patterns.md).
//
// A sort launch sorts each segment (a pencil along the dimension sorted) stably, in
// stages over two buffers of the launch's scratch, each holding every segment's
// elements densely (keys, then each payload, an array each):
//   sort_runs   group g evaluates part g % parts of segment g / parts (the body run
//               per element) into buffer `to` and sorts it there: a run (where a
//               segment is one part, into the fields: then no merge pass follows).
//   sort_merge  merges the runs of `width` elements of buffer `from` in pairs into
//               buffer `to` or, in the last pass, into the fields.
// A merge is stable: of keys that compare equal, the left run's go first. Each group
// (and on a GPU each thread) finds where its share of a merge's output starts by a
// binary search along the merge path (merge_split), then merges sequentially
// (merge_run): no group waits for another.
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

// `count` outputs of the merge of a[0, na) and b[0, nb) from its position (i, j) on:
// put(o, from_b, index) for output o of them, in order.
template <class Key, class Less, class Put>
STUBJIT_HD void merge_run(const Key* a, u64 na, const Key* b, u64 nb, u64 i, u64 j, u64 count,
                          Less less, const Put& put) {
  u64 o = 0;
  // While both runs have keys left: one comparison per output. Then the rest of
  // whichever run is left, without comparing.
  while (o < count && i < na && j < nb) {
    if (less(b[j], a[i])) {
      put(o++, true, j++);
    } else {
      put(o++, false, i++);
    }
  }
  while (o < count && i < na) put(o++, false, i++);
  while (o < count && j < nb) put(o++, true, j++);
}

// Outputs [begin, begin + count) of the merge of the runs at `at` of buffer x: a of
// na elements, b right after it of nb; put(o, index in x) for output begin + o.
template <class Buffer, class Less, class Put>
STUBJIT_HD void merge_outputs(const Buffer& x, u64 at, u64 na, u64 nb, u64 begin, u64 count,
                              Less less, const Put& put) {
  const auto* a = x.keys + at;
  const auto* b = a + na;
  const u64 i = merge_split(a, na, b, nb, begin, less);
  merge_run(a, na, b, nb, i, begin - i, count, less,
            [&](u64 o, bool from_b, u64 k) { put(o, at + (from_b ? na + k : k)); });
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
