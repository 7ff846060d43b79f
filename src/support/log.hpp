// stubjit's logger: spdlog to stderr, quiet by default (warnings and errors only).
// STUBJIT_LOG=trace|debug|info|warn|error|off sets the level.
//
// Only fmt's core header is seen here: a message's arguments are packed where it is
// logged and formatted in log.cpp, the one file that includes spdlog (and fmt's
// implementation, header-only so that no shared library of theirs is loaded at start).
// spdlog with header-only fmt cost about 12 s of compile time in each file that logs.
// So no other file may call fmt's formatting functions (fmt::format, fmt::vformat):
// they are defined in log.cpp alone, inline, and would link only by chance. Packing
// arguments (make_format_args) is all the header does.
#pragma once

#include <fmt/core.h>

#include <string_view>
#include <utility>

namespace stubjit::detail {

enum class LogLevel { trace, debug, info, warn, error, off };

class Logger {
 public:
  // Whether a message of `level` would be written: for what is costly to describe.
  bool should_log(LogLevel level) const noexcept;
  LogLevel level() const;
  void set_level(LogLevel level);

  template <typename... Args>
  void trace(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::trace, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void debug(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::debug, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::info, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::warn, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::error, format, std::forward<Args>(args)...);
  }

 private:
  template <typename... Args>
  void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
    if (should_log(level)) write(level, format, fmt::make_format_args(args...));
  }
  void write(LogLevel level, fmt::string_view format, fmt::format_args args) noexcept;
};

Logger& logger();

}  // namespace stubjit::detail
