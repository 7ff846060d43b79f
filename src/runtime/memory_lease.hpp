// Device memory one launch holds (reduce_scratch.hpp, scan_status.hpp): either the
// memory a kernel keeps between launches (KeptMemory), handed back when the lease ends
// by clearing its owner's busy flag, or memory of the launch's own (another launch held
// the kept memory), freed when the lease ends.
#pragma once

#include <atomic>
#include <cstddef>

#include "backends/device.hpp"

namespace stubjit::detail {

class MemoryLease {
 public:
  // The kept `memory`, whose owner's `busy` flag this launch set.
  static MemoryLease kept(std::atomic<bool>& busy, void* memory) noexcept {
    MemoryLease lease;
    lease.busy_ = &busy;
    lease.memory_ = memory;
    return lease;
  }
  // `bytes` of the launch's own on `device`.
  static MemoryLease own(Device& device, std::size_t bytes) {
    MemoryLease lease;
    lease.device_ = &device;
    lease.memory_ = device.allocate(bytes);
    return lease;
  }

  MemoryLease(const MemoryLease&) = delete;
  MemoryLease& operator=(const MemoryLease&) = delete;
  MemoryLease(MemoryLease&& other) noexcept
      : busy_(other.busy_), device_(other.device_), memory_(other.memory_) {
    other.busy_ = nullptr;
    other.memory_ = nullptr;
  }
  MemoryLease& operator=(MemoryLease&&) = delete;
  ~MemoryLease() {
    if (busy_) {
      busy_->store(false, std::memory_order_release);
    } else if (memory_) {
      device_->deallocate(memory_);
    }
  }

  void* data() const noexcept { return memory_; }

 private:
  MemoryLease() = default;
  std::atomic<bool>* busy_ = nullptr;  // the kept memory (released to its owner), or
  Device* device_ = nullptr;           // memory of this lease's own (freed with it)
  void* memory_ = nullptr;
};

// The memory a kernel keeps between launches, grown as needed, so that a launch like an
// earlier one allocates nothing. One launch holds it at a time: a launch that cannot
// take it (another thread's holds it) uses memory of its own. Nothing waits on a lock.
class KeptMemory {
 public:
  KeptMemory() = default;
  KeptMemory(const KeptMemory&) = delete;
  KeptMemory& operator=(const KeptMemory&) = delete;
  ~KeptMemory() {
    if (memory_) device_->deallocate(memory_);
  }

  // True where this launch now holds it; it must then lease() it or give_back().
  bool take() noexcept { return !busy_.exchange(true, std::memory_order_acquire); }
  void give_back() noexcept { busy_.store(false, std::memory_order_release); }

  // Held: at least `bytes` on `device`, allocated anew where it was smaller or on
  // another device (every launch that used it has finished: each held it). True where
  // the memory is new, its contents anything.
  bool fit(Device& device, std::size_t bytes) {
    if (memory_ && bytes_ >= bytes && device_ == &device) return false;
    if (memory_) {
      device_->deallocate(memory_);
      memory_ = nullptr;
      bytes_ = 0;
    }
    memory_ = device.allocate(bytes);
    bytes_ = bytes;
    device_ = &device;
    return true;
  }

  void* data() const noexcept { return memory_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Held: the lease that gives it back when it ends.
  MemoryLease lease() noexcept { return MemoryLease::kept(busy_, memory_); }

 private:
  std::atomic<bool> busy_{false};
  Device* device_ = nullptr;
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace stubjit::detail
