// On a CUDA GPU: device identity, memory, copies (synchronous and on streams),
// wrapped device pointers, the 32-bit index variant and 64-bit indexing beyond it.
#include <gtest/gtest.h>

#include <numeric>

#include "common/kernels.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

TEST(CudaDevice, ReportsItsArchitectureAndCompiler) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  EXPECT_EQ(runtime->backend_name(), "cuda");
  EXPECT_EQ(runtime->target_id().rfind("sm_", 0), 0u) << runtime->target_id();
  EXPECT_EQ(runtime->compiler_id().rfind("nvrtc ", 0), 0u) << runtime->compiler_id();
  const DeviceLimits& limits = runtime->limits();
  EXPECT_EQ(limits.warp_size, 32u);
  EXPECT_GE(limits.max_grid[0], 65535u);
  EXPECT_GE(limits.max_threads_per_block, 256u);
  bool listed = false;
  for (const BackendStatus& status : Runtime::probe_backends()) {
    if (status.name != "cuda") continue;
    listed = status.available;
    EXPECT_NE(status.detail.find(runtime->target_id()), std::string::npos) << status.detail;
  }
  EXPECT_TRUE(listed);
}

TEST(CudaDevice, AutomaticSelectionPrefersCuda) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  const char* forced = std::getenv("STUBJIT_BACKEND");
  if (forced && *forced) GTEST_SKIP() << "STUBJIT_BACKEND is set";
  EXPECT_EQ(Runtime().backend_name(), "cuda");
}

TEST(CudaMemory, CopiesRoundTripAndZeroSizeFieldsWork) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  std::vector<double> values(12345);
  std::iota(values.begin(), values.end(), -100.0);
  Field field = runtime->allocate<double>({12345});
  field.copy_from(values);
  EXPECT_EQ(field.to_vector<double>(), values);
  Field empty = runtime->allocate<float>({0, 7});
  EXPECT_TRUE(empty);
  EXPECT_TRUE(empty.to_vector<float>().empty());
}

TEST(CudaMemory, AsynchronousCopiesAndLaunchesOnAStream) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  Kernel saxpy = runtime->kernel(test::saxpy_kernel());
  const std::size_t n = 1 << 20;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = 1.0f;
  }
  Field fx = runtime->allocate<float>({static_cast<std::int64_t>(n)});
  Field fy = runtime->allocate<float>({static_cast<std::int64_t>(n)});
  Stream stream = runtime->create_stream();
  fx.copy_from_async(x.data(), n, stream);
  fy.copy_from_async(y.data(), n, stream);
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  saxpy.launch(on_stream, Domain{static_cast<std::int64_t>(n)}, 2.0f, fx, fy);
  fy.copy_to_async(out.data(), n, stream);
  stream.synchronize();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * x[i] + 1.0f) << i;
}

TEST(CudaMemory, StreamsOfAnotherRuntimeAreRefused) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  CUDA_RUNTIME_OR_SKIP(other, RuntimeOptions{});
  Field field = runtime->allocate<float>({4});
  std::vector<float> host(4, 1.0f);
  Stream foreign = other->create_stream();
  EXPECT_THROW(field.copy_from_async(host.data(), host.size(), foreign), FieldError);
  EXPECT_THROW(field.copy_from_async(host.data(), host.size(), Stream{}), FieldError);
}

TEST(CudaMemory, WrappedDevicePointersAreLaunchedOn) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  Field owner = runtime->allocate<std::int32_t>({6, 10});
  owner.copy_from(std::vector<std::int32_t>(60, 0));
  // The same device memory seen as a transposed 10 x 6 view (column-major strides).
  Field view = runtime->wrap(static_cast<std::int32_t*>(owner.data()), {10, 6}, {1, 10});
  Kernel count = runtime->kernel(test::visit_counter_kernel());
  count.launch(Domain{10, 6}, view);
  const std::vector<std::int32_t> host = owner.to_vector<std::int32_t>();
  for (std::int32_t v : host) ASSERT_EQ(v, 1);
}

TEST(CudaIndexWidth, SmallDomainsUseThirtyTwoBitIndices) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  Kernel write = runtime->kernel(test::index_writer_kernel());
  Field out = runtime->allocate<std::int64_t>({100, 100});
  EXPECT_NE(write.stub_source(Domain{100, 100}, {out}).find("stubjit::Index<2, stubjit::i32>"),
            std::string::npos);
}

TEST(CudaIndexWidth, Beyond32BitIndicesTheSixtyFourBitVariantRuns) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  const std::int64_t beyond = std::int64_t(1) << 31;
  Field codes;  // 16 GiB of int64
  try {
    codes = runtime->allocate<std::int64_t>({beyond + 64});
  } catch (const BackendError& error) {
    GTEST_SKIP() << "cannot allocate 16 GiB: " << error.what();
  }
  Kernel write = runtime->kernel(test::index_writer_kernel());
  // The last 64 elements, addressed by indices beyond 2^31.
  const Domain tail(std::vector<Dim>{Dim{beyond, 64, 1}});
  EXPECT_NE(write.stub_source(tail, {codes}).find("stubjit::Index<1, stubjit::i64>"),
            std::string::npos);
  write.launch(tail, codes);
  Field last = runtime->wrap(static_cast<std::int64_t*>(codes.data()) + beyond, {64});
  const std::vector<std::int64_t> host = last.to_vector<std::int64_t>();
  for (std::int64_t k = 0; k < 64; ++k)
    ASSERT_EQ(host[static_cast<std::size_t>(k)], test::index_code({beyond + k}));
}

}  // namespace
}  // namespace stubjit
