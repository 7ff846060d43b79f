// A counter that many threads add to without sharing one cache line: each thread adds
// to one of several padded stripes, and reading sums them. For counts the hot launch
// path keeps (launches, memory hits), which must not make every launch of every
// thread write the same line.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stubjit::detail {

class StripedCounter {
 public:
  void add(std::uint64_t n = 1) noexcept {
    stripes_[stripe_of_this_thread()].value.fetch_add(n, std::memory_order_relaxed);
  }
  std::uint64_t total() const noexcept {
    std::uint64_t sum = 0;
    for (const Stripe& stripe : stripes_) sum += stripe.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  static constexpr std::size_t stripe_count = 16;
  struct alignas(64) Stripe {
    std::atomic<std::uint64_t> value{0};
  };
  // Threads take stripes in turn, so that up to stripe_count threads never share one.
  static std::size_t stripe_of_this_thread() noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t mine =
        next.fetch_add(1, std::memory_order_relaxed) % stripe_count;
    return mine;
  }
  std::array<Stripe, stripe_count> stripes_;
};

}  // namespace stubjit::detail
