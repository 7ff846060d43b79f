// What a kernel's body is run for, one value per pattern (DESIGN.md's data flow).
#pragma once

#include <cstdint>

namespace stubjit::detail {

// forall: once per index of the domain. tiled: once per index, tile by tile (a launch
// with LaunchOptions::tile; a group of threads per tile). group: once per group, one
// group per index of the domain (a kernel with a group parameter). reduce: once per
// index, the values its body yields combined (a kernel with a result parameter,
// docs/patterns.md). A scan (a kernel with a scan parameter) runs in two stages on
// the CPU: scan_partials, each group's part reduced to a partial (only where a segment
// has several parts), then scan, each group's prefix from the partials before it and
// its part scanned; on a GPU in one, scan, each group's prefix from the parts before it
// as they publish theirs. A sort (a kernel with a sort parameter) runs sort_runs, each group's
// part of a pencil evaluated and sorted into a run, then (only where a segment has
// several parts) sort_merge passes, each merging pairs of runs, the last into the
// fields (docs/patterns.md).
enum class Pattern : std::uint8_t {
  forall,
  tiled,
  group,
  reduce,
  scan_partials,
  scan,
  sort_runs,
  sort_merge
};

// The patterns whose stubs combine values (the combiner's functions, reduce.h, the
// launch's ReduceParams after the arguments).
inline bool combines_values(Pattern pattern) noexcept {
  return pattern == Pattern::reduce || pattern == Pattern::scan_partials ||
         pattern == Pattern::scan;
}

// The stages of a sort (sort.h, the launch's SortParams after the arguments).
inline bool sorts_values(Pattern pattern) noexcept {
  return pattern == Pattern::sort_runs || pattern == Pattern::sort_merge;
}

// The patterns whose stubs work along one dimension of the domain (or the whole of it):
// StubRequest::reduce_dimension is part of their identity.
inline bool works_along(Pattern pattern) noexcept {
  return combines_values(pattern) || sorts_values(pattern);
}

inline const char* name_of(Pattern pattern) noexcept {
  switch (pattern) {
    case Pattern::forall:
      return "forall";
    case Pattern::tiled:
      return "tiled";
    case Pattern::group:
      return "group";
    case Pattern::reduce:
      return "reduce";
    case Pattern::scan_partials:
      return "scan_partials";
    case Pattern::scan:
      return "scan";
    case Pattern::sort_runs:
      return "sort_runs";
    case Pattern::sort_merge:
      return "sort_merge";
  }
  return "?";
}

}  // namespace stubjit::detail
