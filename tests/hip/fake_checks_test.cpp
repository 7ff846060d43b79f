// The fake HIP runtime (fake_hip_runtime.cpp) fails where ROCm would, so that the tests
// run against it can fail: it reads each code object it loads (not an AMDGPU ELF, for
// another processor, a missing kernel: refused), holds launches to the kernel's
// .max_flat_workgroup_size and argument list, records what a launch passed, and does
// queued copies only at a synchronization that orders after them. Called directly,
// and through the HIP backend. Needs hipRTC (for real code objects), not a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <tuple>

#include "backends/hip/hip_backend.hpp"
#include "bind/arg_layout.hpp"
#include "codegen/stub_request.hpp"
#include "common/entry_declaration.hpp"
#include "common/kernels.hpp"
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

// The HIP backend on the fake's one device (its runtime opened once).
class HipFakeBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_FAKE();
    static const std::optional<hip::RuntimeLibrary> library =
        hip::open_runtime({STUBJIT_FAKE_HIP_RUNTIME}, reason_);
    ASSERT_TRUE(library) << reason_;
    opened_ = open_hip_backend_on(&*library, "", BackendConfig{});
    ASSERT_TRUE(opened_.device) << opened_.reason;
  }
  ScopedEnv devices_{"STUBJIT_FAKE_HIP_DEVICES", "1"};
  ScopedEnv arch_{"STUBJIT_HIP_ARCH", std::nullopt};
  std::string reason_;
  OpenedBackend opened_;
};

// Through the backend: a launch passes the packed arguments and its own launch
// parameters, at the sizes the stub's code object declares.
TEST_F(HipFakeBackend, PassesTheLaunchParametersItLaunchesWith) {
  const OpenedBackend& opened = opened_;
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

// Through the backend, a forall stub that takes its values one by one: the runtime
// gets one pointer per parameter of the entry (the fake reads each at the size the
// code object's metadata gives it), and each holds the value the test put in the
// launch parameters or the packed arguments for it: first, step and count per
// dimension, the group's extents, the scalar, the fields' addresses and strides.
TEST_F(HipFakeBackend, PassesEachParameterOfAForallEntryItsValue) {
  const OpenedBackend& opened = opened_;
  const KernelSource saxpy = test::saxpy_kernel();
  StubRequest request;
  request.emitter = "hip";
  request.mode = Mode::direct;
  request.rank = 2;
  request.index_bits = 64;
  request.kernel = &saxpy;
  request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  request.max_threads_per_group = 256;
  request.warp_size = opened.toolchain->typical_limits().warp_size;
  const GeneratedStub stub = generate_stub(request);
  ASSERT_FALSE(stub.parameters.empty()) << "a forall stub takes its values one by one";
  const std::unique_ptr<Module> module = opened.device->load(
      opened.toolchain->compile({stub.source, stub.file_name, stub.entry, saxpy.name, {}}),
      stub.entry);

  LaunchParams lp{};
  for (int d = 0; d < 2; ++d) {
    lp.first[d] = 10 + d;
    lp.step[d] = 20 + d;
    lp.count[d] = 30 + d;
  }
  lp.block[0] = 16;
  lp.block[1] = 4;
  lp.block[2] = 1;
  lp.grid[0] = 2;
  lp.grid[1] = 8;
  lp.grid[2] = 1;
  // The packed arguments (bind/arg_layout.hpp): the scalar in its 8-byte slot, then each
  // field's pointer, extents and strides.
  const ArgLayout layout = arg_layout(saxpy.signature, request.bindings, request.rank);
  std::vector<unsigned char> packed(layout.size);
  const auto put = [&](std::size_t offset, const auto& value) {
    std::memcpy(packed.data() + offset, &value, sizeof value);
  };
  const float a = 2.5f;
  put(layout.offset[0], a);
  const std::int64_t x_address = 0x10000, y_address = 0x20000;
  const std::int64_t x_strides[2] = {301, 3}, y_strides[2] = {501, 7};
  for (const auto& [i, address, strides] :
       {std::tuple{1, x_address, x_strides}, std::tuple{2, y_address, y_strides}}) {
    const std::size_t field = layout.offset[static_cast<std::size_t>(i)];
    put(field, address);
    for (int d = 0; d < 2; ++d) {
      put(field + 8 + 8 * static_cast<std::size_t>(d), std::int64_t{1000});  // extents
      put(field + 24 + 8 * static_cast<std::size_t>(d), strides[d]);
    }
  }
  opened.device->launch(*module, stub.parameters, lp, packed.data(), packed.size(), nullptr);

  std::map<std::string, std::int64_t> expected = {
      {"stubjit_a1_x", x_address},       {"stubjit_a1_y", y_address},
      {"stubjit_a1_x_t0", x_strides[0]}, {"stubjit_a1_x_t1", x_strides[1]},
      {"stubjit_a1_y_t0", y_strides[0]}, {"stubjit_a1_y_t1", y_strides[1]},
  };
  for (int d = 0; d < 3; ++d) {
    const std::string n = std::to_string(d);
    if (d < 2) {
      expected["stubjit_lp_first" + n] = 10 + d;
      expected["stubjit_lp_step" + n] = 20 + d;
      expected["stubjit_lp_count" + n] = 30 + d;
    }
    expected["stubjit_lp_block" + n] = lp.block[d];
  }
  const auto declared = test::entry_parameters(stub.source, stub.entry);
  unsigned dims[6];
  ASSERT_EQ(fake().last_launch(dims), declared.size());
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6), (std::vector<unsigned>{2, 8, 1, 16, 4, 1}));
  test::expect_parameter_values(declared, fake().last_param, "stubjit_a1_a", a, expected,
                                {"stubjit_lp_first1", "stubjit_lp_step1", "stubjit_lp_count1",
                                 "stubjit_lp_block1", "stubjit_a1_x_t0", "stubjit_a1_y_t1"});
}

}  // namespace
}  // namespace stubjit::detail
