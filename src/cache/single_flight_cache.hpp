// In-memory cache with single-flight creation: concurrent requests for a key that is
// not there yet run the (expensive) creation once; the others wait for its result.
// Keys are spread over independently locked shards, and creation runs outside any
// lock, so work on different keys never waits on one global lock.
//
// Bounded: each of the shard_count shards keeps at most ceil(capacity / shard_count)
// finished entries, least recently used first out (entries still being created are
// never evicted). So at most `capacity` rounded up to a multiple of shard_count in all,
// and recency is exact within a shard, approximate across them. What a caller holds
// stays valid after eviction: values are shared.
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
#include <optional>
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
    std::optional<std::promise<Ptr>> promise;  // made only by the one that creates
    std::shared_future<Ptr> future;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.index.find(key);
      if (it != shard.index.end()) {
        shard.order.splice(shard.order.begin(), shard.order, it->second);
        future = it->second->future;
      } else {
        promise.emplace();
        shard.order.push_front(Entry{key, promise->get_future().share(), false});
        shard.index.emplace(key, shard.order.begin());
        created = true;
      }
    }
    if (!created) return future.get();
    Ptr value;
    try {
      value = make();
    } catch (...) {
      const std::exception_ptr failure = std::current_exception();
      promise->set_exception(failure);
      finish(shard, key, keep_failure(failure));
      throw;
    }
    promise->set_value(value);
    finish(shard, key, true);
    return value;
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
  using Order = std::list<Entry>;
  struct Shard {
    mutable std::mutex mutex;
    Order order;  // most recently used first
    std::unordered_map<Key, typename Order::iterator, KeyHash> index;
  };

  // Marks the creation of `key` finished (or forgets it), then trims the shard to its
  // share, least recently used first. Never throws: what is evicted is spliced out under
  // the lock and released after it, so a value's destructor never runs under the lock.
  void finish(Shard& shard, const Key& key, bool keep) noexcept {
    Order released;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.index.find(key);
      if (it == shard.index.end()) return;
      if (keep) {
        it->second->finished = true;
      } else {
        released.splice(released.end(), shard.order, it->second);
        shard.index.erase(it);
      }
      std::size_t finished = 0;
      for (auto entry = shard.order.begin(); entry != shard.order.end();) {
        auto next = std::next(entry);
        if (entry->finished && ++finished > per_shard_) {
          shard.index.erase(entry->key);
          released.splice(released.end(), shard.order, entry);
        }
        entry = next;
      }
    }
  }

  const std::size_t per_shard_;
  std::array<Shard, shard_count> shards_;
};

}  // namespace stubjit::detail
