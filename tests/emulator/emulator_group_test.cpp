// Group kernels and tiled launches through the real CUDA and HIP stubs on the host
// emulator, whose blocks run their GPU threads in turn with real barriers: the
// GPU suites' checks (cuda/gpu_group_checks.hpp: inner loops shorter than, as long as
// and longer than the group, collapsed loops, `single` once per group, fences around
// group-shared and global memory, worker and vector loops with short last warps, tiled
// tokens and partial tiles, a rank-4 tile spread over a group, the YAKL column, a shared
// tile transpose), each against a host loop, with warp widths 32 and 64 (HIP both) and
// groups of up to 256 threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "cuda/gpu_group_checks.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/warp_cases.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class EmulatedGroups : public test::emulator::WarpCaseTest {};

#define EMULATED_GROUP_TEST(name, check)                                                  \
  TEST_P(EmulatedGroups, name) {                                                          \
    const test::emulator::ScopedLargestGroup largest(test::groups::largest_group(), 256); \
    Runtime runtime = make_runtime();                                                     \
    test::groups::check(runtime);                                                         \
  }

EMULATED_GROUP_TEST(InnerLoopsOfEveryLengthRunEachIterationOnce, check_inner_loops)
EMULATED_GROUP_TEST(CollapsedInnerLoopsCoverEveryPairAndTriple, check_collapsed_inner_loops)
EMULATED_GROUP_TEST(SingleRunsOncePerGroupAndFencesOrderSharedMemory,
                    check_single_and_fenced_shared_memory)
EMULATED_GROUP_TEST(FencesOrderGlobalMemoryWithinAGroup, check_fence_over_global_memory)
EMULATED_GROUP_TEST(WorkerAndVectorLoopsCoverEveryPairWithShortLastWarps,
                    check_worker_and_vector_loops)
EMULATED_GROUP_TEST(TwoSharedArraysOfDifferentTypes, check_two_shared_arrays)
EMULATED_GROUP_TEST(TheIndexTokenOfAGroupKernelIsItsGroupsIndex, check_index_token)
EMULATED_GROUP_TEST(ASpecializedScalarSizesLoopsAndSharedMemory, check_specialized_scalar)
EMULATED_GROUP_TEST(TiledLaunchesVisitEachIndexOnceWithItsTokens, check_tiled_tokens)
EMULATED_GROUP_TEST(RankFourTileSpreadOverTheGroup, check_rank_four_tile)
EMULATED_GROUP_TEST(YaklColumnAgainstAHostLoop, check_yakl_column)
EMULATED_GROUP_TEST(TiledTransposeThroughSharedMemory, check_shared_tile_transpose)

// A tile of rank 2 or 3 that the device runs as one block is the block's shape: each
// position runs on the thread at its place in the tile, x along the last dimension.
TEST_P(EmulatedGroups, ATileIsTheGroupsShape) {
  Runtime runtime = make_runtime();
  Kernel where = runtime.kernel(
      KernelSource{"thread_of",
                   {local_index("l"), inout<std::int64_t>("thread"), inout<std::int64_t>("place")},
                   "thread = (stubjit::i64(threadIdx.z) * 100 + threadIdx.y) * 100 + threadIdx.x;\n"
                   "stubjit::i64 p = 0;\n"
                   "for (int d = 0; d < l.rank; ++d) p = p * 100 + l[d];\n"
                   "place = p;"});
  for (const Tile& tile : {Tile{8, 5}, Tile{4, 2, 4}}) {
    const std::vector<std::int64_t> extents =
        tile.rank == 2 ? std::vector<std::int64_t>{21, 13} : std::vector<std::int64_t>{9, 5, 6};
    std::vector<Dim> dims;
    for (const std::int64_t e : extents) dims.push_back(Dim{0, e, 1});
    Field thread = runtime.allocate<std::int64_t>(extents);
    Field place = runtime.allocate<std::int64_t>(extents);
    thread.copy_from(std::vector<std::int64_t>(std::size_t(thread.size()), -1));
    LaunchOptions options;
    options.tile = tile;
    EXPECT_EQ(where.launch(options, Domain(dims), thread, place).group_size, tile.elements());
    // place: the position in the tile, its last dimension lowest (x), then y, z.
    EXPECT_EQ(thread.to_vector<std::int64_t>(), place.to_vector<std::int64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedGroups,
                         ::testing::ValuesIn(test::emulator::warp_cases()),
                         test::emulator::WarpCaseName());

}  // namespace
}  // namespace stubjit
