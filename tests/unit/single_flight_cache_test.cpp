#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <stdexcept>
#include <thread>

#include "cache/single_flight_cache.hpp"
#include "support/hash.hpp"

namespace stubjit::detail {
namespace {

// A key with a text and a hash that tests can force to collide.
struct TextKey {
  std::string text;
  std::uint64_t hash = 0;
  bool operator==(const TextKey& other) const { return text == other.text; }
};
using Cache = SingleFlightCache<TextKey, int>;

TextKey key(const std::string& text) { return TextKey{text, hash64(text)}; }

std::shared_ptr<const int> value_of(Cache& cache, const std::string& text, int value,
                                    bool& created) {
  return cache.get_or_create(
      key(text), [&] { return std::make_shared<const int>(value); }, created);
}

TEST(SingleFlightCache, ConcurrentRequestsForOneKeyCreateOnce) {
  Cache cache;
  std::atomic<int> creations{0};
  std::atomic<int> created_flags{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  std::vector<int> seen(16, 0);
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < 16) std::this_thread::yield();
      bool created = false;
      auto value = cache.get_or_create(
          key("k"),
          [&] {
            ++creations;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            return std::make_shared<const int>(42);
          },
          created);
      seen[static_cast<std::size_t>(t)] = *value;
      if (created) ++created_flags;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(creations.load(), 1);
  EXPECT_EQ(created_flags.load(), 1);
  for (int v : seen) EXPECT_EQ(v, 42);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(SingleFlightCache, DifferentKeysDoNotWaitForEachOther) {
  // Key A's creation blocks until key B has been created; with one global lock
  // around creation this would deadlock (and the test would time out).
  Cache cache;
  std::promise<void> b_done;
  auto b_done_future = b_done.get_future();
  std::thread a([&] {
    bool created = false;
    cache.get_or_create(
        key("a"),
        [&] {
          EXPECT_EQ(b_done_future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
          return std::make_shared<const int>(1);
        },
        created);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  bool created = false;
  auto b = cache.get_or_create(
      key("b"), [] { return std::make_shared<const int>(2); }, created);
  EXPECT_EQ(*b, 2);
  b_done.set_value();
  a.join();
}

TEST(SingleFlightCache, FailedCreationReachesWaitersAndIsRetried) {
  Cache cache;
  bool created = false;
  EXPECT_THROW(
      cache.get_or_create(
          key("k"), []() -> std::shared_ptr<const int> { throw std::runtime_error("boom"); },
          created),
      std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  auto value = cache.get_or_create(
      key("k"), [] { return std::make_shared<const int>(7); }, created);
  EXPECT_TRUE(created);
  EXPECT_EQ(*value, 7);
}

TEST(SingleFlightCache, KeysCompareByFullTextNotHash) {
  // Two keys forced into the same hash stay distinct entries.
  Cache cache;
  bool created = false;
  auto a = cache.get_or_create(
      TextKey{"a", 1}, [] { return std::make_shared<const int>(1); }, created);
  auto b = cache.get_or_create(
      TextKey{"b", 1}, [] { return std::make_shared<const int>(2); }, created);
  EXPECT_EQ(*a, 1);
  EXPECT_EQ(*b, 2);
  EXPECT_EQ(cache.size(), 2u);
}

// A failure the caller asks to keep is given to later callers without running make()
// again (a kernel that does not compile is compiled once).
TEST(SingleFlightCache, AKeptFailureIsNotCreatedAgain) {
  Cache cache;
  int runs = 0;
  const auto failing = [&]() -> std::shared_ptr<const int> {
    ++runs;
    throw std::invalid_argument("does not compile");
  };
  const auto keep = [](const std::exception_ptr&) { return true; };
  bool created = false;
  EXPECT_THROW(cache.get_or_create(key("k"), failing, created, keep), std::invalid_argument);
  EXPECT_TRUE(created);
  EXPECT_THROW(cache.get_or_create(key("k"), failing, created, keep), std::invalid_argument);
  EXPECT_FALSE(created);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(cache.size(), 1u);
}

// Each shard keeps its share of the capacity, least recently used first out; a value
// a caller holds outlives its eviction.
TEST(SingleFlightCache, CapacityEvictsTheLeastRecentlyUsed) {
  Cache cache(Cache::shard_count);  // one finished entry per shard
  // Keys forced into one shard by their hash.
  const auto in_shard = [](const std::string& text) { return TextKey{text, 5}; };
  bool created = false;
  std::shared_ptr<const int> held = cache.get_or_create(
      in_shard("a"), [] { return std::make_shared<const int>(1); }, created);
  cache.get_or_create(
      in_shard("b"), [] { return std::make_shared<const int>(2); }, created);
  EXPECT_EQ(cache.size(), 1u);  // "a" went
  EXPECT_EQ(*held, 1);          // but what its caller holds is still there
  cache.get_or_create(
      in_shard("a"), [] { return std::make_shared<const int>(3); }, created);
  EXPECT_TRUE(created);
  cache.get_or_create(
      in_shard("a"), [] { return std::make_shared<const int>(4); }, created);
  EXPECT_FALSE(created);  // the most recent one stays
}

// A hit makes an entry the most recently used: the one evicted is the other.
TEST(SingleFlightCache, AHitRefreshesAnEntry) {
  Cache cache(2 * Cache::shard_count);  // two finished entries per shard
  const auto in_shard = [](const std::string& text) { return TextKey{text, 7}; };
  int runs = 0;
  const auto make = [&] {
    ++runs;
    return std::make_shared<const int>(runs);
  };
  bool created = false;
  cache.get_or_create(in_shard("a"), make, created);
  cache.get_or_create(in_shard("b"), make, created);
  cache.get_or_create(in_shard("a"), make, created);  // a hit: "a" is now the newest
  EXPECT_FALSE(created);
  cache.get_or_create(in_shard("c"), make, created);  // evicts "b", the least recent
  cache.get_or_create(in_shard("a"), make, created);
  EXPECT_FALSE(created);
  cache.get_or_create(in_shard("b"), make, created);
  EXPECT_TRUE(created);
  EXPECT_EQ(runs, 4);
}

TEST(SingleFlightCache, CapacityZeroKeepsNothingOnceCreated) {
  Cache cache(0);
  bool created = false;
  const std::shared_ptr<const int> value = value_of(cache, "k", 1, created);
  EXPECT_TRUE(created);
  EXPECT_EQ(*value, 1);
  EXPECT_EQ(cache.size(), 0u);
  value_of(cache, "k", 2, created);
  EXPECT_TRUE(created);
}

}  // namespace
}  // namespace stubjit::detail
