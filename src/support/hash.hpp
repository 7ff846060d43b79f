// Content hashing for cache keys (XXH3 from the system's xxhash.h, inlined).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stubjit::detail {

std::uint64_t hash64(std::string_view bytes);
// 16 lowercase hex digits.
std::string hex64(std::uint64_t value);

}  // namespace stubjit::detail
