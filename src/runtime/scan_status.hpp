// The look-back state of a scan kernel's one-pass GPU launches (scan_launch.cpp;
// kernels/stubjit/reduce.h, scan_part_prefix): a ticket counter, then one flag per
// group, in device memory kept between launches and grown as needed.
//
// A flag holds the epoch of the launch that wrote it beside its state, and a launch
// reads a flag of another epoch as not yet published. So a launch clears only the
// counter (4 bytes) and takes the next epoch: the flags are cleared where the memory is
// new or grown, and when the epochs wrap (2^30 of them, as a flag keeps 2 bits for
// its state). A launch that failed part-way leaves flags of its own epoch, which the
// next launch does not read as its own.
//
// One launch holds it at a time; a launch that finds it held (another thread's, at the
// same moment) gets memory of its own for that launch, cleared. Nothing here waits on
// a lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/device.hpp"

namespace stubjit::detail {

class ScanStatus {
 public:
  // The most epochs before the flags are cleared again: a flag is (epoch << 2) | state.
  static constexpr std::uint32_t most_epochs = std::uint32_t(1) << 30;

  // `epochs`: fewer for a test of their wrapping.
  explicit ScanStatus(std::uint32_t epochs = most_epochs) : epochs_(epochs) {}
  ScanStatus(const ScanStatus&) = delete;
  ScanStatus& operator=(const ScanStatus&) = delete;
  ~ScanStatus() {
    if (memory_) device_->deallocate(memory_);
  }

  class Lease {
   public:
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept
        : owner_(other.owner_),
          device_(other.device_),
          memory_(other.memory_),
          epoch_(other.epoch_) {
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
    // The ticket counter (zero), then a flag per group.
    void* data() const noexcept { return memory_; }
    // This launch's epoch, in [1, epochs).
    std::uint32_t epoch() const noexcept { return epoch_; }

   private:
    friend class ScanStatus;
    Lease() = default;
    ScanStatus* owner_ = nullptr;  // the kept memory (released to it), or
    Device* device_ = nullptr;     // memory of this lease's own (freed with it)
    void* memory_ = nullptr;
    std::uint32_t epoch_ = 1;
  };

  // The state of a launch of `groups` groups, its counter cleared on `stream` (and its
  // flags where they must be) before anything the launch issues after it.
  Lease acquire(Device& device, std::uint64_t groups, StreamState* stream) {
    const std::size_t words = static_cast<std::size_t>(groups) + 1;
    Lease lease;
    if (!busy_.exchange(true, std::memory_order_acquire)) {
      try {
        bool clear = false;
        if (memory_ && (words_ < words || device_ != &device)) {
          device_->deallocate(memory_);  // every launch that used it has finished
          memory_ = nullptr;
          words_ = 0;
        }
        if (!memory_) {
          memory_ = device.allocate(words * sizeof(std::uint32_t));
          words_ = words;
          device_ = &device;
          clear = true;
        }
        if (++epoch_ >= epochs_) clear = true;
        if (clear) epoch_ = 1;
        zero(device, memory_, clear ? words_ : 1, zeros_, stream);
      } catch (...) {
        busy_.store(false, std::memory_order_release);
        throw;
      }
      lease.owner_ = this;
      lease.memory_ = memory_;
      lease.epoch_ = epoch_;
      return lease;
    }
    lease.device_ = &device;
    lease.memory_ = device.allocate(words * sizeof(std::uint32_t));
    std::vector<std::uint32_t> zeros;  // not the kept ones: their owner may be using them
    zero(device, lease.memory_, words, zeros, stream);
    return lease;
  }

 private:
  static void zero(Device& device, void* memory, std::size_t words,
                   std::vector<std::uint32_t>& zeros, StreamState* stream) {
    if (zeros.size() < words) zeros.resize(words, 0);
    device.copy_to_device(memory, zeros.data(), words * sizeof(std::uint32_t), stream);
  }

  const std::uint32_t epochs_;
  std::atomic<bool> busy_{false};
  Device* device_ = nullptr;
  void* memory_ = nullptr;
  std::size_t words_ = 0;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> zeros_;
};

}  // namespace stubjit::detail
