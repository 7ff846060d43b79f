// Kernel description files for `stubjit dump-stub` and `stubjit cache prewarm` (JSON;
// format in docs/cli.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stubjit/domain.hpp"

#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit::tool {

// A description file that cannot be read or does not follow the format.
class KernelFileError : public Error {
 public:
  using Error::Error;
};

// One launch for `stubjit cache prewarm` to prepare: the domain, a forced mode, and
// extents for the fields whose default shape does not fit (by parameter name).
struct LaunchDescription {
  std::vector<Dim> domain;
  std::optional<Mode> mode;
  std::map<std::string, std::vector<std::int64_t>> extents;
};

struct KernelDescription {
  KernelSource source;
  // One per parameter: scalar and index parameters have theirs; a field parameter
  // is a projection (a field of rank domain rank + parameter rank) unless the file
  // says "broadcast".
  std::vector<Binding> bindings;
  // "launches": what prewarm prepares (dump-stub ignores them).
  std::vector<LaunchDescription> launches;
};

// Parses the JSON text; `origin` names it in errors. Throws KernelFileError.
KernelDescription parse_kernel_description(const std::string& text, const std::string& origin);
// Reads and parses a file ("-" for standard input).
KernelDescription read_kernel_description(const std::string& path);

// A file of one kernel description or {"kernels": [descriptions]}; throws
// KernelFileError.
std::vector<KernelDescription> parse_kernel_list(const std::string& text,
                                                 const std::string& origin);
std::vector<KernelDescription> read_kernel_list(const std::string& path);

}  // namespace stubjit::tool
