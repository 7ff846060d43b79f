// The disk cache as a store of the binary chain.
#pragma once

#include <memory>

#include "cache/binary_store.hpp"
#include "cache/disk_cache.hpp"

namespace stubjit::detail {

class DiskStore final : public BinaryStore {
 public:
  explicit DiskStore(std::unique_ptr<DiskCache> cache) : cache_(std::move(cache)) {}

  const DiskCache& cache() const { return *cache_; }

  Lookup find(const DiskKey& key) override {
    DiskCache::Lookup lookup = cache_->load(key);
    switch (lookup.found) {
      case DiskCache::Found::hit:
        return {Found::hit, std::move(lookup.binary)};
      case DiskCache::Found::rejected:
        return {Found::rejected, {}};
      case DiskCache::Found::miss:
        break;
    }
    return {};
  }
  bool put(const DiskKey& key, const Binary& binary) override { return cache_->store(key, binary); }
  void reject(const DiskKey& key, const std::string& why) override { cache_->reject(key, why); }
  std::unique_ptr<BuildLock> lock_for_build(const DiskKey& key) override {
    return std::make_unique<Held>(cache_->lock(key));
  }

 private:
  class Held final : public BuildLock {
   public:
    explicit Held(FileLock lock) : lock_(std::move(lock)) {}
    bool held() const override { return lock_.held(); }

   private:
    FileLock lock_;
  };

  std::unique_ptr<DiskCache> cache_;
};

}  // namespace stubjit::detail
