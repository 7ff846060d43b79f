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

// A scalar's value as the file writes it: a whole number (signed or beyond int64's
// range), a real one, true/false or [real, imaginary]. The launch converts it to the
// parameter's type.
struct ScalarValue {
  // complex: [real, imaginary], two numbers (for complex scalars only).
  enum class Kind : std::uint8_t { integer, unsigned_integer, real, boolean, complex };
  Kind kind = Kind::integer;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double real = 0;
  double imaginary = 0;
};

// One launch for `stubjit cache prewarm` to prepare: the domain, a forced mode, the
// dimension of a reduce or scan, extents for the fields whose default shape does not
// fit, and values for scalars (zero by default; what a specialized scalar's stub is
// compiled for), by parameter name.
struct LaunchDescription {
  std::vector<Dim> domain;
  Order order = Order::c;  // Fortran order: the placeholder fields are column-major
  std::optional<Mode> mode;
  int dimension = -1;  // a reduce or scan kernel's: LaunchOptions::reduce_dimension
  std::map<std::string, std::vector<std::int64_t>> extents;
  std::map<std::string, ScalarValue> values;
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
