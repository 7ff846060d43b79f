// CPU-only, against the fake driver built in the test tree (fake_cuda_driver.cpp,
// loaded through STUBJIT_CUDA_DRIVER_PATH): every driver call of the CUDA backend runs
// in stubjit's own context, from whichever thread calls, and the thread gets back the
// current context it had (the application's choice of device); a dispatch of no
// groups is refused. Needs NVRTC (the backend opens only with it), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <thread>

#include "backends/cuda/cuda_backend.hpp"
#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "common/stub_entry_binary.hpp"
#include "cuda/env_guard.hpp"
#include "cuda/group_kernels.hpp"
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
  std::size_t (*last_launch)(unsigned*) = nullptr;  // grid x, y, z, then block x, y, z
  unsigned (*last_shared_bytes)() = nullptr;

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
    find(d.last_launch, "stubjit_fake_cuda_last_launch");
    find(d.last_shared_bytes, "stubjit_fake_cuda_last_shared_bytes");
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
    device.launch(*module, {}, lp, args, sizeof args, nullptr);
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

// Group launches once the stub is loaded (group_launch.cpp's fit_to_module): where the
// driver says the loaded entry runs fewer threads per block than planned (as its
// registers may allow fewer than its launch bounds: STUBJIT_FAKE_CUDA_MAX_THREADS), a
// kernel whose group size is not fixed runs with that many, rounded down to whole
// warps; a fixed size is refused with a PlanError before anything is launched.

constexpr std::uint32_t fake_function_limit = 200;  // whole warps of 32: 192
constexpr std::uint32_t fitted_group = 192;

// The grid and block of the driver's last cuLaunchKernel.
struct LaunchDims {
  std::array<unsigned, 3> grid{};
  std::array<unsigned, 3> block{};
};
LaunchDims last_launch_dims() {
  unsigned dims[6] = {};
  fake().last_launch(dims);
  return {{dims[0], dims[1], dims[2]}, {dims[3], dims[4], dims[5]}};
}

// An elastic group kernel (no BlockConstraints) with two shared arrays: each group
// reverses its row through `buffer` (n floats) and marks it through `marks` (5 doubles).
KernelSource elastic_shared_kernel() {
  return {"elastic_reverse",
          {group("g"), scalar<std::int64_t>("n"), inout<float>("row", 1),
           shared<float>("buffer", {"n"}), shared<double>("marks", {"5"})},
          "g.inner(n, [&](stubjit::i64 k) { buffer(k) = row(k); });\n"
          "g.single([&] { marks(0) = 1.0; });\n"
          "g.fence();\n"
          "g.inner(n, [&](stubjit::i64 k) { row(k) = buffer(n - 1 - k) + float(marks(0)); });"};
}

// The same kind of body, its groups fixed at 256 threads.
KernelSource fixed_group_kernel() {
  KernelSource source{"fixed_group",
                      {group("g"), scalar<std::int64_t>("n"), inout<float>("row", 1)},
                      "g.inner(n, [&](stubjit::i64 k) { row(k) += 1.0f; });"};
  source.block.shape = {256, 1, 1};
  return source;
}

// The shared bytes of elastic_shared_kernel for `n`: each array rounded up to 16 bytes.
std::uint32_t elastic_shared_bytes(std::uint32_t n) {
  const auto round16 = [](std::uint32_t bytes) { return (bytes + 15) / 16 * 16; };
  return round16(n * 4) + round16(5 * 8);
}

TEST(CudaFakeDriverGroups, AnElasticGroupKernelShrinksToTheEntrysLimitInWholeWarps) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  ASSERT_TRUE(fake().last_launch && fake().last_shared_bytes);
  constexpr std::int64_t n = 37;
  ASSERT_EQ(elastic_shared_bytes(n), 160u + 48u);  // 148 -> 160, 40 -> 48
  LaunchOptions options;
  options.group_size = 256;
  {
    // Without a lower limit, the launch runs the 256 threads it asked for.
    Runtime runtime(on_device_0());
    Kernel kernel = runtime.kernel(elastic_shared_kernel());
    Field rows = runtime.allocate<float>({4, n});
    const LaunchSummary summary = kernel.launch(options, Domain{4}, n, rows);
    EXPECT_EQ(summary.group_size, 256u);
    EXPECT_EQ(last_launch_dims().block, (std::array<unsigned, 3>{256, 1, 1}));
  }
  EnvGuard limit{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::to_string(fake_function_limit)};
  Runtime runtime(on_device_0());
  Kernel kernel = runtime.kernel(elastic_shared_kernel());
  Field rows = runtime.allocate<float>({4, n});
  const long launches = fake().calls("cuLaunchKernel");
  const LaunchSummary summary = kernel.launch(options, Domain{4}, n, rows);
  EXPECT_EQ(summary.group_size, fitted_group);
  EXPECT_EQ(summary.shared_bytes, elastic_shared_bytes(n));
  EXPECT_EQ(summary.dispatches, 1u);
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches + 1);
  const LaunchDims dims = last_launch_dims();
  EXPECT_EQ(dims.block, (std::array<unsigned, 3>{fitted_group, 1, 1}));
  EXPECT_EQ(std::uint64_t(dims.grid[0]) * dims.grid[1] * dims.grid[2], 4u) << "one per group";
  EXPECT_EQ(fake().last_shared_bytes(), summary.shared_bytes);
  EXPECT_EQ(runtime.counters().launches, 1u);
  // prepare fits the same way, and says so.
  EXPECT_EQ(kernel.prepare(options, Domain{4}, n, rows).group_size, fitted_group);
}

void expect_refused_fixed_size(const PlanError& error) {
  EXPECT_EQ(error.limit(), "max_group_threads");
  EXPECT_EQ(error.limit_value(), fake_function_limit);
  const std::string what = error.what();
  EXPECT_NE(what.find("256"), std::string::npos) << what;
  EXPECT_NE(what.find(std::to_string(fake_function_limit)), std::string::npos) << what;
}

TEST(CudaFakeDriverGroups, AFixedGroupSizeAboveTheEntrysLimitIsRefusedBeforeAnyLaunch) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  EnvGuard limit{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::to_string(fake_function_limit)};
  Runtime runtime(on_device_0());
  Kernel kernel = runtime.kernel(fixed_group_kernel());
  Field rows = runtime.allocate<float>({4, 64});
  LaunchOptions options;
  options.group_size = 256;
  const long launches = fake().calls("cuLaunchKernel");
  try {
    kernel.launch(options, Domain{4}, std::int64_t(64), rows);
    FAIL() << "launched fixed groups of 256 threads with an entry that takes "
           << fake_function_limit;
  } catch (const PlanError& error) {
    expect_refused_fixed_size(error);
  }
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches) << "a refused launch reached the driver";
  EXPECT_EQ(runtime.counters().launches, 0u);
}

TEST(CudaFakeDriverGroups, PrepareRefusesAFixedGroupSizeAboveTheEntrysLimit) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  EnvGuard limit{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::to_string(fake_function_limit)};
  Runtime runtime(on_device_0());
  Kernel kernel = runtime.kernel(fixed_group_kernel());
  Field rows = runtime.allocate<float>({4, 64});
  const long loads = fake().calls("cuModuleLoadDataEx");
  const long launches = fake().calls("cuLaunchKernel");
  try {
    kernel.prepare(Domain{4}, std::int64_t(64), rows);  // group size 0: the fixed 256
    FAIL() << "prepared fixed groups of 256 threads with an entry that takes "
           << fake_function_limit;
  } catch (const PlanError& error) {
    expect_refused_fixed_size(error);
  }
  EXPECT_EQ(fake().calls("cuModuleLoadDataEx"), loads + 1) << "the stub was loaded first";
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches);
}

TEST(CudaFakeDriverGroups, ATiledLaunchSpreadsItsTileOverTheFittedGroup) {
  REQUIRE_FAKE_DRIVER();
  FakeEnvironment env;
  ASSERT_TRUE(fake().last_launch);
  LaunchOptions options;
  options.tile = Tile{16, 16};
  const auto launch = [&](Runtime& runtime) {
    Kernel kernel = runtime.kernel(test::groups::mark_tiles_kernel());
    Field tiles = runtime.allocate<std::int64_t>({16, 16});
    Field locals = runtime.allocate<std::int64_t>({16, 16});
    Field visits = runtime.allocate<std::int32_t>({16, 16});
    return kernel.launch(options, Domain{16, 16}, tiles, locals, visits);
  };
  {
    // Without a lower limit, the tile is the group's shape: 16 x 16 threads.
    Runtime runtime(on_device_0());
    EXPECT_EQ(launch(runtime).group_size, 256u);
    EXPECT_EQ(last_launch_dims().block, (std::array<unsigned, 3>{16, 16, 1}));
  }
  EnvGuard limit{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::to_string(fake_function_limit)};
  Runtime runtime(on_device_0());
  const long launches = fake().calls("cuLaunchKernel");
  const LaunchSummary summary = launch(runtime);
  EXPECT_EQ(summary.group_size, fitted_group);
  EXPECT_EQ(summary.dispatches, 1u);
  EXPECT_EQ(fake().calls("cuLaunchKernel"), launches + 1);
  const LaunchDims dims = last_launch_dims();
  EXPECT_EQ(dims.block, (std::array<unsigned, 3>{fitted_group, 1, 1}));
  EXPECT_EQ(dims.grid, (std::array<unsigned, 3>{1, 1, 1})) << "one tile, one group";
}

}  // namespace
}  // namespace stubjit
