// What a kernel's body is run for, one value per pattern (DESIGN.md's data flow).
#pragma once

#include <cstdint>

namespace stubjit::detail {

// forall: once per index of the domain. tiled: once per index, tile by tile (a launch
// with LaunchOptions::tile; a group of threads per tile). group: once per group, one
// group per index of the domain (a kernel with a group parameter). reduce: once per
// index, the values its body yields combined (a kernel with a result parameter,
// docs/patterns.md). The scan and sort patterns will be other values.
enum class Pattern : std::uint8_t { forall, tiled, group, reduce };

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
  }
  return "?";
}

}  // namespace stubjit::detail
