#include "plan/reduce_plan.hpp"

#include <algorithm>

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

u64 div_ceil(u64 a, u64 b) { return a / b + (a % b != 0 ? 1 : 0); }

// Segments of more than min_part values split while there are fewer than `target`,
// into at most max_parts parts.
ReduceLayout split_layout(u64 segments, u64 length, u64 min_part, u64 target) {
  ReduceLayout layout;
  layout.segments = segments;
  layout.length = length;
  if (segments == 0 || length == 0) return layout;  // one group per segment, nothing to split
  u64 parts = 1;
  if (segments < target && length > min_part) {
    parts = std::min({div_ceil(target, segments), div_ceil(length, min_part), max_parts});
  }
  layout.part_length = div_ceil(length, parts);
  // No empty part: as many as the part length needs.
  layout.parts = div_ceil(length, layout.part_length);
  return layout;
}

}  // namespace

ReduceLayout reduce_layout(u64 segments, u64 length, std::uint32_t group_threads) {
  const bool host = group_threads == 0;
  return split_layout(segments, length,
                      host ? host_min_part : u64(group_threads) * device_values_per_thread,
                      host ? host_target_groups : device_target_groups);
}

ReduceLayout scan_layout(u64 segments, u64 length, std::uint32_t group_threads) {
  ReduceLayout layout = reduce_layout(segments, length, group_threads);
  if (group_threads == 0 || layout.parts == 1) return layout;
  layout.part_length = u64(group_threads) * device_scan_thread_values;
  layout.parts = div_ceil(length, layout.part_length);
  return layout;
}

ReduceLayout sort_layout(u64 segments, u64 length, std::uint32_t group_threads,
                         unsigned host_workers) {
  if (group_threads == 0)
    return split_layout(
        segments, length, host_min_part,
        std::max(host_sort_min_target, host_sort_parts_per_worker * u64(host_workers)));
  ReduceLayout layout;
  layout.segments = segments;
  layout.length = length;
  if (segments == 0 || length == 0) return layout;
  layout.part_length = u64(group_threads) * device_sort_thread_run;
  layout.parts = div_ceil(length, layout.part_length);
  return layout;
}

}  // namespace stubjit::detail
