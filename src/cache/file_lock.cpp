#include "cache/file_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

namespace stubjit::detail {

namespace {

std::atomic<int> simulated_failure{0};

// Locks (F_WRLCK) or unlocks (F_UNLCK) the whole file (byte < 0: from offset 0, length
// 0, which reaches to any end) or one byte of it, without waiting.
bool set_lock(int fd, std::int64_t byte, short type) {
  if (const int error = simulated_failure.load(std::memory_order_relaxed);
      error && type != F_UNLCK) {
    errno = error;
    return false;
  }
  struct flock range {};
  range.l_type = type;
  range.l_whence = SEEK_SET;
  range.l_start = static_cast<off_t>(byte < 0 ? 0 : byte);
  range.l_len = byte < 0 ? 0 : 1;
  return ::fcntl(fd, F_OFD_SETLK, &range) == 0;
}

bool held_by_another(int error) {
  return error == EWOULDBLOCK || error == EAGAIN || error == EACCES;
}

// The file system cannot lock (see FileLock::unsupported).
bool locks_unsupported(int error) {
  return error == ENOLCK || error == EOPNOTSUPP || error == ENOTSUP || error == ENOSYS ||
         error == EINVAL;
}

}  // namespace

FileLock::FileLock(const std::string& path, std::chrono::milliseconds timeout)
    : FileLock(path, timeout, -1) {}

FileLock FileLock::on_byte(const std::string& path, std::uint64_t byte,
                           std::chrono::milliseconds timeout) {
  return FileLock(path, timeout, static_cast<std::int64_t>(byte & ((std::uint64_t(1) << 62) - 1)));
}

FileLock::FileLock(const std::string& path, std::chrono::milliseconds timeout, std::int64_t byte) {
  const int fd =
      ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0600);
  if (fd < 0) {
    problem_ = "cannot open " + path + ": " + std::strerror(errno);
    return;
  }
  // Only a regular file of the user's with no other name: a FIFO, a device or a hard
  // link to another file planted under the name is neither locked nor written (the
  // eviction lock writes its size record).
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid() ||
      info.st_nlink > 1) {
    problem_ = "cannot lock " + path +
               ": not a regular file of the user's with one name (remove it to restore the lock)";
    ::close(fd);
    return;
  }
  // There is no timed wait: poll with a growing pause (1 ms up to 25 ms), short
  // against a compile, cheap while another process compiles.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    if (set_lock(fd, byte, F_WRLCK)) {
      fd_ = fd;
      byte_ = byte;
      return;
    }
    if (locks_unsupported(errno)) {
      problem_ = "the file system cannot lock " + path + ": " + std::strerror(errno);
      unsupported_ = true;
      fd_ = fd;  // kept open for a lock-free holder
      byte_ = byte;
      return;
    }
    if (!held_by_another(errno) && errno != EINTR) {
      problem_ = "cannot lock " + path + ": " + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      problem_ = "timed out waiting for the lock on " + path;
      timed_out_ = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(25));
  }
  ::close(fd);
}

FileLock::FileLock(FileLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      byte_(other.byte_),
      problem_(std::move(other.problem_)),
      timed_out_(other.timed_out_),
      unsupported_(other.unsupported_) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    byte_ = other.byte_;
    problem_ = std::move(other.problem_);
    timed_out_ = other.timed_out_;
    unsupported_ = other.unsupported_;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Unlocked explicitly, not by the close: the lock belongs to the open file
  // description, which a fork shares with the child (O_CLOEXEC acts at exec only), and
  // a close releases it only when the last descriptor of it closes. A child that
  // inherited a pending write's lock must not keep the parent's key locked.
  if (!unsupported_) set_lock(fd_, byte_, F_UNLCK);
  ::close(fd_);
  fd_ = -1;
}

void simulate_lock_failure_for_tests(int error) noexcept {
  simulated_failure.store(error, std::memory_order_relaxed);
}

}  // namespace stubjit::detail
