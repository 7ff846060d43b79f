// On a CUDA GPU: group kernels and tiled launches (cuda/gpu_group_checks.hpp) against
// host loops, with group sizes of 40 to 1024 threads on the device's warps of 32:
// inner loops shorter than, as long as and longer than the group, collapsed loops,
// `single` once per group, fences around group-shared and global memory, worker and
// vector loops with short last warps, two shared arrays, the index token and a
// specialized scalar of a group kernel, tiled tokens with partial tiles, a rank-4 tile
// spread over the group, the YAKL column kernel and a transpose through a shared tile.
// Without a CUDA device every test skips with the reason; with one that stubjit cannot
// use, every test fails (cuda/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_group_checks.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

// A test that runs `check` on the CUDA device (the runtime's own limits: warps of 32).
#define CUDA_GROUP_TEST(name, check)             \
  TEST(CudaGroups, name) {                       \
    CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{}); \
    ASSERT_EQ(gpu->limits().warp_size, 32u);     \
    test::groups::check(*gpu);                   \
  }

CUDA_GROUP_TEST(InnerLoopsOfEveryLengthRunEachIterationOnce, check_inner_loops)
CUDA_GROUP_TEST(CollapsedInnerLoopsCoverEveryPairAndTriple, check_collapsed_inner_loops)
CUDA_GROUP_TEST(SingleRunsOncePerGroupAndFencesOrderSharedMemory,
                check_single_and_fenced_shared_memory)
CUDA_GROUP_TEST(FencesOrderGlobalMemoryWithinAGroup, check_fence_over_global_memory)
CUDA_GROUP_TEST(WorkerAndVectorLoopsCoverEveryPairWithShortLastWarps, check_worker_and_vector_loops)
CUDA_GROUP_TEST(TwoSharedArraysOfDifferentTypes, check_two_shared_arrays)
CUDA_GROUP_TEST(TheIndexTokenOfAGroupKernelIsItsGroupsIndex, check_index_token)
CUDA_GROUP_TEST(ASpecializedScalarSizesLoopsAndSharedMemory, check_specialized_scalar)
CUDA_GROUP_TEST(TiledLaunchesVisitEachIndexOnceWithItsTokens, check_tiled_tokens)
CUDA_GROUP_TEST(RankFourTileSpreadOverTheGroup, check_rank_four_tile)
CUDA_GROUP_TEST(YaklColumnAgainstAHostLoop, check_yakl_column)
CUDA_GROUP_TEST(TiledTransposeThroughSharedMemory, check_shared_tile_transpose)

}  // namespace
}  // namespace stubjit
