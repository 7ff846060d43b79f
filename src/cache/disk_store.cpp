#include "cache/disk_store.hpp"

#include "cache/background_writer.hpp"
#include "cache/file_lock.hpp"

namespace stubjit::detail {
namespace {

class HeldFileLock final : public BuildLock {
 public:
  explicit HeldFileLock(FileLock lock) : lock_(std::move(lock)) {}
  bool held() const override { return lock_.held(); }

 private:
  FileLock lock_;
};

}  // namespace

DiskStore::DiskStore(DiskCacheSettings settings) : settings_(std::move(settings)) {}

DiskStore::~DiskStore() { flush(); }

DiskCache* DiskStore::cache() {
  std::call_once(opened_, [this] { cache_ = DiskCache::open(settings_); });
  return cache_.get();
}

std::string DiskStore::root() {
  const DiskCache* opened = cache();
  return opened ? opened->root() : std::string();
}

void DiskStore::flush() { wait_for_writes(last_ticket_.load(std::memory_order_acquire)); }

BinaryStore::Lookup DiskStore::find(const DiskKey& key) {
  DiskCache* opened = cache();
  if (!opened) return {};
  DiskCache::Lookup lookup = opened->load(key);
  switch (lookup.found) {
    case DiskCache::Found::hit:
      return {Found::hit, std::make_shared<const Binary>(std::move(lookup.binary))};
    case DiskCache::Found::rejected:
      return {Found::rejected, nullptr};
    case DiskCache::Found::miss:
      break;
  }
  return {};
}

bool DiskStore::put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
                    const std::shared_ptr<const void>& hold) {
  DiskCache* opened = cache();
  if (!opened) return false;
  // The job shares the binary (no copy on the launch path) and keeps the build locks
  // until the entry is published. `this` outlives it: the destructor waits.
  const std::uint64_t ticket = submit_write([this, opened, key, binary, hold] {
    if (opened->store(key, *binary)) counters().writes.fetch_add(1, std::memory_order_relaxed);
  });
  // Tickets grow; two threads may submit out of order, so keep the larger.
  std::uint64_t last = last_ticket_.load(std::memory_order_relaxed);
  while (ticket > last &&
         !last_ticket_.compare_exchange_weak(last, ticket, std::memory_order_release)) {
  }
  return false;
}

void DiskStore::reject(const DiskKey& key, const std::string& why) {
  if (DiskCache* opened = cache()) opened->reject(key, why);
}

std::unique_ptr<BuildLock> DiskStore::lock_for_build(const DiskKey& key) {
  DiskCache* opened = cache();
  if (!opened) return nullptr;
  return std::make_unique<HeldFileLock>(opened->lock(key));
}

}  // namespace stubjit::detail
