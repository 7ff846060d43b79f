// "30d", "12h", "90m", "45s" or plain seconds, for `cache clear --older-than`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stubjit::tool {

std::optional<std::int64_t> parse_duration_seconds(const std::string& text);

}  // namespace stubjit::tool
