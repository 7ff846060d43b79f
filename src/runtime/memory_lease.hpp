// Device memory one launch holds (reduce_scratch.hpp, scan_status.hpp): either the
// memory a kernel keeps between launches, handed back when the lease ends by clearing
// its owner's busy flag, or memory of the launch's own (another launch held the kept
// memory), freed when the lease ends.
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

}  // namespace stubjit::detail
