// Clang as a library: C++ source to a relocatable object for the host CPU, in
// process (no subprocess, no temporary files).
#pragma once

#include <string>
#include <vector>

#include "backends/toolchain.hpp"

namespace stubjit::detail {

struct HostObject {
  std::vector<char> bytes;  // a relocatable ELF object
  std::string diagnostics;  // warnings and remarks Clang printed (empty when silent)
};

// -O3 for the host CPU (-march=native), position independent. Throws CompileError
// with Clang's diagnostics on failure.
HostObject compile_to_host_object(const CompileJob& job);

// e.g. "clang 14.0.6".
std::string clang_compiler_id();

}  // namespace stubjit::detail
