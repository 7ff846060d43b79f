// Which NVRTC the CUDA backend takes for a driver: the rule (nvrtc_driver_problem) and
// the choice, with the fake driver reporting a version and fake NVRTC libraries of
// several versions (fake_nvrtc.cpp) named by STUBJIT_NVRTC_PATH. Needs no GPU and no
// real NVRTC.
#include <gtest/gtest.h>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "cuda/env_guard.hpp"
#include "stubjit/error.hpp"

namespace stubjit {
namespace {

using detail::nvrtc_driver_problem;
using test::EnvGuard;

TEST(NvrtcForDriver, CubinsNeedTheDriversMajorVersionPtxItsFullVersion) {
  // CUBINs: minor-version compatibility within a major version, none across one.
  EXPECT_EQ(nvrtc_driver_problem(12, 6, 12040, false), "");
  EXPECT_EQ(nvrtc_driver_problem(12, 0, 12040, false), "");
  EXPECT_EQ(nvrtc_driver_problem(11, 8, 12040, false), "");
  EXPECT_EQ(nvrtc_driver_problem(13, 0, 13000, false), "");
  EXPECT_EQ(nvrtc_driver_problem(12, 9, 13010, false), "");
  const std::string across = nvrtc_driver_problem(13, 0, 12040, false);
  EXPECT_NE(across.find("NVRTC 13.0"), std::string::npos) << across;
  EXPECT_NE(across.find("13.x driver"), std::string::npos) << across;
  EXPECT_NE(across.find("12.4"), std::string::npos) << across;
  // PTX: the driver compiles it, and takes none newer than itself.
  EXPECT_EQ(nvrtc_driver_problem(12, 4, 12040, true), "");
  EXPECT_EQ(nvrtc_driver_problem(12, 2, 12040, true), "");
  const std::string newer_ptx = nvrtc_driver_problem(12, 6, 12040, true);
  EXPECT_NE(newer_ptx.find("NVRTC 12.6's PTX needs a CUDA driver of version 12.6"),
            std::string::npos)
      << newer_ptx;
  EXPECT_NE(newer_ptx.find("12.4"), std::string::npos) << newer_ptx;
  EXPECT_NE(nvrtc_driver_problem(13, 0, 12080, true), "");
}

TEST(NvrtcForDriver, SeveralOverridePathsAreTriedInOrder) {
  EXPECT_EQ(detail::nvrtc_candidates("/a/libnvrtc.so.13:/b/libnvrtc.so.12"),
            (std::vector<std::string>{"/a/libnvrtc.so.13", "/b/libnvrtc.so.12"}));
  EXPECT_EQ(detail::nvrtc_candidates("::/a/x.so:"), std::vector<std::string>{"/a/x.so"});
}

// The fake driver with one device of `driver_version`, and the fake NVRTCs `nvrtcs`
// (newest first) as the only candidates.
struct FakeCuda {
  FakeCuda(int driver_version, const std::string& nvrtcs, bool ptx = false)
      : driver("STUBJIT_CUDA_DRIVER_PATH", std::string(STUBJIT_FAKE_CUDA_DRIVER)),
        version("STUBJIT_FAKE_CUDA_DRIVER_VERSION", std::to_string(driver_version)),
        devices("STUBJIT_FAKE_CUDA_DEVICES", std::string("1")),
        nvrtc("STUBJIT_NVRTC_PATH", nvrtcs),
        force_ptx("STUBJIT_CUDA_PTX", ptx ? std::optional<std::string>("1") : std::nullopt),
        arch("STUBJIT_CUDA_ARCH", std::nullopt) {}
  EnvGuard driver, version, devices, nvrtc, force_ptx, arch;
};

const std::string nvrtc_13_0 = STUBJIT_FAKE_NVRTC_13_0;
const std::string nvrtc_12_6 = STUBJIT_FAKE_NVRTC_12_6;
const std::string nvrtc_12_2 = STUBJIT_FAKE_NVRTC_12_2;

std::string chosen_compiler(const detail::OpenedBackend& opened) {
  return opened.toolchain ? opened.toolchain->compiler_id() : "none: " + opened.reason;
}

TEST(NvrtcForDriver, ADriverOfTheNewestNvrtcsVersionTakesIt) {
  const FakeCuda env(13000, nvrtc_13_0 + ":" + nvrtc_12_6);
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  EXPECT_EQ(chosen_compiler(opened), "nvrtc 13.0");
  EXPECT_NE(opened.device, nullptr) << opened.reason;
}

TEST(NvrtcForDriver, ADriverOfAnOlderMajorVersionTakesTheNewestNvrtcItCanLoad) {
  const FakeCuda env(12040, nvrtc_13_0 + ":" + nvrtc_12_6 + ":" + nvrtc_12_2);
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  // 12.6's CUBINs load on a 12.4 driver (minor-version compatibility).
  EXPECT_EQ(chosen_compiler(opened), "nvrtc 12.6");
  EXPECT_NE(opened.device, nullptr) << opened.reason;
}

TEST(NvrtcForDriver, PtxTakesNoNvrtcNewerThanTheDriver) {
  const FakeCuda env(12040, nvrtc_13_0 + ":" + nvrtc_12_6 + ":" + nvrtc_12_2, /*ptx=*/true);
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  EXPECT_EQ(chosen_compiler(opened), "nvrtc 12.2");
}

TEST(NvrtcForDriver, NoLoadableNvrtcLeavesTheBackendUnavailableNamingBothVersions) {
  const FakeCuda env(12040, nvrtc_13_0);
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  EXPECT_EQ(opened.toolchain, nullptr);
  EXPECT_EQ(opened.device, nullptr);
  EXPECT_NE(opened.reason.find("CUDA driver (12.4)"), std::string::npos) << opened.reason;
  EXPECT_NE(opened.reason.find("NVRTC 13.0"), std::string::npos) << opened.reason;
  EXPECT_NE(opened.reason.find(nvrtc_13_0), std::string::npos) << opened.reason;
  EXPECT_NE(opened.reason.find("STUBJIT_NVRTC_PATH"), std::string::npos) << opened.reason;
}

// Without a device, nothing constrains the choice: a compile-only runtime (a target
// named) takes the newest NVRTC.
TEST(NvrtcForDriver, CompileOnlyTakesTheNewest) {
  const FakeCuda env(12040, nvrtc_13_0 + ":" + nvrtc_12_6);
  const EnvGuard no_device("STUBJIT_FAKE_CUDA_DEVICES", std::string("0"));
  const EnvGuard target("STUBJIT_CUDA_ARCH", std::string("sm_90"));
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  EXPECT_EQ(chosen_compiler(opened), "nvrtc 13.0");
  EXPECT_EQ(opened.device, nullptr);
}

// A compile worker makes its toolchain with the NVRTC the runtime chose (its compiler
// id), not the newest: its CUBINs must be the ones the runtime's driver loads.
TEST(NvrtcForDriver, AWorkersToolchainTakesTheRuntimesNvrtc) {
  const EnvGuard nvrtc("STUBJIT_NVRTC_PATH", nvrtc_13_0 + ":" + nvrtc_12_6);
  EXPECT_EQ(detail::cuda_toolchain_for("sm_90", "nvrtc 12.6")->compiler_id(), "nvrtc 12.6");
  EXPECT_EQ(detail::cuda_toolchain_for("sm_90", "")->compiler_id(), "nvrtc 13.0");
  try {
    detail::cuda_toolchain_for("sm_90", "nvrtc 11.8");
    FAIL() << "made a toolchain without NVRTC 11.8";
  } catch (const BackendError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("no nvrtc 11.8"), std::string::npos) << what;
    EXPECT_NE(what.find("nvrtc 12.6 (" + nvrtc_12_6 + ")"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace stubjit
