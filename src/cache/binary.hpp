// A compiled stub as a toolchain produces it, a device loads it and the binary stores
// (memory, disk) keep it: opaque bytes and the name of their format.
#pragma once

#include <string>
#include <vector>

namespace stubjit::detail {

struct Binary {
  std::string format;  // "elf-shared-object", "cubin", "ptx", "amdgpu-code-object", ...
  std::vector<char> bytes;
};

}  // namespace stubjit::detail
