// Whether source text may name something: a conservative substring scan, for choices
// that must never be wrong in one direction (leave out a prelude header the user's
// code uses, compile with NVRTC's -minimal code that needs what it omits).
#pragma once

#include <string_view>
#include <vector>

namespace stubjit::detail {

// Whether `text` may name one of `names`: one of them occurs anywhere in it (inside
// another identifier, a comment or a literal too), or it could form or bring in a
// name without spelling it (## or %:%:, a backslash-newline, \u or \U, an include,
// import or embed).
bool text_may_name(std::string_view text, const std::vector<std::string_view>& names);

}  // namespace stubjit::detail
