// What a kernel's body is run for, one value per pattern (DESIGN.md's data flow).
#pragma once

#include <cstdint>

namespace stubjit::detail {

// forall: once per index of the domain. tiled: once per index, tile by tile (a launch
// with LaunchOptions::tile; a group of threads per tile). group: once per group, one
// group per index of the domain (a kernel with a group parameter). reduce: once per
// index, the values its body yields combined (a kernel with a result parameter,
// docs/patterns.md). A scan (a kernel with a scan parameter) runs in two stages:
// scan_partials, each group's part reduced to a partial (only where a segment has
// several parts), then scan, each group's prefix from the partials before it and its
// part scanned. The sort pattern will be another value.
enum class Pattern : std::uint8_t { forall, tiled, group, reduce, scan_partials, scan };

// The patterns whose stubs combine values (the combiner's functions, reduce.h, the
// launch's ReduceParams after the arguments).
inline bool combines_values(Pattern pattern) noexcept {
  return pattern == Pattern::reduce || pattern == Pattern::scan_partials ||
         pattern == Pattern::scan;
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
  }
  return "?";
}

}  // namespace stubjit::detail
