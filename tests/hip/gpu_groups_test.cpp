// On an AMD GPU: group kernels and tiled launches (cuda/gpu_group_checks.hpp, shared
// with the CUDA suite) against host loops, with group sizes of 40 to 1024 threads on
// the device's own wavefronts (64 on CDNA, 32 on RDNA; a stub is compiled for the
// device's width): inner loops shorter than, as long as and longer than the group,
// collapsed loops, `single` once per group, fences around group-shared and global
// memory, worker and vector loops with short last wavefronts, two shared arrays, the
// index token and a specialized scalar of a group kernel, tiled tokens with partial
// tiles, a rank-4 tile spread over the group, the YAKL column kernel and a transpose
// through a shared tile. Without an AMD GPU every test skips with the reason; with one
// that stubjit cannot use, every test fails (hip/gpu_support.hpp).
#include <gtest/gtest.h>

#include "cuda/gpu_group_checks.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

// A test that runs `check` on the AMD GPU (the runtime's own limits).
#define HIP_GROUP_TEST(name, check)                                           \
  TEST(HipGroups, name) {                                                     \
    HIP_RUNTIME_OR_SKIP(gpu);                                                 \
    ASSERT_TRUE(gpu.limits().warp_size == 32 || gpu.limits().warp_size == 64) \
        << gpu.limits().warp_size;                                            \
    test::groups::check(gpu);                                                 \
  }

HIP_GROUP_TEST(InnerLoopsOfEveryLengthRunEachIterationOnce, check_inner_loops)
HIP_GROUP_TEST(CollapsedInnerLoopsCoverEveryPairAndTriple, check_collapsed_inner_loops)
HIP_GROUP_TEST(SingleRunsOncePerGroupAndFencesOrderSharedMemory,
               check_single_and_fenced_shared_memory)
HIP_GROUP_TEST(FencesOrderGlobalMemoryWithinAGroup, check_fence_over_global_memory)
HIP_GROUP_TEST(WorkerAndVectorLoopsCoverEveryPairWithShortLastWavefronts,
               check_worker_and_vector_loops)
HIP_GROUP_TEST(TwoSharedArraysOfDifferentTypes, check_two_shared_arrays)
HIP_GROUP_TEST(TheIndexTokenOfAGroupKernelIsItsGroupsIndex, check_index_token)
HIP_GROUP_TEST(ASpecializedScalarSizesLoopsAndSharedMemory, check_specialized_scalar)
HIP_GROUP_TEST(TiledLaunchesVisitEachIndexOnceWithItsTokens, check_tiled_tokens)
HIP_GROUP_TEST(RankFourTileSpreadOverTheGroup, check_rank_four_tile)
HIP_GROUP_TEST(YaklColumnAgainstAHostLoop, check_yakl_column)
HIP_GROUP_TEST(TiledTransposeThroughSharedMemory, check_shared_tile_transpose)

}  // namespace
}  // namespace stubjit
