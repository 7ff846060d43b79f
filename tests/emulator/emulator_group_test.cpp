// Group kernels and tiled launches through the real CUDA and HIP stubs on the host
// emulator, whose blocks run one host thread per GPU thread with real barriers: inner
// loops shorter than, as long as and longer than the group, collapsed loops, `single`
// once per group, fences around group-shared memory, worker and vector loops with warp
// widths 32 and 64 and short last warps, partial tiles, and tiles spread over a group.
// Every result is checked against a host loop.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using i64 = std::int64_t;
using i32 = std::int32_t;

// A configuration and the warp width its plans assume (HIP: 64 as on CDNA, and 32 as
// on RDNA, through the runtime's limits).
struct GroupCase {
  Config config;
  std::uint32_t warp;
};

std::vector<GroupCase> group_cases() {
  std::vector<GroupCase> cases;
  for (const Config& config : test::emulator::configs_without_sanitizer()) {
    if (config.dialect == test::emulator::Dialect::cuda) {
      cases.push_back({config, 32});
    } else {
      cases.push_back({config, 64});
      cases.push_back({config, 32});
    }
  }
  return cases;
}

struct GroupCaseName {
  std::string operator()(const ::testing::TestParamInfo<GroupCase>& info) const {
    return test::emulator::backend_name(info.param.config) + "_warp" +
           std::to_string(info.param.warp);
  }
};

class EmulatedGroups : public ::testing::TestWithParam<GroupCase> {
 protected:
  Runtime make_runtime() const {
    RuntimeOptions options;
    options.backend = test::emulator::backend_name(GetParam().config);
    options.disk_cache = false;
    options.limits = test::emulator::gpu_like_limits(GetParam().config.dialect);
    options.limits->warp_size = GetParam().warp;
    return Runtime(options);
  }
  static LaunchOptions threads(std::uint32_t group_size) {
    LaunchOptions options;
    options.group_size = group_size;
    return options;
  }
};

// Group sizes around the warp widths: short last warps (40, 72), whole ones (64, 96).
const std::uint32_t group_sizes[] = {40, 64, 72, 96};

TEST_P(EmulatedGroups, InnerLoopsOfEveryLengthRunEachIterationOnce) {
  Runtime runtime = make_runtime();
  Kernel count = runtime.kernel(
      KernelSource{"count_inner",
                   {group("g"), scalar<i64>("n"), inout<i32>("hits", 1)},
                   "g.inner(n, [&](stubjit::i64 k) { stubjit::atomic_add(hits(k), 1); });"});
  const i64 groups = 3;
  for (const std::uint32_t size : group_sizes)
    for (const i64 n : {i64(0), i64(5), i64(size), i64(size) + 1, 3 * i64(size) + 7}) {
      SCOPED_TRACE("group of " + std::to_string(size) + ", n = " + std::to_string(n));
      Field hits = runtime.allocate<i32>({std::max<i64>(n, 1)});
      hits.copy_from(std::vector<i32>(std::size_t(std::max<i64>(n, 1)), 0));
      const LaunchSummary summary = count.launch(threads(size), Domain{groups}, n, hits);
      EXPECT_EQ(summary.group_size, size);
      std::vector<i32> expected(std::size_t(std::max<i64>(n, 1)), 0);
      for (i64 k = 0; k < n; ++k) expected[std::size_t(k)] = i32(groups);
      EXPECT_EQ(hits.to_vector<i32>(), expected);
    }
}

TEST_P(EmulatedGroups, CollapsedInnerLoopsCoverEveryPairAndTriple) {
  Runtime runtime = make_runtime();
  Kernel pairs = runtime.kernel(KernelSource{
      "count_pairs",
      {group("g"), index("at"), scalar<i32>("n0"), scalar<i32>("n1"), scalar<i32>("n2"),
       inout<i32>("two", 2), inout<i32>("three", 3)},
      "g.inner(n0, n1, [&](int a, int b) { stubjit::atomic_add(two(a, b), int(at[0]) + 1); });\n"
      "g.inner(n0, n1, n2, [&](int a, int b, int c) {\n"
      "  stubjit::atomic_add(three(a, b, c), 1);\n"
      "});"});
  const i32 n0 = 7, n1 = 13, n2 = 3;
  Field two = runtime.allocate<i32>({n0, n1});
  Field three = runtime.allocate<i32>({n0, n1, n2});
  two.copy_from(std::vector<i32>(std::size_t(n0 * n1), 0));
  three.copy_from(std::vector<i32>(std::size_t(n0 * n1 * n2), 0));
  pairs.launch(threads(72), Domain{4}, n0, n1, n2, two, three);
  EXPECT_EQ(two.to_vector<i32>(), std::vector<i32>(std::size_t(n0 * n1), 1 + 2 + 3 + 4));
  EXPECT_EQ(three.to_vector<i32>(), std::vector<i32>(std::size_t(n0 * n1 * n2), 4));
}

TEST_P(EmulatedGroups, SingleRunsOncePerGroupAndFencesOrderSharedMemory) {
  Runtime runtime = make_runtime();
  // Each group reverses its slice through a shared array: written by one thread per
  // element, read by another after the fence; `single` counts the group.
  Kernel reverse = runtime.kernel(KernelSource{
      "reverse_slices",
      {group("g"), index("at"), scalar<i64>("n"), in<float>("in", 1), inout<float>("out", 1),
       inout<i32>("singles"), shared<float>("buffer", {"n"})},
      "g.inner(n, [&](stubjit::i64 k) { buffer(k) = in(k); });\n"
      "g.fence();\n"
      "g.single([&] { singles += 1; });\n"
      "g.inner(n, [&](stubjit::i64 k) { out(k) = buffer(n - 1 - k) + float(at[0]); });"});
  const i64 groups = 5, n = 150;
  std::vector<float> in(std::size_t(groups * n));
  std::iota(in.begin(), in.end(), 0.0f);
  Field f_in = runtime.wrap(in.data(), {groups, n});
  Field out = runtime.allocate<float>({groups, n});
  Field singles = runtime.allocate<i32>({groups});
  singles.copy_from(std::vector<i32>(std::size_t(groups), 0));
  const LaunchSummary summary = reverse.launch(threads(64), Domain{groups}, n, f_in, out, singles);
  EXPECT_EQ(summary.shared_bytes, std::uint32_t(n * 4 + 8));  // rounded up to 16 bytes
  std::vector<float> expected(in.size());
  for (i64 g = 0; g < groups; ++g)
    for (i64 k = 0; k < n; ++k)
      expected[std::size_t(g * n + k)] = in[std::size_t(g * n + n - 1 - k)] + float(g);
  EXPECT_EQ(out.to_vector<float>(), expected);
  EXPECT_EQ(singles.to_vector<i32>(), std::vector<i32>(std::size_t(groups), 1));
}

TEST_P(EmulatedGroups, WorkerAndVectorLoopsCoverEveryPairWithShortLastWarps) {
  Runtime runtime = make_runtime();
  // Gang = group, worker = warp, vector = lane: each (w, v) once per group, each
  // worker's `vector_single` once per w, and a vector fence ordering a per-worker row
  // of shared memory (written by one lane, read by another).
  Kernel gwv = runtime.kernel(KernelSource{
      "gang_worker_vector",
      {group("g"), scalar<i32>("nw"), scalar<i32>("nv"), inout<i32>("hits", 2),
       inout<i32>("once", 1), inout<i32>("mirrored", 2), shared<i32>("row", {"32", "nv"})},
      R"(
g.worker_loop(nw, [&](int w) {
  g.vector_loop(nv, [&](int v) { stubjit::atomic_add(hits(w, v), 1); });
  g.vector_single([&] { stubjit::atomic_add(once(w), 1); });
  const int slot = int(g.worker_rank());
  g.vector_loop(nv, [&](int v) { row(slot, v) = w * 1000 + v; });
  g.vector_fence();
  g.vector_loop(nv, [&](int v) { stubjit::atomic_add(mirrored(w, v), row(slot, nv - 1 - v)); });
  g.vector_fence();
});
)"});
  const i64 groups = 2;
  for (const std::uint32_t size : group_sizes)
    for (const i32 nv : {3, 40, 70}) {
      const i32 nw = 9;
      SCOPED_TRACE("group of " + std::to_string(size) + ", nv = " + std::to_string(nv));
      Field hits = runtime.allocate<i32>({nw, nv});
      Field once = runtime.allocate<i32>({nw});
      Field mirrored = runtime.allocate<i32>({nw, nv});
      hits.copy_from(std::vector<i32>(std::size_t(nw * nv), 0));
      once.copy_from(std::vector<i32>(std::size_t(nw), 0));
      mirrored.copy_from(std::vector<i32>(std::size_t(nw * nv), 0));
      gwv.launch(threads(size), Domain{groups}, nw, nv, hits, once, mirrored);
      EXPECT_EQ(hits.to_vector<i32>(), std::vector<i32>(std::size_t(nw * nv), i32(groups)));
      EXPECT_EQ(once.to_vector<i32>(), std::vector<i32>(std::size_t(nw), i32(groups)));
      std::vector<i32> expected(std::size_t(nw * nv));
      for (i32 w = 0; w < nw; ++w)
        for (i32 v = 0; v < nv; ++v)
          expected[std::size_t(w * nv + v)] = i32(groups) * (w * 1000 + nv - 1 - v);
      EXPECT_EQ(mirrored.to_vector<i32>(), expected);
    }
}

// Per-element kernels over tiles: each index once, with its tile and its place in it.
TEST_P(EmulatedGroups, TiledLaunchesVisitEachIndexOnceWithItsTokens) {
  Runtime runtime = make_runtime();
  Kernel mark =
      runtime.kernel(KernelSource{"mark_tiles",
                                  {index("i"), tile_index("t"), local_index("l"),
                                   inout<i64>("tiles"), inout<i64>("locals"), inout<i32>("visits")},
                                  "tiles = t[0] * 100 + t[1];\nlocals = l[0] * 100 + l[1];\n"
                                  "stubjit::atomic_add(visits, 1);\n(void)i;"});
  const i64 rows = 21, cols = 13;
  struct TileCase {
    Tile tile;
    std::uint32_t group_size;  // expected threads per group
  };
  // A tile as the group's shape; a tile of 2048 spread over the device's 1024 threads;
  // a tile of rank 1 (rows tiled by 1).
  for (const TileCase& c :
       {TileCase{Tile{8, 5}, 40}, TileCase{Tile{64, 32}, 1024}, TileCase{Tile{6}, 6}}) {
    SCOPED_TRACE("tile of " + std::to_string(c.tile.elements()));
    Field tiles = runtime.allocate<i64>({rows, cols});
    Field locals = runtime.allocate<i64>({rows, cols});
    Field visits = runtime.allocate<i32>({rows, cols});
    visits.copy_from(std::vector<i32>(std::size_t(rows * cols), 0));
    LaunchOptions options;
    options.tile = c.tile;
    const LaunchSummary summary = mark.launch(options, Domain{rows, cols}, tiles, locals, visits);
    EXPECT_EQ(summary.group_size, c.group_size);
    const int r = c.tile.rank;
    const i64 tr = r == 2 ? c.tile.extents[0] : 1;
    const i64 tc = c.tile.extents[std::size_t(r - 1)];
    std::vector<i64> want_tiles(std::size_t(rows * cols)), want_locals(want_tiles.size());
    for (i64 a = 0; a < rows; ++a)
      for (i64 b = 0; b < cols; ++b) {
        want_tiles[std::size_t(a * cols + b)] = a / tr * 100 + b / tc;
        want_locals[std::size_t(a * cols + b)] = a % tr * 100 + b % tc;
      }
    EXPECT_EQ(visits.to_vector<i32>(), std::vector<i32>(std::size_t(rows * cols), 1));
    EXPECT_EQ(tiles.to_vector<i64>(), want_tiles);
    EXPECT_EQ(locals.to_vector<i64>(), want_locals);
  }
}

TEST_P(EmulatedGroups, RankFourTileSpreadOverTheGroup) {
  Runtime runtime = make_runtime();
  Kernel mark = runtime.kernel(KernelSource{
      "mark4",
      {local_index("l"), inout<i32>("visits", 0), inout<i64>("where")},
      "stubjit::atomic_add(visits, 1);\nwhere = ((l[0] * 10 + l[1]) * 10 + l[2]) * 10 + l[3];"});
  const std::vector<i64> extents = {3, 5, 4, 7};
  Field visits = runtime.allocate<i32>(extents);
  Field where = runtime.allocate<i64>(extents);
  visits.copy_from(std::vector<i32>(3 * 5 * 4 * 7, 0));
  LaunchOptions options;
  options.tile = Tile{2, 3, 2, 3};
  options.group_size = 16;  // 36 positions a tile, spread over 16 threads
  EXPECT_EQ(mark.launch(options, Domain{3, 5, 4, 7}, visits, where).group_size, 16u);
  EXPECT_EQ(visits.to_vector<i32>(), std::vector<i32>(3 * 5 * 4 * 7, 1));
  const std::vector<i64> got = where.to_vector<i64>();
  std::size_t at = 0;
  for (i64 a = 0; a < 3; ++a)
    for (i64 b = 0; b < 5; ++b)
      for (i64 c = 0; c < 4; ++c)
        for (i64 d = 0; d < 7; ++d)
          EXPECT_EQ(got[at++], ((a % 2 * 10 + b % 3) * 10 + c % 2) * 10 + d % 3);
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedGroups, ::testing::ValuesIn(group_cases()),
                         GroupCaseName());

}  // namespace
}  // namespace stubjit
