// A real binary from a GPU toolchain whose entry takes what stubjit's two-struct entries
// take (8 bytes of packed arguments, then the launch parameters, both by value; the
// backends launch it with an empty EntryParameters): for the tests
// of the CUDA and HIP backends against their fakes, which read the images they load.
#pragma once

#include <string>
#include <vector>

#include "backends/toolchain.hpp"
#include "stubjit/launch.h"

namespace stubjit::test {

inline detail::Binary binary_with_stub_entry(const detail::Toolchain& toolchain,
                                             const std::string& entry,
                                             const std::string& extension) {
  const std::string source = "struct Args { long long a; };\nstruct Lp { long long words[" +
                             std::to_string(sizeof(LaunchParams) / 8) +
                             "]; };\nextern \"C\" __global__ void " + entry +
                             "(const Args, const Lp) {}\n";
  const std::string file = entry + extension;
  const std::vector<std::string> options;
  return toolchain.compile({source, file, entry, entry, options});
}

}  // namespace stubjit::test
