// The GPU backends' binaries go through the same disk cache: a cubin (CUDA) or an
// AMDGPU code object (HIP), compiled in each backend's compile-only mode, where its
// run-time compiler is installed; no GPU needed. Without the compiler: skipped.
#include <gtest/gtest.h>

#include <optional>

#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::NeutralCacheEnv;
using test::ScopedEnv;
using test::TempDir;

struct GpuCase {
  const char* backend;
  const char* arch_variable;
  const char* arch;
  const char* format;
  const char* directory;  // <backend>/<target>
};

class GpuCompileOnlyCache : public ::testing::TestWithParam<GpuCase> {};

// Launches saxpy over wrapped host memory: compiled (or read from disk), then, in
// compile-only mode, refused.
void launch_saxpy(Runtime& runtime) {
  std::vector<float> x(256, 1.0f), y(256, 2.0f);
  Field fx = runtime.wrap(static_cast<const float*>(x.data()), {256});
  Field fy = runtime.wrap(y.data(), {256});
  try {
    runtime.kernel(test::saxpy_kernel()).launch(Domain{256}, 3.0f, fx, fy);
  } catch (const BackendError&) {  // no device to run on
  }
}

TEST_P(GpuCompileOnlyCache, SecondRuntimeReadsTheBinaryInsteadOfCompiling) {
  const GpuCase& c = GetParam();
  NeutralCacheEnv neutral;
  ScopedEnv arch(c.arch_variable, c.arch);
  // CUDA: no driver, so the backend is compile-only even on a machine with a GPU.
  ScopedEnv no_driver("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-test/libcuda.so.1");
  TempDir dir;
  RuntimeOptions options;
  options.backend = c.backend;
  options.cache_dir = dir.path();
  std::optional<Runtime> first;
  try {
    first.emplace(options);
  } catch (const BackendError& error) {
    GTEST_SKIP() << c.backend << " cannot compile here: " << error.what();
  }
  launch_saxpy(*first);
  EXPECT_EQ(first->counters().compiles, 1u);
  EXPECT_EQ(first->counters().disk_writes, 1u);
  const std::vector<DiskCacheEntry> entries = list_disk_cache(dir.path(), true);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].valid) << entries[0].problem;
  EXPECT_EQ(entries[0].format, c.format);
  EXPECT_EQ(entries[0].directory.rfind(c.directory, 0), 0u) << entries[0].directory;

  Runtime second(options);
  launch_saxpy(second);
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 1u);
  EXPECT_EQ(second.counters().disk_rejected, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuCompileOnlyCache,
                         ::testing::Values(GpuCase{"cuda", "STUBJIT_CUDA_ARCH", "sm_90", "cubin",
                                                   "cuda/sm_90/"},
                                           GpuCase{"hip", "STUBJIT_HIP_ARCH", "gfx90a",
                                                   "amdgpu-code-object", "hip/gfx90a"}),
                         [](const auto& info) { return std::string(info.param.backend); });

}  // namespace
}  // namespace stubjit
