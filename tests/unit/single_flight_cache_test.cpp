#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <thread>

#include "cache/hash.hpp"
#include "cache/single_flight_cache.hpp"

namespace stubjit::detail {
namespace {

CacheKey key(const std::string& text) { return CacheKey{text, hash64(text)}; }

TEST(SingleFlightCache, ConcurrentRequestsForOneKeyCreateOnce) {
  SingleFlightCache<int> cache;
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
  SingleFlightCache<int> cache;
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
  SingleFlightCache<int> cache;
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
  SingleFlightCache<int> cache;
  bool created = false;
  auto a = cache.get_or_create(
      CacheKey{"a", 1}, [] { return std::make_shared<const int>(1); }, created);
  auto b = cache.get_or_create(
      CacheKey{"b", 1}, [] { return std::make_shared<const int>(2); }, created);
  EXPECT_EQ(*a, 1);
  EXPECT_EQ(*b, 2);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace stubjit::detail
