// The pure parts of the CUDA backend: NVRTC log mapping, architecture names, target
// choice, device limits, library search order. No NVRTC or driver needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "backends/cuda/cuda_device.hpp"
#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/cuda_target.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "backends/cuda/nvrtc_log.hpp"
#include "common/temp_dir.hpp"
#include "cuda/env_guard.hpp"
#include "stubjit/error.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail {
namespace {

// A skip reason is one short line: candidates that do not exist are not listed one by
// one (the NVRTC search tries fifteen), only those that exist and fail to load.
TEST(SharedLibrary, AbsentCandidatesGiveAShortReason) {
  std::string why;
  EXPECT_EQ(SharedLibrary::open_first({"libstubjit-absent.so.13", "libstubjit-absent.so.12",
                                       "/nonexistent/stubjit/libstubjit-absent.so.13"},
                                      why),
            nullptr);
  EXPECT_EQ(why, "not found");
}

TEST(SharedLibrary, ACandidateThatExistsButDoesNotLoadIsNamedOnce) {
  test::TempDir dir;
  const std::string bogus = dir.path() + "/libbogus.so.1";
  std::ofstream(bogus) << "not an ELF file\n";
  std::string why;
  EXPECT_EQ(
      SharedLibrary::open_first({"libstubjit-absent.so.1", bogus, "/nonexistent/libx.so"}, why),
      nullptr);
  EXPECT_NE(why.find(bogus), std::string::npos) << why;
  EXPECT_EQ(why.find(bogus), why.rfind(bogus)) << why;
  EXPECT_EQ(why.find("absent"), std::string::npos) << why;
  EXPECT_EQ(why.find("nonexistent"), std::string::npos) << why;
}

TEST(NvrtcLog, DiagnosticsTakeTheFileLineColumnForm) {
  // As NVRTC 13 prints it.
  const std::string log =
      "saxpy.body(2): error: identifier \"a\" is undefined\n"
      "    y = a * 2;\n"
      "        ^\n"
      "\n"
      "1 error detected in the compilation of \"stubjit_saxpy_direct_r1.cu\".\n";
  EXPECT_EQ(normalize_nvrtc_log(log),
            "saxpy.body:2:7: error: identifier \"a\" is undefined\n"
            "    y = a * 2;\n"
            "        ^\n"
            "\n"
            "1 error detected in the compilation of \"stubjit_saxpy_direct_r1.cu\".\n");
}

TEST(NvrtcLog, WithoutACaretTheColumnIsLeftOut) {
  EXPECT_EQ(normalize_nvrtc_log("k.helpers(12): warning #177-D: variable \"v\" was declared\n"),
            "k.helpers:12: warning #177-D: variable \"v\" was declared\n");
  EXPECT_EQ(normalize_nvrtc_log("k.body(3): error: x\n  text\nnot a caret ^\n"),
            "k.body:3: error: x\n  text\nnot a caret ^\n");
}

TEST(NvrtcLog, OtherLinesAreKept) {
  const std::string log =
      "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
      "f(x): not a line number\n"
      "(3): no file\n"
      "a file(3): a space in the name\n";
  EXPECT_EQ(normalize_nvrtc_log(log), log);
  EXPECT_EQ(normalize_nvrtc_log(""), "");
}

TEST(CudaArch, ParsesArchitectureNames) {
  const CudaArch a = parse_cuda_arch("sm_90");
  EXPECT_EQ(a.major, 9);
  EXPECT_EQ(a.minor, 0);
  EXPECT_EQ(a.number(), 90);
  EXPECT_EQ(a.sm(), "sm_90");
  EXPECT_EQ(a.compute(), "compute_90");
  EXPECT_EQ(parse_cuda_arch("sm_86").number(), 86);
  EXPECT_EQ(parse_cuda_arch("sm_120").major, 12);
  EXPECT_EQ(parse_cuda_arch("sm_121").minor, 1);
  EXPECT_EQ(parse_cuda_arch("sm_90a").sm(), "sm_90a");
  EXPECT_EQ(parse_cuda_arch("compute_80").sm(), "sm_80");
}

TEST(CudaArch, RefusesWhatIsNotAnArchitecture) {
  for (const char* bad :
       {"", "sm_", "sm_9", "sm_1234", "sm_90x", "gfx90a", "90", "sm_09", "sm 90", "sm_90;rm"}) {
    EXPECT_THROW(parse_cuda_arch(bad), BackendError) << bad;
  }
  try {
    parse_cuda_arch("sm90");
    FAIL();
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("'sm90' is not a CUDA architecture"),
              std::string::npos);
  }
}

TEST(CudaTarget, CubinForAKnownArchitecture) {
  const CudaTarget t = choose_cuda_target(parse_cuda_arch("sm_90"), {75, 80, 86, 90}, false);
  EXPECT_FALSE(t.ptx);
  EXPECT_EQ(t.id(), "sm_90");
  EXPECT_EQ(t.nvrtc_option(), "--gpu-architecture=sm_90");
}

TEST(CudaTarget, PtxWhenForced) {
  const CudaTarget t = choose_cuda_target(parse_cuda_arch("sm_80"), {75, 80, 86, 90}, true);
  EXPECT_TRUE(t.ptx);
  EXPECT_EQ(t.id(), "compute_80");
  EXPECT_EQ(t.nvrtc_option(), "--gpu-architecture=compute_80");
}

TEST(CudaTarget, PtxOfTheNewestOlderArchitectureForADeviceNvrtcDoesNotKnow) {
  const CudaTarget t = choose_cuda_target(parse_cuda_arch("sm_100"), {75, 80, 86, 90}, false);
  EXPECT_TRUE(t.ptx);
  EXPECT_EQ(t.id(), "compute_90");
}

TEST(CudaTarget, NothingToCompileForIsAnError) {
  EXPECT_THROW(choose_cuda_target(parse_cuda_arch("sm_70"), {75, 80}, false), BackendError);
  EXPECT_THROW(choose_cuda_target(parse_cuda_arch("sm_70"), {}, false), BackendError);
}

TEST(CudaLimits, ComeFromTheDeviceAndTheBlockTable) {
  CudaDeviceInfo device = typical_cuda_device(parse_cuda_arch("sm_90"));
  device.max_grid = {2147483647ULL, 65535, 65535};
  device.max_block = {1024, 1024, 64};
  device.max_threads_per_block = 1024;
  device.warp_size = 32;
  const DeviceLimits limits = cuda_limits(device);
  EXPECT_EQ(limits.max_grid, device.max_grid);
  EXPECT_EQ(limits.max_block, device.max_block);
  EXPECT_EQ(limits.max_threads_per_block, 1024u);
  EXPECT_EQ(limits.warp_size, 32u);
  EXPECT_EQ(limits.max_threads_per_dim, 0u);
  EXPECT_EQ(limits.preferred_block.spread, (Extent3{256, 1, 1}));
  EXPECT_EQ(limits.preferred_block.direct[0], (Extent3{256, 1, 1}));
  EXPECT_EQ(limits.preferred_block.direct[1], (Extent3{32, 8, 1}));
  EXPECT_EQ(limits.preferred_block.direct[2], (Extent3{32, 4, 2}));
  // The launch bounds of every mode and rank are the table's 256 threads.
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi})
    for (int rank = 1; rank <= 3; ++rank)
      EXPECT_EQ(max_group_threads(limits, {}, mode, rank), 256u);
  // A device with smaller blocks shrinks them, bounds included.
  device.max_threads_per_block = 128;
  EXPECT_EQ(max_group_threads(cuda_limits(device), {}, Mode::direct, 2), 128u);
}

TEST(CudaLimits, EveryTableShapeIsWholeWarpsWithinTheSmallestCudaBlock) {
  const BlockShapes shapes = cuda_block_shapes();
  std::vector<Extent3> all = {shapes.spread, shapes.direct[0], shapes.direct[1], shapes.direct[2]};
  for (const Extent3& e : all) {
    EXPECT_EQ(e[0] * e[1] * e[2] % 32, 0u);
    EXPECT_LE(e[0] * e[1] * e[2], 1024u);
    EXPECT_LE(e[2], 64u);
  }
}

TEST(CudaLibraries, SearchOrder) {
  test::EnvGuard home("CUDA_HOME", std::nullopt);
  test::EnvGuard path("CUDA_PATH", std::nullopt);
  const std::vector<std::string> nvrtc = nvrtc_candidates("");
  ASSERT_GE(nvrtc.size(), 10u);
  EXPECT_EQ(nvrtc[0], "libnvrtc.so.13");
  EXPECT_EQ(nvrtc[1], "libnvrtc.so.12");
  EXPECT_EQ(nvrtc[2], "libnvrtc.so.11.2");
  EXPECT_EQ(nvrtc.back(), "/usr/local/cuda/lib64/libnvrtc.so.11.0");
  EXPECT_NE(std::find(nvrtc.begin(), nvrtc.end(), "/usr/local/cuda/lib64/libnvrtc.so.13"),
            nvrtc.end());
  EXPECT_EQ(nvrtc_candidates("/opt/x/libnvrtc.so"), std::vector<std::string>{"/opt/x/libnvrtc.so"});
  EXPECT_EQ(cuda_driver_candidates(""), std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(cuda_driver_candidates("/d/libcuda.so"), std::vector<std::string>{"/d/libcuda.so"});
}

TEST(CudaLibraries, CudaHomeIsSearchedBeforeTheDefaultPrefix) {
  test::EnvGuard home("CUDA_HOME", std::string("/opt/cuda-x"));
  const std::vector<std::string> nvrtc = nvrtc_candidates("");
  const auto at = [&](const std::string& name) {
    return std::find(nvrtc.begin(), nvrtc.end(), name) - nvrtc.begin();
  };
  EXPECT_LT(at("/opt/cuda-x/lib64/libnvrtc.so.13"), at("/usr/local/cuda/lib64/libnvrtc.so.13"));
}

}  // namespace
}  // namespace stubjit::detail
