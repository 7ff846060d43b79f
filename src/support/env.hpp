// Environment variables stubjit reads (all documented in README.md).
#pragma once

#include <string>

namespace stubjit::detail {

// The variable's value, or `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);

}  // namespace stubjit::detail
