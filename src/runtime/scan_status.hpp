// The look-back state of a scan kernel's one-pass GPU launches (scan_launch.cpp;
// kernels/stubjit/reduce.h, scan_part_prefix): a ticket counter, then one flag per
// group, in device memory kept between launches and grown as needed.
//
// A flag holds the epoch of the launch that wrote it beside its state, and a launch
// reads a flag of another epoch as not yet published. So a launch clears only the
// counter (4 bytes) and takes the next epoch: the flags are cleared where the memory is
// new or grown, after a clear that failed, and when the epochs wrap (epochs 1 to
// 2^30 - 1, as a flag keeps 2 bits for its state). A launch that failed part-way leaves flags of
// its own epoch, which the next launch does not read as its own.
//
// One launch holds it at a time; a launch that finds it held (another thread's, at the
// same moment) gets memory of its own for that launch, cleared. Nothing here waits on
// a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "backends/device.hpp"
#include "runtime/memory_lease.hpp"

namespace stubjit::detail {

class ScanStatus {
 public:
  // The most epochs before the flags are cleared again: a flag is (epoch << 2) | state.
  static constexpr std::uint32_t most_epochs = std::uint32_t(1) << 30;

  // `epochs`: fewer for a test of their wrapping.
  explicit ScanStatus(std::uint32_t epochs = most_epochs) : epochs_(epochs) {}
  ScanStatus(const ScanStatus&) = delete;
  ScanStatus& operator=(const ScanStatus&) = delete;

  class Lease {
   public:
    // The ticket counter (zero), then a flag per group.
    void* data() const noexcept { return memory_.data(); }
    // This launch's epoch, in [1, epochs).
    std::uint32_t epoch() const noexcept { return epoch_; }

   private:
    friend class ScanStatus;
    Lease(MemoryLease memory, std::uint32_t epoch) : memory_(std::move(memory)), epoch_(epoch) {}
    MemoryLease memory_;
    std::uint32_t epoch_;
  };

  // The state of a launch of `groups` groups, its counter cleared on `stream` (and its
  // flags where they must be) before anything the launch issues after it.
  Lease acquire(Device& device, std::uint64_t groups, StreamState* stream) {
    const std::size_t words = static_cast<std::size_t>(groups) + 1;
    if (kept_.take()) {
      try {
        if (kept_.fit(device, words * sizeof(std::uint32_t))) must_clear_ = true;
        if (++epoch_ >= epochs_) must_clear_ = true;
        if (must_clear_) epoch_ = 1;
        // Cleared whole until a clear succeeds (a failed one leaves must_clear_ set).
        zero(device, kept_.data(), must_clear_ ? kept_.bytes() / sizeof(std::uint32_t) : 1, stream);
        must_clear_ = false;
      } catch (...) {
        kept_.give_back();
        throw;
      }
      return Lease(kept_.lease(), epoch_);
    }
    Lease lease(MemoryLease::own(device, words * sizeof(std::uint32_t)), 1);
    zero(device, lease.data(), words, stream);  // a failure frees it with the lease
    return lease;
  }

 private:
  // Copied from a fixed block of zeros, as many times as it takes: no host memory that
  // grows with the flags.
  static void zero(Device& device, void* memory, std::size_t words, StreamState* stream) {
    static constexpr std::size_t block = std::size_t(1) << 18;  // 1 MiB
    static const std::uint32_t zeros[block] = {};
    auto* at = static_cast<std::uint32_t*>(memory);
    for (std::size_t done = 0; done < words; done += block) {
      const std::size_t count = words - done < block ? words - done : block;
      device.copy_to_device(at + done, zeros, count * sizeof(std::uint32_t), stream);
    }
  }

  const std::uint32_t epochs_;
  KeptMemory kept_;
  std::uint32_t epoch_ = 0;
  bool must_clear_ = false;  // the flags may hold anything (new memory, a failed clear)
};

}  // namespace stubjit::detail
