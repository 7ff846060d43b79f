#include "support/compile_trace.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

void append_line(const char* event, std::int64_t wait_ns, unsigned cap, const std::string& kernel) {
  const std::string path = env_or("STUBJIT_COMPILE_TRACE", "");
  if (path.empty()) return;
  const std::string line = std::string(event) + " pid=" + std::to_string(::getpid()) +
                           " tid=" + std::to_string(::syscall(SYS_gettid)) +
                           " t_ns=" + std::to_string(steady_ns()) +
                           " wait_ns=" + std::to_string(wait_ns) + " cap=" + std::to_string(cap) +
                           " kernel=" + kernel + "\n";
  // Opened per line: a compile takes milliseconds, an open microseconds. O_NONBLOCK:
  // a FIFO without a reader fails instead of stopping the compile.
  const int fd =
      ::open(path.c_str(),
             O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
  const bool written =
      fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const std::string problem = written ? std::string() : std::strerror(errno);
  if (fd >= 0) ::close(fd);
  if (written) return;
  static std::once_flag warned;
  std::call_once(warned, [&] {
    logger().warn("cannot write the compile trace to {} (STUBJIT_COMPILE_TRACE): {}", path,
                  problem);
  });
}

}  // namespace

void trace_compile(const char* event, std::int64_t wait_ns, unsigned cap,
                   const std::string& kernel) noexcept {
  try {
    append_line(event, wait_ns, cap, kernel);
  } catch (...) {  // out of memory for a diagnostic line: the compile goes on without it
  }
}

}  // namespace stubjit::detail
