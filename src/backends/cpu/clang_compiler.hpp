// Clang as a library: C++ source to a relocatable object for the host CPU, in
// process (no subprocess, no temporary files).
#pragma once

#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace stubjit::detail {

// -O3 for the host CPU (-march=native), position independent. Throws CompileError
// with Clang's diagnostics on failure.
std::vector<char> compile_to_host_object(const CompileJob& job);

// e.g. "clang 14.0.6".
std::string clang_compiler_id();

}  // namespace stubjit::detail
