// How a reduce launch shares its values among groups (kernels/stubjit/reduce.h): pure,
// like planner.cpp. The same numbers give the same layout, so the same launch on the
// same device combines in the same order every run.
#pragma once

#include <cstdint>

namespace stubjit::detail {

struct ReduceLayout {
  std::uint64_t segments = 0;     // the result's elements
  std::uint64_t length = 0;       // values each combines
  std::uint64_t parts = 1;        // groups per segment
  std::uint64_t part_length = 1;  // values per group (the last of a segment may have fewer)

  std::uint64_t groups() const noexcept { return segments * parts; }
};

// Values a group takes at least before a segment is split: enough that splitting pays
// for the partials' pass.
inline constexpr std::uint64_t host_min_part = std::uint64_t(1) << 15;
inline constexpr std::uint64_t device_values_per_thread = 16;
// Groups a launch aims at where segments are few: enough for every core or
// multiprocessor, and a host runner's balance.
inline constexpr std::uint64_t host_target_groups = 256;
inline constexpr std::uint64_t device_target_groups = 1024;
// Most parts of one segment (the last group combines them).
inline constexpr std::uint64_t max_parts = 1024;

// `group_threads`: a GPU group's threads; 0 where one host thread runs a group.
ReduceLayout reduce_layout(std::uint64_t segments, std::uint64_t length,
                           std::uint32_t group_threads);

// Values each GPU thread of a scan takes of a tile (codegen/scan_entries.cpp).
inline constexpr std::uint64_t device_scan_thread_values = 8;

// A scan's layout: a reduction's, except on a GPU where that splits a segment: parts of
// one tile each (the group's threads times device_scan_thread_values), as many as a
// segment needs (no most), which one pass scans (kernels/stubjit/reduce.h,
// scan_part_prefix).
ReduceLayout scan_layout(std::uint64_t segments, std::uint64_t length, std::uint32_t group_threads);

// Elements each GPU thread of a sort's first stage sorts on its own before its group
// merges the threads' runs (kernels/stubjit/sort.h).
inline constexpr std::uint64_t device_sort_thread_run = 8;

// Parts a host sort aims at per worker thread, and at least: a part sorts by radix or
// merges in one thread, the parts then merge in pairs, a pass over the memory per
// doubling, so the fewer the parts the fewer the passes, as long as every worker has
// parts to sort (two each: some slack for an uneven machine).
inline constexpr std::uint64_t host_sort_parts_per_worker = 2;
inline constexpr std::uint64_t host_sort_min_target = 4;

// A sort's layout: on a host a reduction's split (parts of at least host_min_part, at
// most max_parts), but aiming at host_sort_parts_per_worker parts per worker of
// `host_workers` (and at least host_sort_min_target) rather than host_target_groups;
// the parts are then merged in pairs, in passes, each group its part of a pass's
// output. A stable sort's result does not depend on its parts (given a strict weak
// order), so unlike a reduction's this layout may follow the machine. On a GPU parts of
// the group's threads times device_sort_thread_run elements, as many as a segment needs
// (no most: a merge pass needs no partials).
ReduceLayout sort_layout(std::uint64_t segments, std::uint64_t length, std::uint32_t group_threads,
                         unsigned host_workers);

}  // namespace stubjit::detail
