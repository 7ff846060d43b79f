// Checks on the user's code (a kernel's body and helpers) before it is compiled.
//
// Bodies are trusted code, but an accident must not look like success. The body is
// compiled inside the kernel's function and the helpers at file scope, after the stub's
// own code (stub_writer.cpp). These checks keep each where the stub puts it. The code
// is read as the preprocessor and compiler would tokenize it, skipping comments and
// string, character and raw string literals:
//   - braces, parentheses and brackets balance and nest, within each part, and within
//     the replacement of every #define;
//   - #if / #ifdef / #ifndef ... #endif balance; the branches of one conditional leave
//     the same nesting;
//   - #include and its kin (#include_next, #import, #embed) name only headers of the
//     toolchain, as <relative/path> without "..", unless the runtime was given include
//     directories, which then also admit "relative/path". An include through a macro
//     is refused: it cannot be checked. So a CompileError never carries the contents
//     of an arbitrary file.
#pragma once

#include <string>

#include "stubjit/kernel.hpp"

namespace stubjit::detail {

struct UserCodeRules {
  // The runtime has include directories (RuntimeOptions::include_directories).
  bool quoted_includes = false;
};

// Throws CompileError for `kernel` with a log in the user's own coordinates
// ("<kernel>.body:<line>:<col>: error: ...") and `stub_source` as its source.
void check_user_code(const KernelSource& kernel, const UserCodeRules& rules,
                     const std::string& stub_source);

}  // namespace stubjit::detail
