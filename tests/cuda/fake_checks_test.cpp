// The fake driver (fake_cuda_driver.cpp) fails where a driver would, so that the tests
// run against it can fail: it reads each image it loads (a malformed one, one for
// another architecture or from a newer CUDA than it reports, a missing kernel: refused),
// holds each launch to the image's launch bounds, records what a launch passed, and does
// queued copies only at a correctly ordered synchronization. Called directly here, and
// through the CUDA backend. Needs NVRTC (for real CUBINs), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include "backends/cuda/cuda_backend.hpp"
#include "common/entry_declaration.hpp"
#include "common/kernels.hpp"
#include "cuda/env_guard.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::EnvGuard;
using Ptr = unsigned long long;

// The fake's entry points, called as an application would call a driver.
struct Fake {
  void* handle = ::dlopen(STUBJIT_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  template <class F>
  F get(const char* name) const {
    return reinterpret_cast<F>(::dlsym(handle, name));
  }
  int (*init)(unsigned) = get<int (*)(unsigned)>("cuInit");
  int (*retain)(void**, int) = get<int (*)(void**, int)>("cuDevicePrimaryCtxRetain");
  int (*set_current)(void*) = get<int (*)(void*)>("cuCtxSetCurrent");
  int (*load)(void**, const void*, unsigned, int*, void**) =
      get<int (*)(void**, const void*, unsigned, int*, void**)>("cuModuleLoadDataEx");
  int (*unload)(void*) = get<int (*)(void*)>("cuModuleUnload");
  int (*function)(void**, void*,
                  const char*) = get<int (*)(void**, void*, const char*)>("cuModuleGetFunction");
  int (*attribute)(int*, int, void*) = get<int (*)(int*, int, void*)>("cuFuncGetAttribute");
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                void**,
                void**) = get<int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, void*, void**, void**)>("cuLaunchKernel");
  int (*alloc)(Ptr*, std::size_t) = get<int (*)(Ptr*, std::size_t)>("cuMemAlloc_v2");
  int (*free)(Ptr) = get<int (*)(Ptr)>("cuMemFree_v2");
  int (*htod_async)(Ptr, const void*, std::size_t, void*) =
      get<int (*)(Ptr, const void*, std::size_t, void*)>("cuMemcpyHtoDAsync_v2");
  int (*dtoh_async)(void*, Ptr, std::size_t,
                    void*) = get<int (*)(void*, Ptr, std::size_t, void*)>("cuMemcpyDtoHAsync_v2");
  int (*dtoh)(void*, Ptr, std::size_t) = get<int (*)(void*, Ptr, std::size_t)>("cuMemcpyDtoH_v2");
  int (*stream_create)(void**, unsigned) = get<int (*)(void**, unsigned)>("cuStreamCreate");
  int (*stream_sync)(void*) = get<int (*)(void*)>("cuStreamSynchronize");
  std::size_t (*last_launch)(unsigned*) =
      get<std::size_t (*)(unsigned*)>("stubjit_fake_cuda_last_launch");
  std::size_t (*last_param)(std::size_t, void*, std::size_t) =
      get<std::size_t (*)(std::size_t, void*, std::size_t)>("stubjit_fake_cuda_last_param");
};

const Fake& fake() {
  static const Fake instance;
  return instance;
}

constexpr int max_threads_attribute = 0;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK

struct FakeEnvironment {
  EnvGuard driver{"STUBJIT_CUDA_DRIVER_PATH", std::string(STUBJIT_FAKE_CUDA_DRIVER)};
  EnvGuard devices{"STUBJIT_FAKE_CUDA_DEVICES", std::string("1")};
  EnvGuard version{"STUBJIT_FAKE_CUDA_DRIVER_VERSION", std::nullopt};
  EnvGuard max_threads{"STUBJIT_FAKE_CUDA_MAX_THREADS", std::nullopt};
  EnvGuard backend{"STUBJIT_BACKEND", std::nullopt};
  EnvGuard arch{"STUBJIT_CUDA_ARCH", std::nullopt};
  EnvGuard ptx{"STUBJIT_CUDA_PTX", std::nullopt};
  EnvGuard cache{"STUBJIT_CACHE", std::string("off")};
};

// A CUBIN from NVRTC for `target` with one kernel, `bounded`, of at most 64 threads.
std::vector<char> cubin(const std::string& target) {
  const std::unique_ptr<detail::Toolchain> toolchain = detail::cuda_toolchain_for(target);
  const std::string source =
      "extern \"C\" __global__ void __launch_bounds__(64) bounded(int* out, long long n) {\n"
      "  if (threadIdx.x < n) out[threadIdx.x] = 1;\n}\n";
  const std::string file = "bounded.cu", entry = "bounded";
  const std::vector<std::string> options;
  return toolchain->compile({source, file, entry, entry, options}).bytes;
}

// A current context on the fake's device 0.
void make_current() {
  void* context = nullptr;
  ASSERT_EQ(fake().init(0), 0);
  ASSERT_EQ(fake().retain(&context, 0), 0);
  ASSERT_EQ(fake().set_current(context), 0);
}

#define REQUIRE_FAKE()                                     \
  REQUIRE_NVRTC();                                         \
  ASSERT_TRUE(fake().handle&& fake().last_launch)          \
      << "the fake driver does not load: " << ::dlerror(); \
  FakeEnvironment env;                                     \
  make_current()

TEST(CudaFakeChecks, ImagesAreReadAndRefusedWhereADriverWouldRefuseThem) {
  REQUIRE_FAKE();
  void* module = nullptr;
  const char garbage[] = "not an image";
  EXPECT_EQ(fake().load(&module, garbage, 0, nullptr, nullptr), 200);  // INVALID_IMAGE
  EXPECT_EQ(fake().load(&module, cubin("sm_80").data(), 0, nullptr, nullptr), 209)
      << "an sm_80 CUBIN on an sm_90 device";  // NO_BINARY_FOR_GPU

  const std::vector<char> image = cubin("sm_90");
  {
    // NVRTC 13's CUBIN on a driver that reports 12.4.
    const EnvGuard old_driver("STUBJIT_FAKE_CUDA_DRIVER_VERSION", std::string("12040"));
    EXPECT_EQ(fake().load(&module, image.data(), 0, nullptr, nullptr), 222);
  }
  ASSERT_EQ(fake().load(&module, image.data(), 0, nullptr, nullptr), 0);
  void* function = nullptr;
  EXPECT_EQ(fake().function(&function, module, "missing"), 500);  // NOT_FOUND
  ASSERT_EQ(fake().function(&function, module, "bounded"), 0);
  int threads = 0;
  ASSERT_EQ(fake().attribute(&threads, max_threads_attribute, function), 0);
  EXPECT_EQ(threads, 64) << "the image's __launch_bounds__";

  // A launch above the bound is refused; one within it is recorded, parameters included.
  Ptr out = 0;
  long long n = 7;
  void* params[2] = {&out, &n};
  EXPECT_EQ(fake().launch(function, 1, 1, 1, 65, 1, 1, 0, nullptr, params, nullptr), 1);
  EXPECT_EQ(fake().launch(function, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr), 1)
      << "no parameters for a kernel that has two";
  ASSERT_EQ(fake().launch(function, 3, 2, 1, 32, 2, 1, 0, nullptr, params, nullptr), 0);
  unsigned dims[6];
  ASSERT_EQ(fake().last_launch(dims), 2u);
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6), (std::vector<unsigned>{3, 2, 1, 32, 2, 1}));
  long long seen = 0;
  EXPECT_EQ(fake().last_param(1, &seen, sizeof seen), sizeof(long long));
  EXPECT_EQ(seen, 7);
  EXPECT_EQ(fake().unload(module), 0);
}

TEST(CudaFakeChecks, AsyncCopiesLandOnlyAtTheirStreamsSynchronization) {
  REQUIRE_FAKE();
  void* stream = nullptr;
  ASSERT_EQ(fake().stream_create(&stream, 1), 0);  // non-blocking: not the legacy stream's
  Ptr device = 0;
  ASSERT_EQ(fake().alloc(&device, 64), 0);
  std::vector<int> source(16), target(16, -1);
  std::iota(source.begin(), source.end(), 100);
  ASSERT_EQ(fake().htod_async(device, source.data(), 64, stream), 0);
  ASSERT_EQ(fake().dtoh_async(target.data(), device, 64, stream), 0);
  EXPECT_EQ(target, std::vector<int>(16, -1)) << "read before the stream was synchronized";
  // A synchronous copy orders with the legacy stream, which a non-blocking stream's
  // work does not join.
  std::vector<int> early(16, -1);
  ASSERT_EQ(fake().dtoh(early.data(), device, 64), 0);
  EXPECT_NE(early, source);
  ASSERT_EQ(fake().stream_sync(stream), 0);
  EXPECT_EQ(target, source);
  EXPECT_EQ(fake().free(device), 0);

  // A blocking stream's queued copy is in place for the next synchronous one.
  void* blocking = nullptr;
  ASSERT_EQ(fake().stream_create(&blocking, 0), 0);
  ASSERT_EQ(fake().alloc(&device, 64), 0);
  ASSERT_EQ(fake().htod_async(device, source.data(), 64, blocking), 0);
  std::vector<int> after(16, -1);
  ASSERT_EQ(fake().dtoh(after.data(), device, 64), 0);
  EXPECT_EQ(after, source);
  EXPECT_EQ(fake().free(device), 0);
}

// Through the backend: the driver gets one pointer per parameter of the stub's entry
// (the fake reads each at the size the CUBIN gives it) and each holds what the test
// computes for it: the scalar, the fields' addresses and strides, the domain's first,
// step and count per dimension, the group's extents. A field read back after the
// launch holds what was written, every copy in order.
TEST(CudaFakeChecks, TheBackendPassesEachParameterOfTheEntryItsValue) {
  REQUIRE_FAKE();
  RuntimeOptions options;
  options.backend = "cuda";
  Runtime runtime(options);
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::int64_t rows = 5, cols = 301;
  Field x = runtime.allocate<float>({rows, cols});
  Field y = runtime.allocate<float>({rows, cols});
  std::vector<float> values(rows * cols);
  std::iota(values.begin(), values.end(), 1.0f);
  x.copy_from(values);
  y.copy_from(values);
  // Rows 1 to 4, every third column of rows of 301: a domain no fusion flattens.
  const Domain domain(std::vector<Dim>{Dim{1, 4, 1}, Dim{0, 100, 3}});
  const LaunchSummary summary = saxpy.launch(domain, 2.5f, x, y);
  EXPECT_EQ(y.to_vector<float>(), values) << "the fake runs no kernel: y is what was copied in";
  ASSERT_EQ(summary.mode, Mode::direct);
  ASSERT_EQ(summary.rank, 2);

  const std::string entry = "stubjit_saxpy_direct_r2";
  const auto declared = test::entry_parameters(saxpy.stub_source(domain, {2.5f, x, y}), entry);
  unsigned dims[6];
  ASSERT_EQ(fake().last_launch(dims), declared.size());
  const auto address = [](const Field& f) {
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(f.data()));
  };
  // What each parameter the entry may take holds for this launch.
  std::map<std::string, std::int64_t> expected = {
      {"stubjit_lp_first0", 1},     {"stubjit_lp_step0", 1},   {"stubjit_lp_count0", 4},
      {"stubjit_lp_first1", 0},     {"stubjit_lp_step1", 3},   {"stubjit_lp_count1", 100},
      {"stubjit_a1_x", address(x)}, {"stubjit_a1_x_t0", cols}, {"stubjit_a1_x_t1", 1},
      {"stubjit_a1_y", address(y)}, {"stubjit_a1_y_t0", cols}, {"stubjit_a1_y_t1", 1},
  };
  for (int p = 0; p < 3; ++p) {
    expected["stubjit_lp_block" + std::to_string(p)] = dims[3 + p];
    expected["stubjit_lp_origin" + std::to_string(p)] = 0;
  }
  test::expect_parameter_values(declared, fake().last_param, "stubjit_a1_a", 2.5f, expected,
                                {"stubjit_lp_count0", "stubjit_lp_count1", "stubjit_lp_block0",
                                 "stubjit_lp_block1", "stubjit_a1_x", "stubjit_a1_y"});
}

}  // namespace
}  // namespace stubjit
