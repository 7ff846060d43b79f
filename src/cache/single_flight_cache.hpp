// In-memory cache with single-flight creation: concurrent requests for a key that is
// not there yet run the (expensive) creation once; the others wait for its result.
// Keys are spread over independently locked shards, and creation runs outside any
// lock, so work on different keys never waits on one global lock.
#pragma once

#include <array>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cache/cache_key.hpp"

namespace stubjit::detail {

template <class Value>
class SingleFlightCache {
 public:
  using Ptr = std::shared_ptr<const Value>;

  // The value for `key`, created by `make()` if absent. `created` is set for the one
  // caller whose make() ran. If make() throws, every waiter gets the exception and
  // the key is forgotten, so a later call tries again.
  template <class Make>
  Ptr get_or_create(const CacheKey& key, Make&& make, bool& created) {
    created = false;
    Shard& shard = shards_[key.hash % shards_.size()];
    std::promise<Ptr> promise;
    std::shared_future<Ptr> future;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.entries.find(key.text);
      if (it != shard.entries.end()) {
        future = it->second;
      } else {
        shard.entries.emplace(key.text, promise.get_future().share());
        created = true;
      }
    }
    if (!created) return future.get();
    try {
      Ptr value = make();
      promise.set_value(value);
      return value;
    } catch (...) {
      promise.set_exception(std::current_exception());
      std::lock_guard<std::mutex> lock(shard.mutex);
      shard.entries.erase(key.text);
      throw;
    }
  }

  std::size_t size() const {
    std::size_t total = 0;
    for (const Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mutex);
      total += shard.entries.size();
    }
    return total;
  }

 private:
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, std::shared_future<Ptr>> entries;
  };
  std::array<Shard, 32> shards_;
};

}  // namespace stubjit::detail
