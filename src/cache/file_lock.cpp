#include "cache/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

namespace stubjit::detail {

namespace {

// Locks the whole file (byte < 0) or one byte of it, without waiting.
bool try_lock(int fd, std::int64_t byte) {
  if (byte < 0) return ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  struct flock range {};
  range.l_type = F_WRLCK;
  range.l_whence = SEEK_SET;
  range.l_start = static_cast<off_t>(byte);
  range.l_len = 1;
  return ::fcntl(fd, F_OFD_SETLK, &range) == 0;
}

bool held_by_another(int error) {
  return error == EWOULDBLOCK || error == EAGAIN || error == EACCES;
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
  // Neither lock has a timed wait: poll with a growing pause (1 ms up to 25 ms), short
  // against a compile, cheap while another process compiles.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    if (try_lock(fd, byte)) {
      fd_ = fd;
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
      timed_out_(other.timed_out_) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    byte_ = other.byte_;
    problem_ = std::move(other.problem_);
    timed_out_ = other.timed_out_;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() noexcept {
  if (fd_ < 0) return;
  // Unlocked explicitly, not by the close: both kinds belong to the open file
  // description, which a fork shares with the child (O_CLOEXEC acts at exec only), and
  // a close releases them only when the last descriptor of it closes. A child that
  // inherited a pending write's lock must not keep the parent's key locked.
  if (byte_ < 0) {
    ::flock(fd_, LOCK_UN);
  } else {
    struct flock range {};
    range.l_type = F_UNLCK;
    range.l_whence = SEEK_SET;
    range.l_start = static_cast<off_t>(byte_);
    range.l_len = 1;
    ::fcntl(fd_, F_OFD_SETLK, &range);
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace stubjit::detail
