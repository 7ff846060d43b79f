// A reduce kernel's device memory for the partials and arrival counters of its
// launches that split segments into parts (reduce_launch.cpp): kept between launches
// and grown as needed, so that a launch like an earlier one allocates nothing. One
// launch holds it at a time; a launch that finds it held (another thread's, at the
// same moment) gets memory of its own for that launch. Nothing here waits on a lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/device.hpp"

namespace stubjit::detail {

class ReduceScratch {
 public:
  ReduceScratch() = default;
  ReduceScratch(const ReduceScratch&) = delete;
  ReduceScratch& operator=(const ReduceScratch&) = delete;
  ~ReduceScratch() {
    if (memory_) device_->deallocate(memory_);
  }

  // Memory of `bytes` for one launch, and `counters` zeros on the host to clear its
  // counters with (copied to the device by the launch: a launch that failed part-way
  // may have left counts behind).
  class Lease {
   public:
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept
        : owner_(other.owner_),
          device_(other.device_),
          memory_(other.memory_),
          zeros_(std::move(other.zeros_)),
          shared_zeros_(other.shared_zeros_) {
      other.owner_ = nullptr;
      other.memory_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (owner_) {
        owner_->busy_.store(false, std::memory_order_release);
      } else if (memory_) {
        device_->deallocate(memory_);
      }
    }
    void* data() const noexcept { return memory_; }
    const std::uint32_t* zeros() const noexcept {
      return shared_zeros_ ? shared_zeros_ : zeros_.data();
    }

   private:
    friend class ReduceScratch;
    Lease() = default;
    ReduceScratch* owner_ = nullptr;  // the kept memory (released to it), or
    Device* device_ = nullptr;        // memory of this lease's own (freed with it)
    void* memory_ = nullptr;
    std::vector<std::uint32_t> zeros_;
    const std::uint32_t* shared_zeros_ = nullptr;
  };

  Lease acquire(Device& device, std::size_t bytes, std::size_t counters) {
    Lease lease;
    if (!busy_.exchange(true, std::memory_order_acquire)) {
      try {
        if (memory_ && (bytes_ < bytes || device_ != &device)) {
          device_->deallocate(memory_);  // every launch that used it has finished
          memory_ = nullptr;
          bytes_ = 0;
        }
        if (!memory_) {
          memory_ = device.allocate(bytes);
          bytes_ = bytes;
          device_ = &device;
        }
        if (zeros_.size() < counters) zeros_.resize(counters, 0);
      } catch (...) {
        busy_.store(false, std::memory_order_release);
        throw;
      }
      lease.owner_ = this;
      lease.memory_ = memory_;
      lease.shared_zeros_ = zeros_.data();
      return lease;
    }
    lease.device_ = &device;
    lease.zeros_.assign(counters, 0);
    lease.memory_ = device.allocate(bytes);
    return lease;
  }

 private:
  std::atomic<bool> busy_{false};
  Device* device_ = nullptr;
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<std::uint32_t> zeros_;
};

}  // namespace stubjit::detail
