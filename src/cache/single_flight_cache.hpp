// In-memory cache with single-flight creation: concurrent requests for a key that is
// not there yet run the (expensive) creation once; the others wait for its result.
// Keys are spread over independently locked shards, and creation runs outside any
// lock, so work on different keys never waits on one global lock.
//
// Bounded: each shard keeps at most its share of `capacity` finished entries, least
// recently used first out (entries still being created are never evicted). What a
// caller holds stays valid after eviction: values are shared.
//
// Key: a copyable type with operator== and a member `hash` (std::uint64_t).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <future>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace stubjit::detail {

template <class Key, class Value>
class SingleFlightCache {
 public:
  using Ptr = std::shared_ptr<const Value>;
  static constexpr std::size_t shard_count = 16;

  explicit SingleFlightCache(std::size_t capacity = std::numeric_limits<std::size_t>::max())
      : per_shard_(capacity / shard_count + (capacity % shard_count != 0 ? 1 : 0)) {}

  // The value for `key`, created by `make()` if absent. `created` is set for the one
  // caller whose make() ran. If make() throws, every waiter gets the exception; the
  // key is then forgotten (a later call tries again) unless keep_failure(exception)
  // says to remember it (a later call gets the same exception without make()).
  template <class Make, class KeepFailure>
  Ptr get_or_create(const Key& key, Make&& make, bool& created, KeepFailure&& keep_failure) {
    created = false;
    Shard& shard = shards_[key.hash % shard_count];
    std::promise<Ptr> promise;
    std::shared_future<Ptr> future;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.index.find(key);
      if (it != shard.index.end()) {
        shard.order.splice(shard.order.begin(), shard.order, it->second);
        future = it->second->future;
      } else {
        shard.order.push_front(Entry{key, promise.get_future().share(), false});
        shard.index.emplace(key, shard.order.begin());
        created = true;
      }
    }
    if (!created) return future.get();
    try {
      Ptr value = make();
      promise.set_value(value);
      finish(shard, key, true);
      return value;
    } catch (...) {
      const std::exception_ptr failure = std::current_exception();
      promise.set_exception(failure);
      finish(shard, key, keep_failure(failure));
      throw;
    }
  }

  template <class Make>
  Ptr get_or_create(const Key& key, Make&& make, bool& created) {
    return get_or_create(key, std::forward<Make>(make), created,
                         [](const std::exception_ptr&) { return false; });
  }

  // Entries kept (finished or being created).
  std::size_t size() const {
    std::size_t total = 0;
    for (const Shard& shard : shards_) {
      std::lock_guard<std::mutex> lock(shard.mutex);
      total += shard.index.size();
    }
    return total;
  }

 private:
  struct Entry {
    Key key;
    std::shared_future<Ptr> future;
    bool finished;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const noexcept {
      return static_cast<std::size_t>(key.hash);
    }
  };
  struct Shard {
    mutable std::mutex mutex;
    std::list<Entry> order;  // most recently used first
    std::unordered_map<Key, typename std::list<Entry>::iterator, KeyHash> index;
  };

  // Marks the creation of `key` finished (or forgets it), then trims the shard. What
  // is evicted is released after the lock, so a value's destructor never runs under it.
  void finish(Shard& shard, const Key& key, bool keep) {
    std::vector<std::shared_future<Ptr>> released;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.index.find(key);
      if (it == shard.index.end()) return;
      if (keep) {
        it->second->finished = true;
      } else {
        released.push_back(std::move(it->second->future));
        shard.order.erase(it->second);
        shard.index.erase(it);
      }
      std::size_t finished = 0;
      for (auto entry = shard.order.begin(); entry != shard.order.end();) {
        if (entry->finished && ++finished > per_shard_) {
          released.push_back(std::move(entry->future));
          shard.index.erase(entry->key);
          entry = shard.order.erase(entry);
        } else {
          ++entry;
        }
      }
    }
  }

  std::size_t per_shard_;
  std::array<Shard, shard_count> shards_;
};

}  // namespace stubjit::detail
