// CPU-only: how the CUDA backend behaves without a driver or a GPU. The driver path
// is pointed at files that are not a working driver, so these tests mean the same on
// a machine that has one.
#include <gtest/gtest.h>

#include <filesystem>

#include "backends/cuda/cuda_backend.hpp"
#include "common/kernels.hpp"
#include "cuda/env_guard.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::EnvGuard;

constexpr const char* missing_driver = "/nonexistent/stubjit-test/libcuda.so.1";

// Environment of every test: no backend forced, no arch, a driver that is not there,
// no disk cache (compile counts must not depend on earlier runs).
struct NoDevice {
  EnvGuard backend{"STUBJIT_BACKEND", std::nullopt};
  EnvGuard arch{"STUBJIT_CUDA_ARCH", std::nullopt};
  EnvGuard ptx{"STUBJIT_CUDA_PTX", std::nullopt};
  EnvGuard driver{"STUBJIT_CUDA_DRIVER_PATH", std::string(missing_driver)};
  EnvGuard cache{"STUBJIT_CACHE", std::string("off")};
};

std::string reason_of_cuda() {
  for (const BackendStatus& status : Runtime::probe_backends())
    if (status.name == "cuda") return status.available ? "" : status.detail;
  return "cuda is not registered";
}

TEST(CudaAvailability, WithoutADriverTheBackendIsUnavailableWithTheReason) {
  REQUIRE_NVRTC();
  NoDevice env;
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  EXPECT_FALSE(opened.device);
  EXPECT_FALSE(opened.toolchain);  // no STUBJIT_CUDA_ARCH: no target to compile for
  EXPECT_NE(opened.reason.find("cannot load the CUDA driver from STUBJIT_CUDA_DRIVER_PATH"),
            std::string::npos)
      << opened.reason;
  EXPECT_NE(opened.reason.find(missing_driver), std::string::npos) << opened.reason;
}

TEST(CudaAvailability, CudaIsProbedFirstAndAutomaticSelectionFallsBack) {
  NoDevice env;
  const std::vector<BackendStatus> statuses = Runtime::probe_backends();
  ASSERT_FALSE(statuses.empty());
  EXPECT_EQ(statuses.front().name, "cuda");
  EXPECT_FALSE(statuses.front().available);
  EXPECT_FALSE(statuses.front().detail.empty());
  bool hip_available = false;
  for (const BackendStatus& status : statuses)
    if (status.name == "hip") hip_available = status.available;
#ifdef STUBJIT_NO_CPU_BACKEND
  if (!hip_available) {
    EXPECT_THROW(Runtime{}, BackendError);  // no backend at all
    return;
  }
#endif
  Runtime runtime;
  EXPECT_EQ(runtime.backend_name(), hip_available ? "hip" : "cpu");
}

TEST(CudaAvailability, NamingCudaWithoutADeviceFailsWithTheReason) {
  NoDevice env;
  RuntimeOptions options;
  options.backend = "cuda";
  try {
    Runtime runtime(options);
    FAIL() << "opened CUDA with a missing driver";
  } catch (const BackendError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("backend 'cuda' is not available: "), std::string::npos) << what;
  }
}

TEST(CudaAvailability, AMissingNvrtcIsTheReason) {
  NoDevice env;
  EnvGuard nvrtc("STUBJIT_NVRTC_PATH", std::string("/nonexistent/stubjit-test/libnvrtc.so"));
  const std::string reason = reason_of_cuda();
  EXPECT_NE(reason.find("cannot load NVRTC from STUBJIT_NVRTC_PATH"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/nonexistent/stubjit-test/libnvrtc.so"), std::string::npos) << reason;
}

TEST(CudaAvailability, ALibraryThatIsNotNvrtcIsRefused) {
  NoDevice env;
  EnvGuard nvrtc("STUBJIT_NVRTC_PATH", std::string("libm.so.6"));
  const std::string reason = reason_of_cuda();
  EXPECT_NE(reason.find("libm.so.6 is not a usable NVRTC"), std::string::npos) << reason;
  EXPECT_NE(reason.find("nvrtcCompileProgram"), std::string::npos) << reason;
}

TEST(CudaAvailability, ALibraryThatIsNotTheDriverIsRefused) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard driver("STUBJIT_CUDA_DRIVER_PATH", std::string("libm.so.6"));
  const std::string reason = reason_of_cuda();
  EXPECT_NE(reason.find("libm.so.6 is not a usable CUDA driver"), std::string::npos) << reason;
  EXPECT_NE(reason.find("cuLaunchKernel"), std::string::npos) << reason;
}

TEST(CudaAvailability, TheToolkitsStubDriverIsNotADriver) {
  REQUIRE_NVRTC();
  // The toolkit ships a link-time stub of libcuda whose every call fails.
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << stub << " not installed";
  NoDevice env;
  EnvGuard driver("STUBJIT_CUDA_DRIVER_PATH", std::string(stub));
  const std::string reason = reason_of_cuda();
  EXPECT_NE(reason.find("cuInit failed"), std::string::npos) << reason;
}

TEST(CudaCompileOnly, AutomaticSelectionNeverPicksIt) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_90"));
#ifdef STUBJIT_NO_CPU_BACKEND
  try {
    EXPECT_NE(Runtime().backend_name(), "cuda");
  } catch (const BackendError&) {
    // No backend at all to pick: without the CPU backend, only an AMD GPU would be.
  }
#else
  EXPECT_NE(Runtime().backend_name(), "cuda");
#endif
  const std::string reason = reason_of_cuda();
  EXPECT_NE(reason.find("it compiles for sm_90 without a device when the 'cuda' backend is named"),
            std::string::npos)
      << reason;
}

TEST(CudaCompileOnly, NamedWithAnArchItCompilesButRunsNothing) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_80"));
  RuntimeOptions options;
  options.backend = "cuda";
  Runtime runtime(options);
  EXPECT_EQ(runtime.backend_name(), "cuda");
  EXPECT_EQ(runtime.target_id(), "sm_80");
  EXPECT_EQ(runtime.compiler_id().rfind("nvrtc ", 0), 0u) << runtime.compiler_id();
  EXPECT_EQ(runtime.limits().warp_size, 32u);
  EXPECT_EQ(runtime.limits().preferred_block.direct[1], (Extent3{32, 8, 1}));

  // A kernel without fields reaches the compiler; the launch itself is refused.
  Kernel noop = runtime.kernel({"noop", {index("i"), scalar<float>("a")}, "(void)i; (void)a;"});
  try {
    noop.launch(Domain{100, 100}, 1.0f);
    FAIL() << "a compile-only backend launched";
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("compile-only"), std::string::npos) << error.what();
  }
  EXPECT_EQ(runtime.counters().compiles, 1u);
  const std::string source = noop.stub_source(Domain{100, 100}, {1.0f});
  EXPECT_NE(source.find("stubjit::Index<2, stubjit::i32>"), std::string::npos);  // index32
  EXPECT_NE(source.find("#define STUBJIT_MAX_GROUP_THREADS 256"), std::string::npos);

  EXPECT_THROW(runtime.allocate<float>({4}), BackendError);
  EXPECT_NO_THROW(runtime.synchronize());
  EXPECT_NO_THROW(runtime.create_stream().synchronize());
}

// The index width is part of the stub's identity: one kernel over a small domain (the
// 32-bit variant) and over one past 2^32 indices (64-bit) is two stubs, each kept, and
// neither is taken for the other. Compile-only: the stubs compile and are cached, the
// launches are refused, so what is checked is which stub each launch made and reused.
TEST(CudaCompileOnly, EachIndexWidthIsAStubOfItsOwn) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_90"));
  RuntimeOptions options;
  options.backend = "cuda";
  Runtime runtime(options);
  // Reads its element: a stride-0 view may be bound only read-only.
  Kernel count = runtime.kernel({"read_element", {in<std::int32_t>("v")}, "(void)v;"});
  std::int32_t element = 0;
  // Stride-0 views hold any domain without memory; the large one (and its domain)
  // rule out the 32-bit variant.
  Field small = runtime.wrap(&element, {1000}, {0});
  Field large = runtime.wrap(&element, {std::int64_t(1) << 33}, {0});
  const Domain narrow{1000};
  const Domain wide{std::int64_t(1) << 33};
  EXPECT_NE(count.stub_source(narrow, {small}).find("stubjit::i32 stubjit_p0"), std::string::npos);
  EXPECT_NE(count.stub_source(wide, {large}).find("stubjit::i64 stubjit_p0"), std::string::npos);
  const auto launch = [&](const Domain& domain, const Field& field) {
    EXPECT_THROW(count.launch(domain, field), BackendError);  // compile-only
  };
  launch(narrow, small);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  launch(wide, large);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  launch(narrow, small);
  launch(wide, large);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(runtime.counters().memory_hits, 2u);
}

TEST(CudaCompileOnly, CompileErrorsThroughTheRuntimeAreMappedToTheBody) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_90"));
  RuntimeOptions options;
  options.backend = "cuda";
  Runtime runtime(options);
  Kernel broken = runtime.kernel({"broken", {scalar<float>("a")}, "float b = a;\nb += nothing;"});
  try {
    broken.launch(Domain{8}, 1.0f);
    FAIL();
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken.body:2:6: error: identifier \"nothing\" is undefined"),
              std::string::npos)
        << error.log();
  }
}

TEST(CudaCompileOnly, AnInvalidArchIsTheReason) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_9"));
  RuntimeOptions options;
  options.backend = "cuda";
  try {
    Runtime runtime(options);
    FAIL();
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("'sm_9' is not a CUDA architecture"),
              std::string::npos)
        << error.what();
    // ...without hiding why there is no device.
    EXPECT_NE(std::string(error.what()).find("CUDA driver"), std::string::npos) << error.what();
  }
}

TEST(CudaCompileOnly, PtxOnRequest) {
  REQUIRE_NVRTC();
  NoDevice env;
  EnvGuard arch("STUBJIT_CUDA_ARCH", std::string("sm_90"));
  EnvGuard ptx("STUBJIT_CUDA_PTX", std::string("1"));
  RuntimeOptions options;
  options.backend = "cuda";
  EXPECT_EQ(Runtime(options).target_id(), "compute_90");
}

}  // namespace
}  // namespace stubjit
