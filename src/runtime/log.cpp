#include "runtime/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include "runtime/env.hpp"

namespace stubjit::detail {

spdlog::logger& logger() {
  // Not registered with spdlog's global registry: the application's loggers and
  // ours stay independent.
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto log = std::make_shared<spdlog::logger>("stubjit",
                                                std::make_shared<spdlog::sinks::stderr_sink_mt>());
    log->set_pattern("[stubjit] [%l] %v");
    const std::string level = env_or("STUBJIT_LOG", "warn");
    log->set_level(spdlog::level::from_str(level));
    return log;
  }();
  return *instance;
}

}  // namespace stubjit::detail
