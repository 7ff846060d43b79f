// A per-key advisory lock between processes (flock on a lock file beside the entry),
// taken with a timeout. It only avoids duplicate compiles: entries are published by
// rename and verified on load, so nothing depends on holding it.
#pragma once

#include <chrono>
#include <string>

namespace stubjit::detail {

class FileLock {
 public:
  FileLock() = default;
  // Waits up to `timeout` for an exclusive lock on `path` (created 0600 if missing).
  // held() tells whether it was had; a lock that could not be had is no error.
  FileLock(const std::string& path, std::chrono::milliseconds timeout);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  bool held() const noexcept { return fd_ >= 0; }
  // The locked file, open for reading and writing (-1 when not held): the eviction
  // lock keeps the cache's size record in it.
  int descriptor() const noexcept { return fd_; }
  // Why the lock was not had ("" when held).
  const std::string& problem() const noexcept { return problem_; }
  // The lock was not had because another holder kept it past the timeout (rather
  // than because the lock file could not be opened or locked at all).
  bool timed_out() const noexcept { return timed_out_; }

 private:
  void release() noexcept;
  int fd_ = -1;
  std::string problem_;
  bool timed_out_ = false;
};

}  // namespace stubjit::detail
