// CPU-only, against the fake HIP runtime built in the test tree (fake_hip_runtime.cpp):
// every runtime call of the HIP backend that acts on "the current device" runs with
// the backend's device selected, from whichever thread calls, and the thread keeps the
// device the application selected; synchronous copies go through the null stream
// (which waits for every blocking stream of the device) and wait for it, whatever
// stream they are handed. Needs hipRTC (the backend opens with a compiler), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "backends/hip/hip_backend.hpp"
#include "backends/hip/hip_objects.hpp"
#include "common/scoped_env.hpp"
#include "common/stub_entry_binary.hpp"
#include "hip/hip_test_support.hpp"

namespace stubjit::detail {
namespace {

using test::ScopedEnv;

// The fake opened as stubjit opens a runtime, plus its test hooks.
struct FakeRuntime {
  std::optional<hip::RuntimeLibrary> library;
  std::string reason;
  void* handle = nullptr;
  int (*get_device)(int*) = nullptr;
  int (*set_device)(int) = nullptr;
  int (*device_at_last)(const char*) = nullptr;
  void* (*stream_at_last)(const char*) = nullptr;
  long (*calls)(const char*) = nullptr;
  int (*stream_device)(void*) = nullptr;

  int current() const {
    int device = -1;
    get_device(&device);
    return device;
  }
};

const FakeRuntime& fake() {
  static const FakeRuntime runtime = [] {
    FakeRuntime r;
    r.library = hip::open_runtime({STUBJIT_FAKE_HIP_RUNTIME}, r.reason);
    r.handle = ::dlopen(STUBJIT_FAKE_HIP_RUNTIME, RTLD_NOW | RTLD_LOCAL);
    if (!r.handle) return r;
    const auto find = [&](auto& function, const char* name) {
      function =
          reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(r.handle, name));
    };
    find(r.get_device, "hipGetDevice");
    find(r.set_device, "hipSetDevice");
    find(r.device_at_last, "stubjit_fake_hip_device_at_last");
    find(r.stream_at_last, "stubjit_fake_hip_stream_at_last");
    find(r.calls, "stubjit_fake_hip_calls");
    find(r.stream_device, "stubjit_fake_hip_stream_device");
    return r;
  }();
  return runtime;
}

// Two fake devices; no compile-only fallback.
struct FakeEnvironment {
  ScopedEnv devices{"STUBJIT_FAKE_HIP_DEVICES", "2"};
  ScopedEnv fail_alloc{"STUBJIT_FAKE_HIP_FAIL_ALLOC", std::nullopt};
  ScopedEnv arch{"STUBJIT_HIP_ARCH", std::nullopt};
};

// The HIP backend on fake device 0.
OpenedBackend open_on_device_0() {
  BackendConfig config;
  config.device = 0;
  OpenedBackend opened = open_hip_backend_on(&*fake().library, "", config);
  EXPECT_TRUE(opened.device) << opened.reason;
  return opened;
}

#define REQUIRE_FAKE_RUNTIME()                                                           \
  STUBJIT_REQUIRE_HIPRTC();                                                              \
  ASSERT_TRUE(fake().library) << "the fake runtime built with the tests does not open: " \
                              << fake().reason;                                          \
  ASSERT_TRUE(fake().handle&& fake().calls) << ::dlerror()

TEST(HipFakeRuntime, OpeningLeavesTheApplicationsDeviceSelected) {
  REQUIRE_FAKE_RUNTIME();
  FakeEnvironment env;
  ASSERT_EQ(fake().set_device(1), 0);
  const OpenedBackend opened = open_on_device_0();
  ASSERT_TRUE(opened.device);
  EXPECT_EQ(fake().current(), 1);
  EXPECT_EQ(opened.toolchain->target_id(), "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(opened.device->limits().warp_size, 64u);
  fake().set_device(0);
}

TEST(HipFakeRuntime, EveryCallActsOnTheBackendsDeviceAndTheApplicationsStaysSelected) {
  REQUIRE_FAKE_RUNTIME();
  FakeEnvironment env;
  OpenedBackend opened = open_on_device_0();
  ASSERT_TRUE(opened.device);
  Device* backend = opened.device.get();
  const Binary code_object =
      test::binary_with_stub_entry(*opened.toolchain, "stubjit_k_spread_r1", ".hip");
  const FakeRuntime& runtime = fake();
  std::thread application([&] {
    ASSERT_EQ(runtime.set_device(1), 0);  // the application works on device 1
    const auto on_device_0 = [&](const char* call, const char* after) {
      EXPECT_EQ(runtime.device_at_last(call), 0) << call << " ran on another device";
      EXPECT_EQ(runtime.current(), 1) << "after " << after;
    };
    const char sent[16] = "fifteen bytes..";
    char received[16] = {};
    void* memory = backend->allocate(sizeof sent);
    on_device_0("hipMalloc", "allocate");

    // Synchronous copies: the null stream of device 0, then a wait on it, even when
    // the runtime hands them a stream of its own.
    std::shared_ptr<StreamState> stream = backend->create_stream();
    on_device_0("hipStreamCreate", "create_stream");
    const auto handle = dynamic_cast<hip::HipStream&>(*stream).handle();
    EXPECT_EQ(runtime.stream_device(handle), 0);
    const long waits = runtime.calls("hipStreamSynchronize");
    backend->copy_to_device(memory, sent, sizeof sent, stream.get());
    on_device_0("hipMemcpyAsync(host to device)", "copy_to_device");
    EXPECT_EQ(runtime.stream_at_last("hipMemcpyAsync(host to device)"), nullptr);
    EXPECT_EQ(runtime.calls("hipStreamSynchronize"), waits + 1);
    EXPECT_EQ(runtime.stream_at_last("hipStreamSynchronize"), nullptr);
    on_device_0("hipStreamSynchronize", "copy_to_device");
    backend->copy_to_host(received, memory, sizeof received, stream.get());
    on_device_0("hipMemcpyAsync(device to host)", "copy_to_host");
    EXPECT_EQ(runtime.stream_at_last("hipMemcpyAsync(device to host)"), nullptr);
    EXPECT_EQ(runtime.calls("hipStreamSynchronize"), waits + 2);
    EXPECT_EQ(runtime.stream_at_last("hipStreamSynchronize"), nullptr);
    EXPECT_STREQ(received, sent);

    // Asynchronous copies stay on the stream they are given.
    backend->copy_to_device_async(memory, sent, sizeof sent, stream.get());
    on_device_0("hipMemcpyAsync(host to device)", "copy_to_device_async");
    EXPECT_EQ(runtime.stream_at_last("hipMemcpyAsync(host to device)"), handle);
    backend->copy_to_host_async(received, memory, sizeof received, stream.get());
    EXPECT_EQ(runtime.stream_at_last("hipMemcpyAsync(device to host)"), handle);

    std::unique_ptr<Module> module = backend->load(code_object, "stubjit_k_spread_r1");
    on_device_0("hipModuleLoadData", "load");
    LaunchParams lp{};
    for (int p = 0; p < 3; ++p) {
      lp.grid[p] = 1;
      lp.block[p] = p == 0 ? 64 : 1;
    }
    const char args[8] = {};
    backend->launch(*module, {}, lp, args, sizeof args, stream.get());
    on_device_0("hipModuleLaunchKernel", "launch");
    EXPECT_EQ(runtime.stream_at_last("hipModuleLaunchKernel"), handle);
    backend->synchronize();
    on_device_0("hipDeviceSynchronize", "synchronize");
    stream->synchronize();
    EXPECT_EQ(runtime.current(), 1) << "after Stream::synchronize";

    module.reset();
    on_device_0("hipModuleUnload", "unloading a module");
    stream.reset();
    on_device_0("hipStreamDestroy", "destroying a stream");
    backend->deallocate(memory);
    on_device_0("hipFree", "deallocate");
  });
  application.join();
}

// The HIP device checks every dispatch of a plan before the first is issued: a later
// one outside HIP's 1 to 2^32-1 work-items per dimension fails the whole plan.
TEST(HipFakeRuntime, CheckPlanRefusesAPlanWhoseLaterDispatchCannotRun) {
  REQUIRE_FAKE_RUNTIME();
  FakeEnvironment env;
  OpenedBackend opened = open_on_device_0();
  ASSERT_TRUE(opened.device);
  const std::unique_ptr<Module> module = opened.device->load(
      test::binary_with_stub_entry(*opened.toolchain, "stubjit_k_multi_r1", ".hip"),
      "stubjit_k_multi_r1");
  Plan plan;
  plan.mode = Mode::multi;
  plan.block = {256, 1, 1};
  Dispatch fine;
  fine.grid = {4, 1, 1};
  plan.dispatches.push_back(fine);
  EXPECT_NO_THROW(opened.device->check_plan(*module, plan));
  const long launches = fake().calls("hipModuleLaunchKernel");
  for (std::uint64_t bad : {std::uint64_t(0), (std::uint64_t(1) << 32) / 256}) {
    Plan refused = plan;
    Dispatch later;
    later.grid = {bad, 1, 1};
    refused.dispatches.push_back(later);
    EXPECT_THROW(opened.device->check_plan(*module, refused), BackendError) << bad;
  }
  EXPECT_EQ(fake().calls("hipModuleLaunchKernel"), launches);
}

}  // namespace
}  // namespace stubjit::detail
