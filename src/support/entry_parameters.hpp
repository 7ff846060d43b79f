// How a stub's entry takes its values: the calling convention of one stub, written by
// the stub writer (which declares the entry) and read by the GPU backends (which fill
// the driver's kernel-parameter array from it).
//
// Empty: the entry takes two parameters, the packed arguments (bind/arg_layout.hpp)
// and the LaunchParams (kernels/stubjit/launch.h), each by value. Otherwise the entry
// takes one parameter per element, in order: `size` bytes at `offset` in the packed
// arguments or in the LaunchParams. NVRTC compiles an entry of a few scalar
// parameters measurably faster than one of two structs (docs/performance.md).
#pragma once

#include <cstdint>
#include <vector>

namespace stubjit::detail {

struct EntryParameter {
  enum class Source : std::uint8_t { arguments, launch };
  Source source = Source::arguments;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;

  bool operator==(const EntryParameter& other) const {
    return source == other.source && offset == other.offset && size == other.size;
  }
};

using EntryParameters = std::vector<EntryParameter>;

}  // namespace stubjit::detail
