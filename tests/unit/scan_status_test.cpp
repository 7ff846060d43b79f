// The look-back state of one-pass GPU scans (runtime/scan_status.hpp) on a device that
// keeps its memory on the host and fills what it allocates with garbage: each launch
// finds its ticket counter zero and an epoch of its own, flags of another epoch from
// the launch before kept as they are, new or grown memory cleared whole (in blocks),
// the flags cleared again when the epochs wrap and after a clear that failed, and a
// launch that finds the state held given
// memory of its own, cleared, and freed with it.
#include "runtime/scan_status.hpp"

#include "stubjit/error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>

namespace stubjit::detail {
namespace {

using u32 = std::uint32_t;

class HostDevice final : public Device {
 public:
  DeviceLimits limits() const override { return {}; }
  std::string description() const override { return "host memory"; }
  std::unique_ptr<Module> load(const Binary&, const std::string&) override { return nullptr; }
  void check_plan(const Module&, const Plan&) const override {}
  void launch(const Module&, const EntryParameters&, const LaunchParams&, const void*, std::size_t,
              StreamState*) override {}
  void* allocate(std::size_t bytes) override {
    void* memory = std::malloc(bytes);
    std::memset(memory, 0xAB, bytes);  // what a device's fresh memory may hold
    live.insert(memory);
    return memory;
  }
  void deallocate(void* pointer) noexcept override {
    live.erase(pointer);
    std::free(pointer);
  }
  void copy_to_device(void* device, const void* host, std::size_t bytes, StreamState*) override {
    if (fail_copies > 0 || (fail_after_copies != 0 && copies >= fail_after_copies)) {
      if (fail_copies > 0) --fail_copies;
      fail_after_copies = 0;
      throw BackendError("host memory: a copy failed as asked");
    }
    std::memcpy(device, host, bytes);
    copied += bytes;
    ++copies;
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes, StreamState*) override {
    std::memcpy(host, device, bytes);
  }
  std::shared_ptr<StreamState> create_stream() override { return nullptr; }
  void synchronize() override {}

  std::set<void*> live;
  std::size_t copied = 0, copies = 0;
  int fail_copies = 0;                // the next this many copies throw
  std::size_t fail_after_copies = 0;  // else (not 0): the copy after this many throws, once
};

u32* words(const ScanStatus::Lease& lease) { return static_cast<u32*>(lease.data()); }

bool all_zero(const ScanStatus::Lease& lease, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (words(lease)[i] != 0) return false;
  return true;
}

TEST(ScanStatus, NewMemoryIsClearedWholeAndEachLaunchTakesTheNextEpoch) {
  HostDevice device;
  ScanStatus status;
  u32 first_epoch = 0;
  {
    const ScanStatus::Lease lease = status.acquire(device, 100, nullptr);
    EXPECT_TRUE(all_zero(lease, 101));  // the counter and every flag
    first_epoch = lease.epoch();
    EXPECT_GE(first_epoch, 1u);
    words(lease)[0] = 100;                          // every group took its ticket
    words(lease)[1 + 7] = (first_epoch << 2) | 2u;  // a flag of this launch
  }
  {
    const ScanStatus::Lease lease = status.acquire(device, 100, nullptr);
    EXPECT_EQ(lease.epoch(), first_epoch + 1);
    EXPECT_EQ(words(lease)[0], 0u);  // the counter cleared
    // The flag left is of another epoch: read as unpublished, and not cleared (only
    // the counter's 4 bytes were copied).
    EXPECT_EQ(words(lease)[1 + 7], (first_epoch << 2) | 2u);
  }
  EXPECT_EQ(device.copied, 101 * sizeof(u32) + sizeof(u32));
  EXPECT_EQ(device.live.size(), 1u);  // kept between launches
}

TEST(ScanStatus, GrownMemoryIsClearedAndTheEpochsStartAgain) {
  HostDevice device;
  ScanStatus status;
  { status.acquire(device, 10, nullptr); }
  { status.acquire(device, 10, nullptr); }
  const ScanStatus::Lease lease = status.acquire(device, 1000, nullptr);
  EXPECT_TRUE(all_zero(lease, 1001));
  EXPECT_EQ(lease.epoch(), 1u);
  EXPECT_EQ(device.live.size(), 1u);  // the smaller memory freed
}

TEST(ScanStatus, TheFlagsAreClearedWhenTheEpochsWrap) {
  HostDevice device;
  ScanStatus status(4);  // epochs 1, 2 and 3
  std::set<u32> seen;
  for (int launch = 0; launch < 3; ++launch) {
    const ScanStatus::Lease lease = status.acquire(device, 20, nullptr);
    seen.insert(lease.epoch());
    for (std::size_t i = 1; i <= 20; ++i) words(lease)[i] = (lease.epoch() << 2) | 1u;
  }
  EXPECT_EQ(seen, (std::set<u32>{1, 2, 3}));
  const ScanStatus::Lease wrapped = status.acquire(device, 20, nullptr);
  EXPECT_EQ(wrapped.epoch(), 1u);
  EXPECT_TRUE(all_zero(wrapped, 21));  // no flag of epoch 1 is left to be misread
}

// A clear that failed (the launch reported it) is done whole by the next launch, which
// starts the epochs again: the memory may hold anything.
TEST(ScanStatus, AClearThatFailedIsDoneWholeByTheNextLaunch) {
  HostDevice device;
  ScanStatus status;
  device.fail_copies = 1;
  EXPECT_THROW(status.acquire(device, 30, nullptr), BackendError);
  const ScanStatus::Lease lease = status.acquire(device, 30, nullptr);
  EXPECT_TRUE(all_zero(lease, 31));
  EXPECT_EQ(lease.epoch(), 1u);
  EXPECT_EQ(device.live.size(), 1u);
}

// Flags past a block of zeros are cleared in several copies: every word, whatever the
// count (no host memory grows with them).
TEST(ScanStatus, ManyFlagsAreClearedInBlocks) {
  HostDevice device;
  ScanStatus status;
  const std::size_t groups = (std::size_t(1) << 18) * 2 + 5;  // past two blocks
  const ScanStatus::Lease lease = status.acquire(device, groups, nullptr);
  EXPECT_TRUE(all_zero(lease, groups + 1));
  EXPECT_EQ(device.copied, (groups + 1) * sizeof(u32));
  EXPECT_EQ(device.copies, 3u);
}

// A clear that failed part-way (its second block), and one that failed as the epochs
// wrapped, are done whole by the next launch.
TEST(ScanStatus, AClearThatFailedPartWayOrAtTheWrapIsDoneWholeNextTime) {
  HostDevice device;
  ScanStatus status(3);  // epochs 1 and 2
  const std::size_t groups = (std::size_t(1) << 18) + 10;
  {
    const ScanStatus::Lease lease = status.acquire(device, groups, nullptr);
    for (std::size_t i = 0; i <= groups; ++i) words(lease)[i] = (lease.epoch() << 2) | 2u;
  }
  {
    const ScanStatus::Lease lease = status.acquire(device, groups, nullptr);
    EXPECT_EQ(lease.epoch(), 2u);
    for (std::size_t i = 1; i <= groups; ++i) words(lease)[i] = (lease.epoch() << 2) | 2u;
  }
  // The wrap's clear: its first block copied, the second failed.
  const std::size_t copied = device.copied;
  device.fail_after_copies = device.copies + 1;
  EXPECT_THROW(status.acquire(device, groups, nullptr), BackendError);
  EXPECT_EQ(device.copied - copied, (std::size_t(1) << 18) * sizeof(u32));
  const ScanStatus::Lease lease = status.acquire(device, groups, nullptr);
  EXPECT_EQ(lease.epoch(), 1u);
  EXPECT_TRUE(all_zero(lease, groups + 1));
}

TEST(ScanStatus, ALaunchThatFindsItHeldGetsMemoryOfItsOwnClearedAndFreed) {
  HostDevice device;
  ScanStatus status;
  const ScanStatus::Lease held = status.acquire(device, 50, nullptr);
  words(held)[0] = 9;
  {
    const ScanStatus::Lease other = status.acquire(device, 50, nullptr);
    EXPECT_NE(other.data(), held.data());
    EXPECT_TRUE(all_zero(other, 51));
    EXPECT_EQ(device.live.size(), 2u);
  }
  EXPECT_EQ(device.live.size(), 1u);
  EXPECT_EQ(words(held)[0], 9u);  // the held one untouched
}

}  // namespace
}  // namespace stubjit::detail
