// An advisory lock between processes, taken with a timeout: a whole file (flock; the
// eviction lock), or one byte of a file shared by many locks (an open file description
// lock, fcntl F_OFD_SETLK; the compile locks, one byte per key in <root>/.build.lock,
// so a compile creates no file for its lock). The compile locks only avoid duplicate
// compiles: entries are published by rename and verified on load, so nothing depends
// on holding them.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace stubjit::detail {

class FileLock {
 public:
  FileLock() = default;
  // Waits up to `timeout` for an exclusive lock on `path` (created 0600 if missing).
  // held() tells whether it was had; a lock that could not be had is no error.
  FileLock(const std::string& path, std::chrono::milliseconds timeout);
  // Waits up to `timeout` for an exclusive lock on byte `byte` (its low 62 bits) of `path`
  // (created 0600 if missing). Each such lock opens the file anew: locks are per open
  // file description, so two of them exclude each other within one process as
  // between processes, and releasing one leaves the others.
  static FileLock on_byte(const std::string& path, std::uint64_t byte,
                          std::chrono::milliseconds timeout);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  bool held() const noexcept { return fd_ >= 0; }
  // The locked file, open for reading and writing (-1 when not held): the eviction
  // lock keeps the cache's size record in it. A file that is not a regular file of
  // the user's with one name is never locked (not held, with a problem).
  int descriptor() const noexcept { return fd_; }
  // Why the lock was not had ("" when held).
  const std::string& problem() const noexcept { return problem_; }
  // The lock was not had because another holder kept it past the timeout (rather
  // than because the lock file could not be opened or locked at all).
  bool timed_out() const noexcept { return timed_out_; }

 private:
  // byte < 0: the whole file.
  FileLock(const std::string& path, std::chrono::milliseconds timeout, std::int64_t byte);
  void release() noexcept;
  int fd_ = -1;
  std::int64_t byte_ = -1;  // the locked byte; -1: the whole file (flock)
  std::string problem_;
  bool timed_out_ = false;
};

}  // namespace stubjit::detail
