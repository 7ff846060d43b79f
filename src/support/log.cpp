#include "support/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include "support/env.hpp"

namespace stubjit::detail {

spdlog::logger& logger() {
  // Not registered with spdlog's global registry: the application's loggers and
  // ours stay independent.
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto log = std::make_shared<spdlog::logger>("stubjit",
                                                std::make_shared<spdlog::sinks::stderr_sink_mt>());
    log->set_pattern("[stubjit] [%l] %v");
    const std::string level = env_or("STUBJIT_LOG", "warn");
    // spdlog reads an unknown name as "off", which would hide the warnings users rely
    // on: keep the default level and say so instead.
    const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
    if (parsed == spdlog::level::off && level != "off") {
      log->set_level(spdlog::level::warn);
      log->warn("STUBJIT_LOG={} is not a level (trace, debug, info, warn, error, off); using warn",
                level);
    } else {
      log->set_level(parsed);
    }
    return log;
  }();
  return *instance;
}

}  // namespace stubjit::detail
