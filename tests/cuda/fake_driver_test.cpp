// CPU-only, against the fake driver built in the test tree (fake_cuda_driver.cpp,
// loaded through STUBJIT_CUDA_DRIVER_PATH): every driver call of the CUDA backend runs
// in stubjit's own context, from whichever thread calls, and the thread gets back the
// current context it had (the application's choice of device); a dispatch of no
// groups is refused. Needs NVRTC (the backend opens only with it), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "backends/cuda/cuda_backend.hpp"
#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "common/stub_entry_binary.hpp"
#include "cuda/env_guard.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::EnvGuard;

// The fake's test hooks, and the context calls an application makes itself.
struct FakeDriver {
  void* handle = nullptr;
  int (*primary_ctx_retain)(void**, int) = nullptr;
  int (*ctx_get_current)(void**) = nullptr;
  int (*ctx_set_current)(void*) = nullptr;
  void* (*context_at_last)(const char*) = nullptr;
  long (*calls)(const char*) = nullptr;

  void* current() const {
    void* context = nullptr;
    ctx_get_current(&context);
    return context;
  }
};

const FakeDriver& fake() {
  static const FakeDriver driver = [] {
    FakeDriver d;
    d.handle = ::dlopen(STUBJIT_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) return d;
    const auto find = [&](auto& function, const char* name) {
      function =
          reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(d.handle, name));
    };
    find(d.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    find(d.ctx_get_current, "cuCtxGetCurrent");
    find(d.ctx_set_current, "cuCtxSetCurrent");
    find(d.context_at_last, "stubjit_fake_cuda_context_at_last");
    find(d.calls, "stubjit_fake_cuda_calls");
    return d;
  }();
  return driver;
}

#define REQUIRE_FAKE_DRIVER()               \
  REQUIRE_NVRTC();                          \
  ASSERT_TRUE(fake().handle&& fake().calls) \
      << "the fake driver built with the tests does not load: " << ::dlerror()

// Two fake devices; the backend is asked for explicitly, nothing is cached on disk.
struct FakeEnvironment {
  EnvGuard driver{"STUBJIT_CUDA_DRIVER_PATH", std::string(STUBJIT_FAKE_CUDA_DRIVER)};
  EnvGuard devices{"STUBJIT_FAKE_CUDA_DEVICES", std::string("2")};
  EnvGuard fail_alloc{"STUBJIT_FAKE_CUDA_FAIL_ALLOC", std::nullopt};
  EnvGuard max_threads{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::nullopt};
  EnvGuard fail_launch{"STUBJIT_FAKE_CUDA_FAIL_LAUNCH", std::nullopt};
  EnvGuard backend{"STUBJIT_BACKEND", std::nullopt};
  EnvGuard arch{"STUBJIT_CUDA_ARCH", std::nullopt};
  EnvGuard ptx{"STUBJIT_CUDA_PTX", std::nullopt};
  EnvGuard cache{"STUBJIT_CACHE", std::string("off")};
};

RuntimeOptions on_device_0() {
  RuntimeOptions options;
  options.backend = "cuda";
  options.device = 0;
  return options;
}

TEST(CudaFakeDriver, EveryCallRunsInStubjitsContextAndTheApplicationsStaysCurrent) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  const FakeDriver& driver = fake();
  void* device0 = nullptr;
  void* device1 = nullptr;
  ASSERT_EQ(driver.primary_ctx_retain(&device0, 0), 0);
  ASSERT_EQ(driver.primary_ctx_retain(&device1, 1), 0);
  ASSERT_NE(device0, device1);

  // The thread that creates the runtime has no current context, and keeps none.
  driver.ctx_set_current(nullptr);
  auto runtime = std::make_unique<Runtime>(on_device_0());
  EXPECT_EQ(driver.current(), nullptr) << "after opening the runtime";
  EXPECT_EQ(driver.context_at_last("cuStreamCreate"), device0);

  // Another thread, on which the application chose device 1 (as cudaSetDevice(1)
  // does), uses the runtime on device 0.
  std::thread application([&] {
    driver.ctx_set_current(device1);
    const auto expect_device1 = [&](const char* after) {
      EXPECT_EQ(driver.current(), device1) << "after " << after;
    };
    {
      std::vector<float> values(1000);
      std::iota(values.begin(), values.end(), 1.0f);
      Field x = runtime->allocate<float>({1000});
      expect_device1("allocate");
      Field y = runtime->allocate<float>({1000});
      x.copy_from(values);
      expect_device1("copy_from");
      y.copy_from(values);
      Kernel saxpy = runtime->kernel(test::saxpy_kernel());
      saxpy.launch(Domain{1000}, 2.0f, x, y);  // compiled by NVRTC, loaded by the fake
      expect_device1("launch");
      // The fake copies for real (its "device memory" is host memory).
      EXPECT_EQ(x.to_vector<float>(), values);
      expect_device1("to_vector");
      Stream stream = runtime->create_stream();
      expect_device1("create_stream");
      std::vector<float> back(1000, 0.0f);
      x.copy_from_async(values.data(), values.size(), stream);
      expect_device1("copy_from_async");
      LaunchOptions on_stream;
      on_stream.stream = &stream;
      saxpy.launch(on_stream, Domain{1000}, 2.0f, x, y);
      expect_device1("launch on a stream");
      x.copy_to_async(back.data(), back.size(), stream);
      expect_device1("copy_to_async");
      stream.synchronize();
      expect_device1("Stream::synchronize");
      EXPECT_EQ(back, values);
      runtime->synchronize();
      expect_device1("Runtime::synchronize");
    }
    expect_device1("freeing fields and destroying a stream");
  });
  application.join();

  for (const char* call :
       {"cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuModuleLoadDataEx", "cuLaunchKernel",
        "cuMemcpyDtoH_v2", "cuStreamCreate", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
        "cuStreamSynchronize", "cuCtxSynchronize", "cuMemFree_v2", "cuStreamDestroy_v2"}) {
    EXPECT_GT(driver.calls(call), 0) << call << " never called";
    EXPECT_EQ(driver.context_at_last(call), device0) << call << " ran outside stubjit's context";
  }
  EXPECT_EQ(driver.current(), nullptr);
  const long unloads = driver.calls("cuModuleUnload");
  runtime.reset();  // unloads the stub and destroys the default stream
  EXPECT_EQ(driver.calls("cuModuleUnload"), unloads + 1);
  EXPECT_EQ(driver.context_at_last("cuModuleUnload"), device0);
  EXPECT_EQ(driver.current(), nullptr) << "after destroying the runtime";
}

TEST(CudaFakeDriver, AThreadAlreadyInStubjitsContextKeepsIt) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  const FakeDriver& driver = fake();
  void* device0 = nullptr;
  ASSERT_EQ(driver.primary_ctx_retain(&device0, 0), 0);
  driver.ctx_set_current(device0);  // a CUDA runtime application on device 0
  {
    Runtime runtime(on_device_0());
    Field x = runtime.allocate<double>({16});
    x.copy_from(std::vector<double>(16, 1.5));
    EXPECT_EQ(x.to_vector<double>(), std::vector<double>(16, 1.5));
  }
  EXPECT_EQ(driver.current(), device0);
  driver.ctx_set_current(nullptr);
}

TEST(CudaFakeDriver, ADispatchOfNoGroupsOrOfEmptyGroupsIsRefused) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  ASSERT_TRUE(opened.device) << opened.reason;
  detail::Device& device = *opened.device;
  const std::unique_ptr<detail::Module> module =
      device.load(test::binary_with_stub_entry(*opened.toolchain, "stubjit_k_direct_r1", ".cu"),
                  "stubjit_k_direct_r1");
  const char args[8] = {};
  const auto dispatch = [&](int dimension, bool empty_grid) {
    LaunchParams lp{};
    for (int p = 0; p < 3; ++p) {
      lp.grid[p] = 1;
      lp.block[p] = 1;
    }
    if (dimension >= 0 && empty_grid) lp.grid[dimension] = 0;
    if (dimension >= 0 && !empty_grid) lp.block[dimension] = 0;
    device.launch(*module, lp, args, sizeof args, nullptr);
  };
  const long launches = fake().calls("cuLaunchKernel");
  for (int dimension = 0; dimension < 3; ++dimension) {
    for (bool empty_grid : {true, false}) {
      try {
        dispatch(dimension, empty_grid);
        ADD_FAILURE() << "launched with 0 " << (empty_grid ? "groups" : "threads per group")
                      << " along "
                      << "xyz"[dimension];
      } catch (const BackendError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find(std::string("along ") + "xyz"[dimension]), std::string::npos) << what;
        EXPECT_NE(what.find("stubjit_k_direct_r1"), std::string::npos) << what;
      }
    }
  }
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches) << "a refused dispatch reached the driver";
  EXPECT_NO_THROW(dispatch(-1, true));
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches + 1);
}

// All or nothing: a plan whose groups are larger than the loaded entry can be launched
// with (as when its registers allow fewer threads than its launch bounds) is refused
// before the first dispatch reaches the driver.
TEST(CudaFakeDriver, GroupsLargerThanTheEntryAllowsAreRefusedBeforeAnyDispatch) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  EnvGuard limit{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::string("64")};
  Runtime runtime(on_device_0());
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  Field visits = runtime.allocate<std::int32_t>({4096});
  ASSERT_EQ(count.plan(Domain{4096}).block[0], 256u);
  const long launches = fake().calls("cuLaunchKernel");
  try {
    count.launch(Domain{4096}, visits);
    FAIL() << "launched groups of 256 threads with an entry that takes 64";
  } catch (const BackendError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("256"), std::string::npos) << what;
    EXPECT_NE(what.find("64"), std::string::npos) << what;
  }
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches);
  EXPECT_EQ(runtime.counters().launches, 0u);
}

// The device checks every dispatch of a plan before the first is issued: a later one
// the driver could not take (no groups, or more than 2^32-1 along a dimension) fails
// the whole plan, and nothing reaches the driver.
TEST(CudaFakeDriver, CheckPlanRefusesAPlanWhoseLaterDispatchCannotRun) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  const detail::OpenedBackend opened = detail::open_cuda_backend(detail::BackendConfig{});
  ASSERT_TRUE(opened.device) << opened.reason;
  const std::unique_ptr<detail::Module> module = opened.device->load(
      test::binary_with_stub_entry(*opened.toolchain, "stubjit_k_multi_r1", ".cu"),
      "stubjit_k_multi_r1");
  Plan plan;
  plan.mode = Mode::multi;
  plan.block = {128, 1, 1};
  Dispatch fine;
  fine.grid = {4, 1, 1};
  plan.dispatches.push_back(fine);
  EXPECT_NO_THROW(opened.device->check_plan(*module, plan));
  const long launches = fake().calls("cuLaunchKernel");
  for (std::uint64_t bad : {std::uint64_t(0), std::uint64_t(1) << 32}) {
    Plan refused = plan;
    Dispatch later;
    later.grid = {bad, 1, 1};
    refused.dispatches.push_back(later);
    EXPECT_THROW(opened.device->check_plan(*module, refused), BackendError) << bad;
  }
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches);
}

// What cannot be checked before: the driver failing a later dispatch of several. The
// earlier ones were issued and cannot be taken back, and the error says how many.
TEST(CudaFakeDriver, ADispatchFailingAfterOthersWereIssuedSaysHowMany) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  RuntimeOptions options = on_device_0();
  options.limits = test::tiny_limits();
  options.fuse_dimensions = false;  // Kernel::plan plans the domain as given
  Runtime runtime(options);
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  Field visits = runtime.allocate<std::int32_t>({12, 12});
  LaunchOptions multi;
  multi.mode = Mode::multi;
  const std::size_t total = count.plan(Domain{12, 12}, Mode::multi).dispatches.size();
  ASSERT_GE(total, 2u);
  count.launch(multi, Domain{12, 12}, visits);  // compiled and launched in full
  {
    // The second dispatch of the next launch fails.
    EnvGuard fail{"STUBJIT_FAKE_CUDA_FAIL_LAUNCH",
                  std::to_string(fake().calls("cuLaunchKernel") + 2)};
    try {
      count.launch(multi, Domain{12, 12}, visits);
      FAIL() << "expected LaunchError";
    } catch (const LaunchError& error) {
      EXPECT_EQ(error.issued(), 1u);
      EXPECT_EQ(error.total(), total);
      const std::string what = error.what();
      EXPECT_NE(what.find("dispatch 2 of " + std::to_string(total)), std::string::npos) << what;
      EXPECT_NE(what.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << what;
    }
  }
  {
    // The first dispatch fails: nothing ran, a plain BackendError.
    EnvGuard fail{"STUBJIT_FAKE_CUDA_FAIL_LAUNCH",
                  std::to_string(fake().calls("cuLaunchKernel") + 1)};
    try {
      count.launch(multi, Domain{12, 12}, visits);
      FAIL() << "expected BackendError";
    } catch (const LaunchError& error) {
      FAIL() << "the first dispatch failed, yet: " << error.what();
    } catch (const BackendError& error) {
      EXPECT_NE(std::string(error.what()).find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos);
    }
  }
  EXPECT_EQ(runtime.counters().launches, 1u);
}

}  // namespace
}  // namespace stubjit
