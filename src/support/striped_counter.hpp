// A counter that many threads add to without sharing one cache line: each thread adds
// to a padded stripe of its own, and reading sums them. For counts the hot launch path
// keeps (launches, memory hits), which must not make every launch of every thread
// write the same line.
//
// The first `owned_stripes` threads of the process each own a stripe: only they write
// it, so an add is a plain load and store. Threads beyond those share the remaining
// stripes and add atomically.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stubjit::detail {

class StripedCounter {
 public:
  void add(std::uint64_t n = 1) noexcept {
    const std::size_t stripe = stripe_of_this_thread();
    std::atomic<std::uint64_t>& value = stripes_[stripe].value;
    if (stripe < owned_stripes) {
      value.store(value.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    } else {
      value.fetch_add(n, std::memory_order_relaxed);
    }
  }
  std::uint64_t total() const noexcept {
    std::uint64_t sum = 0;
    for (const Stripe& stripe : stripes_) sum += stripe.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  static constexpr std::size_t owned_stripes = 64;
  static constexpr std::size_t shared_stripes = 8;
  struct alignas(64) Stripe {
    std::atomic<std::uint64_t> value{0};
  };
  // The n-th thread to count anything owns stripe n while n < owned_stripes (indices
  // are never reused); later threads take the shared stripes in turn.
  static std::size_t stripe_of_this_thread() noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t mine = [] {
      const std::size_t n = next.fetch_add(1, std::memory_order_relaxed);
      return n < owned_stripes ? n : owned_stripes + n % shared_stripes;
    }();
    return mine;
  }
  std::array<Stripe, owned_stripes + shared_stripes> stripes_;
};

}  // namespace stubjit::detail
