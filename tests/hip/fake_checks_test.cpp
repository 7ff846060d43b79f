// The fake HIP runtime (fake_hip_runtime.cpp) fails where ROCm would, so that the tests
// run against it can fail: it reads each code object it loads (not an AMDGPU ELF, for
// another processor, a missing kernel: refused), holds launches to the kernel's
// .max_flat_workgroup_size and argument list, records what a launch passed, and does
// queued copies only at a synchronization that orders after them. Called directly,
// and through the HIP backend. Needs hipRTC (for real code objects), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "backends/hip/hip_backend.hpp"
#include "common/scoped_env.hpp"
#include "common/stub_entry_binary.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/launch.h"

namespace stubjit::detail {
namespace {

using test::ScopedEnv;

struct Fake {
  void* handle = ::dlopen(STUBJIT_FAKE_HIP_RUNTIME, RTLD_NOW | RTLD_LOCAL);
  template <class F>
  F get(const char* name) const {
    return handle ? reinterpret_cast<F>(::dlsym(handle, name)) : nullptr;
  }
  int (*load)(void**, const void*) = get<int (*)(void**, const void*)>("hipModuleLoadData");
  int (*unload)(void*) = get<int (*)(void*)>("hipModuleUnload");
  int (*function)(void**, void*,
                  const char*) = get<int (*)(void**, void*, const char*)>("hipModuleGetFunction");
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                void**, void**) =
      get<int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                  void*, void**, void**)>("hipModuleLaunchKernel");
  int (*malloc)(void**, std::size_t) = get<int (*)(void**, std::size_t)>("hipMalloc");
  int (*free)(void*) = get<int (*)(void*)>("hipFree");
  int (*copy_async)(void*, const void*, std::size_t, int, void*) =
      get<int (*)(void*, const void*, std::size_t, int, void*)>("hipMemcpyAsync");
  int (*stream_create)(void**) = get<int (*)(void**)>("hipStreamCreate");
  int (*stream_sync)(void*) = get<int (*)(void*)>("hipStreamSynchronize");
  std::size_t (*last_launch)(unsigned*) =
      get<std::size_t (*)(unsigned*)>("stubjit_fake_hip_last_launch");
  std::size_t (*last_param)(std::size_t, void*, std::size_t) =
      get<std::size_t (*)(std::size_t, void*, std::size_t)>("stubjit_fake_hip_last_param");
};

const Fake& fake() {
  static const Fake instance;
  return instance;
}

constexpr int host_to_device = 1, device_to_host = 2;

// A code object from hipRTC for `target` with one kernel, `bounded`, of at most 64 threads.
std::vector<char> code_object(const std::string& target) {
  const std::unique_ptr<Toolchain> toolchain = hip_toolchain_for(target);
  const std::string source =
      "extern \"C\" __global__ void __launch_bounds__(64) bounded(int* out, long long n) {\n"
      "  if (threadIdx.x < n) out[threadIdx.x] = 1;\n}\n";
  const std::string file = "bounded.hip", entry = "bounded";
  const std::vector<std::string> options;
  return toolchain->compile({source, file, entry, entry, options}).bytes;
}

#define REQUIRE_FAKE()      \
  STUBJIT_REQUIRE_HIPRTC(); \
  ASSERT_TRUE(fake().handle&& fake().last_launch) << ::dlerror()

TEST(HipFakeChecks, CodeObjectsAreReadAndRefusedWhereRocmWouldRefuseThem) {
  REQUIRE_FAKE();
  void* module = nullptr;
  const char garbage[] =
      "\x7f"
      "ELF but nothing else";
  EXPECT_EQ(fake().load(&module, garbage), 200);  // hipErrorInvalidImage
  EXPECT_EQ(fake().load(&module, code_object("gfx1030").data()), 209)
      << "a gfx1030 code object on a gfx90a device";  // hipErrorNoBinaryForGpu
  const std::vector<char> image = code_object("gfx90a");
  ASSERT_EQ(fake().load(&module, image.data()), 0);
  void* function = nullptr;
  EXPECT_EQ(fake().function(&function, module, "missing"), 500);  // hipErrorNotFound
  ASSERT_EQ(fake().function(&function, module, "bounded"), 0);

  void* out = nullptr;
  long long n = 9;
  void* params[2] = {&out, &n};
  EXPECT_EQ(fake().launch(function, 1, 1, 1, 65, 1, 1, 0, nullptr, params, nullptr), 1)
      << "a group above __launch_bounds__(64)";
  EXPECT_EQ(fake().launch(function, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr), 1)
      << "no arguments for a kernel that has two";
  ASSERT_EQ(fake().launch(function, 2, 3, 1, 16, 4, 1, 0, nullptr, params, nullptr), 0);
  unsigned dims[6];
  ASSERT_EQ(fake().last_launch(dims), 2u);
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6), (std::vector<unsigned>{2, 3, 1, 16, 4, 1}));
  long long seen = 0;
  EXPECT_EQ(fake().last_param(1, &seen, sizeof seen), sizeof(long long));
  EXPECT_EQ(seen, 9);
  EXPECT_EQ(fake().unload(module), 0);
}

TEST(HipFakeChecks, QueuedCopiesLandOnlyAtASynchronizationAfterThem) {
  REQUIRE_FAKE();
  void* stream = nullptr;
  ASSERT_EQ(fake().stream_create(&stream), 0);
  void* device = nullptr;
  ASSERT_EQ(fake().malloc(&device, 64), 0);
  std::vector<int> source(16), target(16, -1);
  std::iota(source.begin(), source.end(), 7);
  ASSERT_EQ(fake().copy_async(device, source.data(), 64, host_to_device, stream), 0);
  ASSERT_EQ(fake().copy_async(target.data(), device, 64, device_to_host, stream), 0);
  EXPECT_EQ(target, std::vector<int>(16, -1)) << "read before the stream was synchronized";
  ASSERT_EQ(fake().stream_sync(stream), 0);
  EXPECT_EQ(target, source);
  EXPECT_EQ(fake().free(device), 0);
}

// Through the backend: a launch passes the packed arguments and its own launch
// parameters, at the sizes the stub's code object declares.
TEST(HipFakeChecks, TheBackendPassesTheLaunchParametersItLaunchesWith) {
  REQUIRE_FAKE();
  ScopedEnv devices("STUBJIT_FAKE_HIP_DEVICES", "1");
  ScopedEnv arch("STUBJIT_HIP_ARCH", std::nullopt);
  std::string reason;
  const hip::RuntimeLibrary* runtime = nullptr;
  static const std::optional<hip::RuntimeLibrary> library =
      hip::open_runtime({STUBJIT_FAKE_HIP_RUNTIME}, reason);
  if (library) runtime = &*library;
  ASSERT_TRUE(runtime) << reason;
  OpenedBackend opened = open_hip_backend_on(runtime, "", BackendConfig{});
  ASSERT_TRUE(opened.device) << opened.reason;
  const std::string entry = "stubjit_k_spread_r1";
  const std::unique_ptr<Module> module =
      opened.device->load(test::binary_with_stub_entry(*opened.toolchain, entry, ".hip"), entry);
  LaunchParams lp{};
  lp.grid[0] = 5;
  lp.grid[1] = lp.grid[2] = 1;
  lp.block[0] = 64;
  lp.block[1] = lp.block[2] = 1;
  lp.linear_end = 320;
  const long long args = 42;
  opened.device->launch(*module, {}, lp, &args, sizeof args, nullptr);
  unsigned dims[6];
  ASSERT_EQ(fake().last_launch(dims), 2u);
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6), (std::vector<unsigned>{5, 1, 1, 64, 1, 1}));
  long long passed = 0;
  EXPECT_EQ(fake().last_param(0, &passed, sizeof passed), sizeof passed);
  EXPECT_EQ(passed, 42);
  LaunchParams received{};
  ASSERT_EQ(fake().last_param(1, &received, sizeof received), sizeof received);
  EXPECT_EQ(std::memcmp(&received, &lp, sizeof lp), 0);
}

}  // namespace
}  // namespace stubjit::detail
