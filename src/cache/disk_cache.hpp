// The persistent cache of compiled stubs: one verified file per disk key under a
// private per-user root. Knows nothing vendor-specific: it stores a backend Binary.
// Thread-safe; safe between processes without readers taking any lock.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "cache/binary.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_key.hpp"
#include "cache/file_lock.hpp"

namespace stubjit::detail {

class DiskCache {
 public:
  // The cache under settings.root, created 0700 and tagged (cache_tag.hpp) if
  // missing; nullptr (memory-only, after one warning) when it is disabled, cannot be
  // created, is not private (owned by another user, group- or world-writable), or is
  // a directory that holds other things and no stubjit tag.
  static std::unique_ptr<DiskCache> open(DiskCacheSettings settings);

  const std::string& root() const { return settings_.root; }
  const DiskCacheSettings& settings() const { return settings_; }

  enum class Found : std::uint8_t { hit, miss, rejected };
  struct Lookup {
    Found found = Found::miss;
    Binary binary;  // on hit
  };
  // A hit only when the entry passes every check (see cache_entry.hpp) and its
  // file is private; anything else found under the key's name is rejected, reported
  // once at warning level, and will be replaced by the next store.
  Lookup load(const DiskKey& key);

  // For a verified entry the backend would not load: reports it like a bad entry.
  void reject(const DiskKey& key, const std::string& why);

  // The cross-process compile lock of a key: its byte of <root>/.build.lock (see
  // FileLock); not held when the key's directory or the lock file is unusable, or the
  // timeout passed. Once the file system has refused a lock as unsupported (NFS
  // without a lock manager, Lustre with noflock), this cache goes on lock-free: it
  // says so once (info level) and asks for no more locks, compile or eviction alike.
  FileLock lock(const DiskKey& key);

  // Publishes an entry atomically (replacing any previous one), then counts it and
  // evicts least recently used entries beyond the size cap (evict_after_store).
  // False when it could not be written (reported once); the run goes on.
  bool store(const DiskKey& key, const Binary& binary);

  std::string entry_path(const DiskKey& key) const;

 private:
  explicit DiskCache(DiskCacheSettings settings);
  // Creates and checks root/<key.directory>; "" when usable, else the problem.
  std::string prepare_directory(const DiskKey& key);
  void warn_once(const std::string& subject, const std::string& message);
  // The file system cannot lock: one info line, and no more compile locks.
  void go_lock_free(const std::string& why);

  DiskCacheSettings settings_;
  std::mutex mutex_;
  std::set<std::string> ready_directories_;
  std::set<std::string> reported_;
  std::atomic<bool> lock_free_{false};
};

}  // namespace stubjit::detail
