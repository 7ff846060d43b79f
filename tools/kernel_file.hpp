// Kernel description files for `stubjit dump-stub` (JSON; format in docs/cli.md).
#pragma once

#include <string>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit::tool {

// A description file that cannot be read or does not follow the format.
class KernelFileError : public Error {
 public:
  using Error::Error;
};

struct KernelDescription {
  KernelSource source;
  // One per parameter: scalar and index parameters have theirs; a field parameter
  // is a projection (a field of rank domain rank + parameter rank) unless the file
  // says "broadcast".
  std::vector<Binding> bindings;
};

// Parses the JSON text; `origin` names it in errors. Throws KernelFileError.
KernelDescription parse_kernel_description(const std::string& text, const std::string& origin);
// Reads and parses a file ("-" for standard input).
KernelDescription read_kernel_description(const std::string& path);

}  // namespace stubjit::tool
