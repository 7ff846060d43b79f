// A reduce kernel's device memory for the partials and arrival counters of its
// launches that split segments into parts (reduce_launch.cpp): kept between launches
// and grown as needed, so that a launch like an earlier one allocates nothing. One
// launch holds it at a time; a launch that finds it held (another thread's, at the
// same moment) gets memory of its own for that launch. Nothing here waits on a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends/device.hpp"
#include "runtime/memory_lease.hpp"

namespace stubjit::detail {

class ReduceScratch {
 public:
  // Memory of `bytes` for one launch, and `counters` zeros on the host to clear its
  // counters with (copied to the device by the launch: a launch that failed part-way
  // may have left counts behind).
  class Lease {
   public:
    void* data() const noexcept { return memory_.data(); }
    const std::uint32_t* zeros() const noexcept {
      return shared_zeros_ ? shared_zeros_ : zeros_.data();
    }

   private:
    friend class ReduceScratch;
    explicit Lease(MemoryLease memory) : memory_(std::move(memory)) {}
    MemoryLease memory_;
    std::vector<std::uint32_t> zeros_;  // memory of its own: zeros of its own
    const std::uint32_t* shared_zeros_ = nullptr;
  };

  Lease acquire(Device& device, std::size_t bytes, std::size_t counters) {
    if (kept_.take()) {
      try {
        kept_.fit(device, bytes);
        if (zeros_.size() < counters) zeros_.resize(counters, 0);
      } catch (...) {
        kept_.give_back();
        throw;
      }
      Lease lease(kept_.lease());
      lease.shared_zeros_ = zeros_.data();
      return lease;
    }
    Lease lease(MemoryLease::own(device, bytes));
    lease.zeros_.assign(counters, 0);
    return lease;
  }

 private:
  KeptMemory kept_;
  std::vector<std::uint32_t> zeros_;  // written only by the launch that holds kept_
};

}  // namespace stubjit::detail
