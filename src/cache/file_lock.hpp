// An advisory lock between processes, taken with a timeout: an open file description
// lock (fcntl F_OFD_SETLK, Linux 3.15 and later) on a whole file (the eviction lock) or
// on one byte of a file shared by many locks (the compile locks, one byte per key in
// <root>/.build.lock, so a compile creates no file for its lock). Not flock: on NFS,
// flock is either emulated with these same byte-range locks or, mounted with
// local_lock=flock, only local to the node; fcntl locks are the ones that NFS (lockd,
// NFSv4), Lustre (-o flock) and GPFS coordinate between nodes (docs/cluster.md,
// "Locking"). The locks only avoid duplicate work: entries are published by rename and
// verified on load, so nothing depends on holding them, and a file system without
// locks (unsupported()) only costs duplicate compiles.
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

  bool held() const noexcept { return fd_ >= 0 && !unsupported_; }
  // The locked file, open for reading and writing (-1 when neither held nor
  // unsupported()): the eviction lock keeps the cache's size record in it. A file that is not a
  // regular file of the user's with one name is never locked (not held, with a problem).
  int descriptor() const noexcept { return fd_; }
  // Why the lock was not had ("" when held).
  const std::string& problem() const noexcept { return problem_; }
  // The lock was not had because another holder kept it past the timeout (rather
  // than because the lock file could not be opened or locked at all).
  bool timed_out() const noexcept { return timed_out_; }
  // The file system refused to lock at all (ENOLCK: NFS without a lock manager;
  // EOPNOTSUPP, ENOSYS: Lustre mounted with noflock, some FUSE file systems; EINVAL: a
  // kernel or file system without OFD locks): not held, and asking again would not
  // help. The file stays open (descriptor()), so that its holder can go on lock-free.
  bool unsupported() const noexcept { return unsupported_; }

 private:
  // byte < 0: the whole file.
  FileLock(const std::string& path, std::chrono::milliseconds timeout, std::int64_t byte);
  void release() noexcept;
  int fd_ = -1;
  std::int64_t byte_ = -1;  // the locked byte; -1: the whole file
  std::string problem_;
  bool timed_out_ = false;
  bool unsupported_ = false;
};

// For tests only: every lock taken from now on fails as the file system would with
// `error` (ENOLCK, EOPNOTSUPP, ...); 0 restores real locks. No file system on a test
// machine refuses locks on demand.
void simulate_lock_failure_for_tests(int error) noexcept;

}  // namespace stubjit::detail
