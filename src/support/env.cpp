#include "support/env.hpp"

#include <cstdlib>

namespace stubjit::detail {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

}  // namespace stubjit::detail
