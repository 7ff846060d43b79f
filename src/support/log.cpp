#include "support/log.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <string>

#include "support/env.hpp"

namespace stubjit::detail {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace:
      return spdlog::level::trace;
    case LogLevel::debug:
      return spdlog::level::debug;
    case LogLevel::info:
      return spdlog::level::info;
    case LogLevel::warn:
      return spdlog::level::warn;
    case LogLevel::error:
      return spdlog::level::err;
    case LogLevel::off:
      break;
  }
  return spdlog::level::off;
}

LogLevel from_spdlog(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return LogLevel::trace;
    case spdlog::level::debug:
      return LogLevel::debug;
    case spdlog::level::info:
      return LogLevel::info;
    case spdlog::level::warn:
      return LogLevel::warn;
    case spdlog::level::err:
    case spdlog::level::critical:
      return LogLevel::error;
    default:
      return LogLevel::off;
  }
}

spdlog::logger& sink() {
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

}  // namespace

bool Logger::should_log(LogLevel level) const noexcept {
  try {
    return level != LogLevel::off && sink().should_log(to_spdlog(level));
  } catch (...) {  // the logger could not be made (no memory): nothing is written
    return false;
  }
}

LogLevel Logger::level() const { return from_spdlog(sink().level()); }

void Logger::set_level(LogLevel level) { sink().set_level(to_spdlog(level)); }

void Logger::write(LogLevel level, fmt::string_view format, fmt::format_args args) noexcept {
  // Logging never throws: it runs in destructors and on error paths. A message that
  // does not format (a bug of ours) is written as it is; one that cannot be made or
  // written at all (no memory) is dropped.
  try {
    std::string message;
    try {
      message = fmt::vformat(format, args);
    } catch (const fmt::format_error& error) {
      message = std::string(format.data(), format.size()) + " (unformatted: " + error.what() + ")";
    }
    sink().log(to_spdlog(level), spdlog::string_view_t(message.data(), message.size()));
  } catch (...) {
  }
}

Logger& logger() {
  static Logger instance;
  return instance;
}

}  // namespace stubjit::detail
