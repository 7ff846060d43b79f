// stubjit's logger: spdlog to stderr, quiet by default (warnings and errors only).
// STUBJIT_LOG=trace|debug|info|warn|error|off sets the level.
#pragma once

#include <spdlog/logger.h>

namespace stubjit::detail {

spdlog::logger& logger();

}  // namespace stubjit::detail
