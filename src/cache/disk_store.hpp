// The disk cache as a store of the binary chain. It opens the cache on first use
// (a lookup, a store, a build lock, or asking for its root), not when the runtime is
// made, and writes entries on the process's background writer (background_writer.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "cache/binary_store.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_cache.hpp"

namespace stubjit::detail {

class DiskStore final : public BinaryStore {
 public:
  // Touches nothing on disk: `settings` (enabled, root already absolute) are kept
  // until the first use opens the cache (DiskCache::open, with its warnings).
  explicit DiskStore(DiskCacheSettings settings);
  // Waits for this store's pending writes: a destroyed runtime has written its entries.
  ~DiskStore() override;
  DiskStore(const DiskStore&) = delete;
  DiskStore& operator=(const DiskStore&) = delete;

  // The cache's root, opening the cache if nothing has yet; "" when it cannot be
  // used (memory only).
  std::string root();
  // Returns once every entry put so far is written (or its write failed).
  void flush();

  Lookup find(const DiskKey& key) override;
  // Queues the write and returns false: the entry counts in counters().writes once it
  // is on disk. `hold` (the key's build locks) is released after the write, so that a
  // process waiting on them finds the entry.
  bool put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
           const std::shared_ptr<const void>& hold) override;
  void reject(const DiskKey& key, const std::string& why) override;
  std::unique_ptr<BuildLock> lock_for_build(const DiskKey& key) override;
  bool persistent() const override { return true; }

 private:
  // The open cache; null when it cannot be used. Opened once, by whichever thread
  // comes first; the others wait for it.
  DiskCache* cache();

  DiskCacheSettings settings_;
  std::once_flag opened_;
  std::unique_ptr<DiskCache> cache_;
  std::atomic<std::uint64_t> last_ticket_{0};  // of this store's latest write
};

}  // namespace stubjit::detail
