#include "cache/binary_store.hpp"

#include <list>
#include <mutex>
#include <unordered_map>

namespace stubjit::detail {
namespace {

class MemoryStore final : public BinaryStore {
 public:
  explicit MemoryStore(std::size_t capacity) : capacity_(capacity) {}

  Lookup find(const DiskKey& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = index_.find(key.name);
    if (it == index_.end() || it->second->text != key.text) return {};
    order_.splice(order_.begin(), order_, it->second);
    return {Found::hit, it->second->binary};
  }

  bool put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
           const std::shared_ptr<const void>&) override {
    if (capacity_ == 0) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = index_.find(key.name); it != index_.end()) {
      order_.erase(it->second);
      index_.erase(it);
    }
    order_.push_front(Entry{key.name, key.text, binary});
    index_.emplace(key.name, order_.begin());
    while (order_.size() > capacity_) {
      index_.erase(order_.back().name);
      order_.pop_back();
    }
    return true;
  }

  void reject(const DiskKey& key, const std::string&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = index_.find(key.name); it != index_.end()) {
      order_.erase(it->second);
      index_.erase(it);
    }
  }

 private:
  struct Entry {
    std::string name;
    std::string text;
    std::shared_ptr<const Binary> binary;
  };
  const std::size_t capacity_;
  std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace

std::unique_ptr<BinaryStore> make_memory_store(std::size_t capacity) {
  return std::make_unique<MemoryStore>(capacity);
}

BinaryChain::Found BinaryChain::find(const DiskKey& key) {
  Found found;
  std::vector<bool> rejected(stores_.size(), false);
  for (std::size_t i = 0; i < stores_.size(); ++i) {
    BinaryStore::Lookup lookup = stores_[i]->find(key);
    if (lookup.found == BinaryStore::Found::rejected) {
      stores_[i]->counters().rejected.fetch_add(1, std::memory_order_relaxed);
      found.rejected = true;
      rejected[i] = true;
    }
    if (lookup.found != BinaryStore::Found::hit) continue;
    // Into the stores before it, except that a persistent store (a layer) does not fill
    // another persistent one (the user's disk cache) that merely missed: the layer has
    // it next run. One that rejected what it held gets the good binary, which replaces
    // its damaged entry.
    for (std::size_t j = 0; j < i; ++j) {
      if (stores_[i]->persistent() && stores_[j]->persistent() && !rejected[j]) continue;
      stores_[j]->put(key, lookup.binary, nullptr);
    }
    found.binary = std::move(lookup.binary);
    found.store = i;
    return found;
  }
  return found;
}

std::vector<std::unique_ptr<BuildLock>> BinaryChain::lock_for_build(const DiskKey& key) {
  std::vector<std::unique_ptr<BuildLock>> locks;
  for (const auto& store : stores_) {
    if (auto lock = store->lock_for_build(key)) locks.push_back(std::move(lock));
  }
  return locks;
}

void BinaryChain::put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
                      std::vector<std::unique_ptr<BuildLock>> locks) {
  const auto hold =
      std::make_shared<const std::vector<std::unique_ptr<BuildLock>>>(std::move(locks));
  for (const auto& store : stores_) {
    if (store->put(key, binary, hold))
      store->counters().writes.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace stubjit::detail
