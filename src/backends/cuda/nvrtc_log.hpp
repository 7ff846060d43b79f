// NVRTC's diagnostics in the form every stubjit backend reports.
#pragma once

#include <string>

namespace stubjit::detail {

// NVRTC writes a diagnostic as "file(line): error: message", then the offending
// source line and a caret under the column. This rewrites each diagnostic's first
// line to "file:line:col: error: message" (Clang's form, which CompileError
// documents), taking the column from the caret; without a caret the column is left
// out ("file:line: error: ..."). Every other line is kept as it is.
std::string normalize_nvrtc_log(const std::string& log);

}  // namespace stubjit::detail
