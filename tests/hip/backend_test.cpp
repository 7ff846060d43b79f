// Opening the HIP backend: unavailable with the reason when hipRTC, the runtime or a
// device is missing; compile-only for STUBJIT_HIP_ARCH when named and no AMD GPU is
// present (and then never chosen automatically); library search reports what it tried.
#include <gtest/gtest.h>

#include <cstdlib>

#include "backends/hip/hip_backend.hpp"
#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_library.hpp"
#include "codegen/stub_request.hpp"
#include "common/elf_symbols.hpp"
#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::detail {
namespace {

using test::ScopedEnv;

// These tests are about a machine without an AMD GPU.
bool amd_gpu_present() {
  std::string reason;
  const hip::RuntimeLibrary* runtime = hip::runtime_library(reason);
  return runtime && hip::count_devices(runtime->api, reason) > 0;
}

#define SKIP_WITH_AMD_GPU() \
  if (amd_gpu_present()) GTEST_SKIP() << "an AMD GPU is present: the HIP backend opens with it"

TEST(HipBackend, WithoutGpuOrArchItIsUnavailableWithTheReason) {
  SKIP_WITH_AMD_GPU();
  ScopedEnv arch("STUBJIT_HIP_ARCH", std::nullopt);
  const OpenedBackend opened = open_hip_backend(BackendConfig{});
  EXPECT_FALSE(opened.toolchain);
  EXPECT_FALSE(opened.device);
  EXPECT_FALSE(opened.reason.empty());
  std::string runtime_reason;
  if (hip::runtime_library(runtime_reason)) {
    EXPECT_NE(opened.reason.find("no AMD GPU"), std::string::npos) << opened.reason;
  } else {
    EXPECT_NE(opened.reason.find("not found"), std::string::npos) << opened.reason;
  }
  RuntimeOptions named;
  named.backend = "hip";
  EXPECT_THROW(Runtime{named}, BackendError);
}

// A toolchain without a device is compile-only: automatic selection skips it and says
// that naming the backend would give one.
TEST(HipBackend, ArchWithoutNamingTheBackendIsNotEnough) {
  SKIP_WITH_AMD_GPU();
  STUBJIT_REQUIRE_HIPRTC();
  ScopedEnv arch("STUBJIT_HIP_ARCH", "gfx90a");
  const OpenedBackend opened = open_hip_backend(BackendConfig{});
  EXPECT_TRUE(opened.toolchain) << opened.reason;
  EXPECT_FALSE(opened.device);
  for (const BackendStatus& status : Runtime::probe_backends()) {
    if (status.name != "hip") continue;
    EXPECT_FALSE(status.available);
    EXPECT_NE(status.detail.find("named"), std::string::npos) << status.detail;
    EXPECT_NE(status.detail.find("gfx90a"), std::string::npos) << status.detail;
  }
}

TEST(HipBackend, NamedWithArchOpensCompileOnly) {
  SKIP_WITH_AMD_GPU();
  STUBJIT_REQUIRE_HIPRTC();
  ScopedEnv arch("STUBJIT_HIP_ARCH", "gfx1030");
  OpenedBackend opened = open_hip_backend(BackendConfig{});
  ASSERT_TRUE(opened.toolchain) << opened.reason;
  EXPECT_FALSE(opened.device);
  const Toolchain& toolchain = *opened.toolchain;
  EXPECT_EQ(toolchain.traits().emitter, "hip");
  EXPECT_TRUE(toolchain.traits().index32);
  EXPECT_TRUE(toolchain.traits().launch_bounds);
  EXPECT_EQ(toolchain.target_id(), "gfx1030");
  EXPECT_EQ(toolchain.typical_limits().warp_size, 32u);
  EXPECT_EQ(toolchain.typical_limits().max_threads_per_dim, std::uint64_t(1) << 32);
  EXPECT_EQ(toolchain.compiler_id().rfind("hiprtc ", 0), 0u);

  // Compiles like a backend with a device.
  const KernelSource kernel = test::saxpy_kernel();
  StubRequest request;
  request.emitter = "hip";
  request.mode = Mode::spread;
  request.rank = 2;
  request.kernel = &kernel;
  request.bindings = test::e2e_bindings(kernel);
  request.max_threads_per_group = 256;
  const GeneratedStub stub = generate_stub(request);
  const std::vector<std::string> none;
  const Binary binary =
      toolchain.compile({stub.source, stub.file_name, stub.entry, kernel.name, none});
  const auto elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf);
  EXPECT_TRUE(elf->defines(stub.entry));

  // A runtime that names the backend is compile-only: whatever needs a device says
  // why it cannot.
  RuntimeOptions options;
  options.backend = "hip";
  options.disk_cache = false;
  Runtime runtime(options);
  try {
    runtime.allocate<float>({16});
    FAIL() << "allocated without a device";
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("compile-only"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("gfx1030"), std::string::npos) << error.what();
  }
  std::vector<float> host(4);
  Field wrapped = runtime.wrap(host.data(), {4});
  EXPECT_THROW(wrapped.copy_from(host), BackendError);
  EXPECT_NO_THROW(runtime.create_stream().synchronize());
  EXPECT_NO_THROW(runtime.synchronize());
}

TEST(HipBackend, MalformedOrUnknownArchIsTheReason) {
  SKIP_WITH_AMD_GPU();
  STUBJIT_REQUIRE_HIPRTC();
  for (const char* bad : {"sm_90", "gfx9999"}) {
    ScopedEnv arch("STUBJIT_HIP_ARCH", bad);
    const OpenedBackend opened = open_hip_backend(BackendConfig{});
    EXPECT_FALSE(opened.toolchain);
    EXPECT_NE(opened.reason.find(bad), std::string::npos) << opened.reason;
  }
}

TEST(HipBackend, RuntimeNamedHipCompilesStubsWithoutAGpu) {
  SKIP_WITH_AMD_GPU();
  STUBJIT_REQUIRE_HIPRTC();
  ScopedEnv arch("STUBJIT_HIP_ARCH", "gfx90a");
  RuntimeOptions options;
  options.backend = "hip";
  options.disk_cache = false;
  Runtime runtime(options);
  EXPECT_EQ(runtime.backend_name(), "hip");
  EXPECT_EQ(runtime.target_id(), "gfx90a");
  EXPECT_EQ(runtime.limits().warp_size, 64u);
  EXPECT_THROW(runtime.allocate<float>({4}), BackendError);

  // Host memory wrapped as fields is enough to bind and generate: small domains get
  // the 32-bit index variant. A launch compiles, then says why it cannot run.
  std::vector<std::int64_t> host(100 * 100);
  Field out = runtime.wrap(host.data(), {100, 100});
  Kernel write = runtime.kernel(test::index_writer_kernel());
  EXPECT_NE(write.stub_source(Domain{100, 100}, {out}).find("stubjit::Index<2, stubjit::i32>"),
            std::string::npos);
  try {
    write.launch(Domain{100, 100}, out);
    FAIL() << "launched without a device";
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("compile-only"), std::string::npos) << error.what();
  }
  EXPECT_EQ(runtime.counters().compiles, 1u);
  // The compiled stub stays cached: a second launch does not compile again.
  EXPECT_THROW(write.launch(Domain{100, 100}, out), BackendError);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

TEST(HipBackend, OverriddenLimitsBeyondTheDeviceAreRefusedBeforeAnythingRuns) {
  SKIP_WITH_AMD_GPU();
  STUBJIT_REQUIRE_HIPRTC();
  ScopedEnv arch("STUBJIT_HIP_ARCH", "gfx90a");
  RuntimeOptions options;
  options.backend = "hip";
  options.disk_cache = false;
  DeviceLimits without_cap = Runtime(options).limits();
  ASSERT_EQ(without_cap.max_threads_per_dim, std::uint64_t(1) << 32);
  without_cap.max_threads_per_dim = 0;  // planning would let a dispatch span 2^33
  options.limits = without_cap;
  Runtime runtime(options);
  std::int32_t element = 0;
  // A stride-0 view (read-only: its one element for every index) holds the domain.
  Field visits = runtime.wrap(&element, {std::int64_t(1) << 33}, {0});
  Kernel count = runtime.kernel({"read_element", {in<std::int32_t>("v")}, "(void)v;"});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  try {
    count.launch(direct, Domain{std::int64_t(1) << 33}, visits);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "max_threads_per_dim[x]") << error.what();
  }
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().launches, 0u);
}

TEST(HipBackend, AutomaticSelectionNeverPicksCompileOnly) {
  SKIP_WITH_AMD_GPU();
  ScopedEnv arch("STUBJIT_HIP_ARCH", "gfx90a");
  ScopedEnv backend("STUBJIT_BACKEND", std::nullopt);
  RuntimeOptions options;
  options.disk_cache = false;
  Runtime runtime(options);
  EXPECT_NE(runtime.backend_name(), "hip");
  for (const BackendStatus& status : Runtime::probe_backends()) {
    if (status.name == "hip") {
      EXPECT_FALSE(status.available) << status.detail;
    }
  }
}

TEST(HipLibrary, MissingLibrariesAreReportedWithEveryPathTried) {
  std::string reason;
  EXPECT_FALSE(
      hip::open_hiprtc({"libstubjit-no-such-hiprtc.so.9", "/nonexistent/libhiprtc.so"}, reason));
  EXPECT_NE(reason.find("hipRTC not found"), std::string::npos) << reason;
  EXPECT_NE(reason.find("libstubjit-no-such-hiprtc.so.9: not found"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/nonexistent/libhiprtc.so: not found"), std::string::npos) << reason;
  EXPECT_FALSE(hip::open_runtime({"libstubjit-no-such-amdhip64.so.9"}, reason));
  EXPECT_NE(reason.find("the HIP runtime not found"), std::string::npos) << reason;
}

TEST(HipLibrary, ALibraryWithoutTheSymbolsIsSkippedWithTheFirstMissingOne) {
  std::string reason;
  EXPECT_FALSE(hip::open_hiprtc({"libm.so.6"}, reason));
  EXPECT_NE(reason.find("libm.so.6: lacks hiprtcGetErrorString"), std::string::npos) << reason;
  EXPECT_FALSE(hip::open_runtime({"libm.so.6"}, reason));
  EXPECT_NE(reason.find("libm.so.6: lacks hipGetErrorName"), std::string::npos) << reason;
}

TEST(HipLibrary, DefaultSearchCoversBothRocmLayouts) {
  // Names in the chosen ROCm root (rocm_root_test.cpp tests the choice).
  const std::string root = hip::chosen_rocm_root().lib_dir;
  const std::string prefix = root.empty() ? "" : root + "/";
  const std::vector<std::string> rtc = hip::default_hiprtc_candidates();
  auto has = [](const std::vector<std::string>& list, const std::string& name) {
    for (const std::string& entry : list)
      if (entry == name) return true;
    return false;
  };
  EXPECT_TRUE(has(rtc, prefix + "libhiprtc.so.6"));
  EXPECT_TRUE(has(rtc, prefix + "libhiprtc.so.7"));
  EXPECT_TRUE(has(rtc, prefix + "libamdhip64.so.5"));
  EXPECT_TRUE(has(hip::default_runtime_candidates(), prefix + "libamdhip64.so.6"));
  EXPECT_TRUE(has(hip::default_runtime_candidates(), prefix + "libamdhip64.so.5"));
  EXPECT_EQ(hip::runtime_version_text(50221153), "5.2.21153");
  EXPECT_EQ(hip::runtime_version_text(60443483), "6.4.43483");
}

}  // namespace
}  // namespace stubjit::detail
