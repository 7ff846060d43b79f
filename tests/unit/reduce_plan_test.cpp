// reduce_layout (plan/reduce_plan.hpp): how a reduce launch shares each segment's
// values among groups. Exact numbers worked out by hand for small and large inputs on
// the host (one thread per group) and on a device (threads per group), then the
// invariants over a sweep: never an empty part, every value in a part, at most
// max_parts, splitting only where it pays, and the same layout for the same numbers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan/reduce_plan.hpp"

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

struct Expected {
  u64 segments, length;
  std::uint32_t threads;
  u64 parts, part_length;
};

void expect_layout(const Expected& e) {
  const ReduceLayout layout = reduce_layout(e.segments, e.length, e.threads);
  const std::string what = "segments " + std::to_string(e.segments) + " length " +
                           std::to_string(e.length) + " threads " + std::to_string(e.threads);
  EXPECT_EQ(layout.segments, e.segments) << what;
  EXPECT_EQ(layout.length, e.length) << what;
  EXPECT_EQ(layout.parts, e.parts) << what;
  EXPECT_EQ(layout.part_length, e.part_length) << what;
  EXPECT_EQ(layout.groups(), e.segments * e.parts) << what;
}

TEST(ReduceLayout, TheConstantsThisFileWasWorkedOutWith) {
  EXPECT_EQ(host_min_part, u64(32768));
  EXPECT_EQ(host_target_groups, u64(256));
  EXPECT_EQ(device_values_per_thread, u64(16));
  EXPECT_EQ(device_target_groups, u64(1024));
  EXPECT_EQ(max_parts, u64(1024));
}

// The host: a segment is split when segments < 256 and it has more than 32768 values,
// into min(ceil(256 / segments), ceil(length / 32768), 1024) parts, then as many as
// the part length ceil(length / parts) needs.
TEST(ReduceLayout, HostSmallInputsAreOnePartEach) {
  expect_layout({1, 1, 0, 1, 1});
  expect_layout({1, 100, 0, 1, 100});
  expect_layout({1, 32768, 0, 1, 32768});  // exactly the least a part takes: not split
  expect_layout({1000, 37, 0, 1, 37});
  expect_layout({255, 32768, 0, 1, 32768});
  expect_layout({256, 1000000000, 0, 1, 1000000000});  // enough segments: never split
  expect_layout({100000, 100000, 0, 1, 100000});
}

TEST(ReduceLayout, HostLargeInputsAreSplit) {
  // ceil(32769 / 32768) = 2 parts of ceil(32769 / 2) = 16385.
  expect_layout({1, 32769, 0, 2, 16385});
  // min(256, ceil(100000 / 32768) = 4) = 4 parts of 25000.
  expect_layout({1, 100000, 0, 4, 25000});
  // 3 segments: min(ceil(256 / 3) = 86, ceil(200000 / 32768) = 7) = 7 parts of 28572.
  expect_layout({3, 200000, 0, 7, 28572});
  // 255 segments: ceil(256 / 255) = 2 parts of 500000.
  expect_layout({255, 1000000, 0, 2, 500000});
  // 2^31 + 7 values: min(256, 65537) = 256 parts of ceil((2^31 + 7) / 256) = 8388609.
  expect_layout({1, (u64(1) << 31) + 7, 0, 256, 8388609});
  // 2^40 values, one segment: 256 parts of 2^32.
  expect_layout({1, u64(1) << 40, 0, 256, u64(1) << 32});
}

// A device: the least a part takes is 16 values per thread, the target 1024 groups.
TEST(ReduceLayout, DeviceInputs) {
  expect_layout({1, 1000, 256, 1, 1000});
  expect_layout({1, 4096, 256, 1, 4096});
  // min(1024, ceil(10^6 / 4096) = 245) = 245 parts of ceil(10^6 / 245) = 4082.
  expect_layout({1, 1000000, 256, 245, 4082});
  expect_layout({2000, 1000000, 256, 1, 1000000});
  // min(1024, ceil(17 / 16) = 2) = 2 parts of 9, with one thread per group.
  expect_layout({1, 17, 1, 2, 9});
  // 1024 parts asked, of ceil(524289 / 1024) = 513 values: 1023 of them hold all 524289
  // (1022 * 513 = 524286), so there are 1023, the last of 3 values; none is empty.
  expect_layout({1, 524289, 32, 1023, 513});
  // The most parts: 1024, whatever the length.
  expect_layout({1, u64(1) << 40, 32, 1024, u64(1) << 30});
}

TEST(ReduceLayout, NothingToSplit) {
  // Length 0: one (empty) group per segment, which writes the identity or leaves the
  // result; no segment: no group at all.
  expect_layout({5, 0, 0, 1, 1});
  expect_layout({1, 0, 256, 1, 1});
  expect_layout({0, 100, 0, 1, 1});
  expect_layout({0, 0, 0, 1, 1});
  EXPECT_EQ(reduce_layout(0, u64(1) << 40, 0).groups(), 0u);
  EXPECT_EQ(reduce_layout(7, 0, 32).groups(), 7u);
}

TEST(ReduceLayout, InvariantsOverASweep) {
  const std::vector<u64> segment_counts = {1,   2,    3,    7,    100,  255,         256,
                                           257, 1000, 1023, 1024, 1025, u64(1) << 20};
  const std::vector<u64> lengths = {1,           2,       7,      8,       16,
                                    17,          32767,   32768,  32769,   65536,
                                    99999,       1000000, 524289, 8388609, (u64(1) << 31) + 7,
                                    u64(1) << 40};
  const std::vector<std::uint32_t> thread_counts = {0, 1, 32, 64, 256, 1024};
  for (const std::uint32_t threads : thread_counts) {
    const u64 min_part = threads == 0 ? host_min_part : u64(threads) * device_values_per_thread;
    const u64 target = threads == 0 ? host_target_groups : device_target_groups;
    for (const u64 segments : segment_counts) {
      for (const u64 length : lengths) {
        const ReduceLayout layout = reduce_layout(segments, length, threads);
        const std::string what = "segments " + std::to_string(segments) + " length " +
                                 std::to_string(length) + " threads " + std::to_string(threads);
        EXPECT_EQ(layout.segments, segments) << what;
        EXPECT_EQ(layout.length, length) << what;
        ASSERT_GE(layout.parts, 1u) << what;
        ASSERT_GE(layout.part_length, 1u) << what;
        EXPECT_LE(layout.parts, max_parts) << what;
        // Every value in a part, and no part empty: the last starts before the end.
        EXPECT_GE(layout.parts * layout.part_length, length) << what;
        EXPECT_LT((layout.parts - 1) * layout.part_length, length) << what;
        EXPECT_EQ(layout.groups(), segments * layout.parts) << what;
        if (segments >= target || length <= min_part) {
          EXPECT_EQ(layout.parts, 1u) << what;
        } else {
          // Split where it pays: every part but the last holds a full part_length,
          // parts do not outnumber what the target asks for the segments, nor the
          // min_part-sized pieces of the segment.
          EXPECT_LE(layout.parts, (target + segments - 1) / segments) << what;
          EXPECT_LE(layout.parts, (length + min_part - 1) / min_part) << what;
        }
        // The same numbers, the same layout.
        const ReduceLayout again = reduce_layout(segments, length, threads);
        EXPECT_EQ(again.parts, layout.parts) << what;
        EXPECT_EQ(again.part_length, layout.part_length) << what;
      }
    }
  }
}

// Large segments that few groups share are split into as many parts as the target
// allows (the host's 256 groups): a launch keeps every core busy.
TEST(ReduceLayout, FewLongSegmentsFillTheTarget) {
  for (const u64 segments : {u64(1), u64(2), u64(16), u64(128)}) {
    const ReduceLayout layout = reduce_layout(segments, u64(1) << 30, 0);
    EXPECT_EQ(layout.groups(), host_target_groups) << segments;
  }
}

// scan_layout: a reduction's on a host, and on a device where a segment is not split;
// where it is, parts of one tile each (threads * 8 values, worked out by hand), as many
// as the segment needs, past max_parts.
TEST(ScanLayout, ADeviceSplitsASegmentIntoTilesOfItsGroup) {
  EXPECT_EQ(device_scan_thread_values, u64(8));
  const auto same = [](const ReduceLayout& a, const ReduceLayout& b) {
    return a.segments == b.segments && a.length == b.length && a.parts == b.parts &&
           a.part_length == b.part_length;
  };
  EXPECT_TRUE(same(scan_layout(1, u64(1) << 30, 0), reduce_layout(1, u64(1) << 30, 0)));
  EXPECT_TRUE(same(scan_layout(1, 4096, 256), reduce_layout(1, 4096, 256)));  // not split
  EXPECT_TRUE(same(scan_layout(5000, 100000, 256), reduce_layout(5000, 100000, 256)));
  // 4097 values, groups of 256: split (more than 256 * 16), 3 tiles of 2048.
  ReduceLayout layout = scan_layout(1, 4097, 256);
  EXPECT_EQ(layout.parts, 3u);
  EXPECT_EQ(layout.part_length, 2048u);
  // 2^28 values, groups of 256: 131072 tiles, far past max_parts.
  layout = scan_layout(1, u64(1) << 28, 256);
  EXPECT_EQ(layout.parts, u64(131072));
  EXPECT_EQ(layout.part_length, 2048u);
  // Three pencils of 20483, groups of 32: 81 tiles of 256 each.
  layout = scan_layout(3, 20483, 32);
  EXPECT_EQ(layout.parts, 81u);
  EXPECT_EQ(layout.part_length, 256u);
  EXPECT_EQ(layout.groups(), 243u);
}

// sort_layout on a host: a reduction's split, aiming at 2 parts per worker thread and
// at least 4 (worked out by hand); on a device parts of threads * 8 elements.
TEST(SortLayout, AHostAimsAtTwoPartsPerWorker) {
  EXPECT_EQ(host_sort_parts_per_worker, u64(2));
  EXPECT_EQ(host_sort_min_target, u64(4));
  const auto expect = [](u64 segments, u64 length, unsigned workers, u64 parts, u64 part_length) {
    const ReduceLayout layout = sort_layout(segments, length, 0, workers);
    EXPECT_EQ(layout.parts, parts) << segments << " x " << length << ", " << workers;
    EXPECT_EQ(layout.part_length, part_length) << segments << " x " << length << ", " << workers;
  };
  // 2^26 keys: 2 workers (or none known, or 1) aim at 4 parts of 2^24; 64 workers at 128
  // parts of 2^19.
  expect(1, u64(1) << 26, 2, 4, u64(1) << 24);
  expect(1, u64(1) << 26, 0, 4, u64(1) << 24);
  expect(1, u64(1) << 26, 1, 4, u64(1) << 24);
  expect(1, u64(1) << 26, 64, 128, u64(1) << 19);
  // 300001 keys, 8 workers: min(16, ceil(300001 / 32768) = 10) = 10 parts of 30001.
  expect(1, 300001, 8, 10, 30001);
  // 3 segments of 10^6, 4 workers: ceil(8 / 3) = 3 parts each of 333334.
  expect(3, 1000000, 4, 3, 333334);
  // As many segments as the target, or short ones: one part each.
  expect(8, u64(1) << 26, 4, 1, u64(1) << 26);
  expect(1, 32768, 64, 1, 32768);
  // A device: tiles of the group's threads * 8, whatever the workers.
  const ReduceLayout device = sort_layout(1, 5000, 128, 0);
  EXPECT_EQ(device.part_length, 1024u);
  EXPECT_EQ(device.parts, 5u);
}

}  // namespace
}  // namespace stubjit::detail
