// Kernel::prepare and Kernel::binary on runtimes that compile for a named target
// without a device (RuntimeOptions::target): prepare fills the disk cache, which a
// second runtime then reads instead of compiling, and the binary is an ELF image for
// the target's machine (a cubin for sm_90, an AMDGPU code object for gfx90a). Where
// the run-time compiler is missing: skipped, with the reason.
#include <gtest/gtest.h>

#include <optional>

#include "common/elf_symbols.hpp"
#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::NeutralCacheEnv;
using test::TempDir;

struct TargetCase {
  const char* backend;
  const char* target;
  const char* format;
  std::uint16_t machine;
};

class PrepareForTarget : public ::testing::TestWithParam<TargetCase> {};

TEST_P(PrepareForTarget, FillsTheDiskCacheForAnotherRuntimeAndGivesTheTargetsBinary) {
  const TargetCase& c = GetParam();
  NeutralCacheEnv neutral;
  TempDir dir;
  RuntimeOptions options;
  options.backend = c.backend;
  options.target = c.target;
  options.cache_dir = dir.path();
  std::optional<Runtime> first;
  try {
    first.emplace(options);
  } catch (const BackendError& error) {
    GTEST_SKIP() << c.backend << " cannot compile for " << c.target << " here: " << error.what();
  }
  EXPECT_EQ(first->target_id(), c.target);
  std::vector<float> x(4096, 1.0f), y(4096, 2.0f);
  Field fx = first->wrap(static_cast<const float*>(x.data()), {64, 64});
  Field fy = first->wrap(y.data(), {64, 64});
  Kernel saxpy = first->kernel(test::saxpy_kernel());
  const LaunchSummary prepared = saxpy.prepare(Domain{64, 64}, 3.0f, fx, fy);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_EQ(prepared.rank, 1);  // dense: fused
  EXPECT_EQ(first->counters().compiles, 1u);
  EXPECT_EQ(first->counters().disk_writes, 1u);
  // Compile-only: a launch is refused before anything runs.
  EXPECT_THROW(saxpy.launch(Domain{64, 64}, 3.0f, fx, fy), BackendError);
  EXPECT_EQ(y, std::vector<float>(4096, 2.0f));

  const StubBinary binary = saxpy.binary(Domain{64, 64}, {3.0f, fx, fy});
  EXPECT_EQ(first->counters().compiles, 1u);  // from the stores
  EXPECT_EQ(binary.format, c.format);
  EXPECT_EQ(binary.target, c.target);
  const std::optional<test::ElfInfo> elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf) << "not an ELF64 image";
  EXPECT_EQ(elf->machine, c.machine);
  EXPECT_TRUE(elf->defines(binary.entry)) << binary.entry;

  const std::vector<DiskCacheEntry> entries = list_disk_cache(dir.path(), true);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].valid) << entries[0].problem;

  Runtime second(options);
  std::vector<float> x2(4096), y2(4096);
  Field gx = second.wrap(static_cast<const float*>(x2.data()), {64, 64});
  Field gy = second.wrap(y2.data(), {64, 64});
  EXPECT_FALSE(second.kernel(test::saxpy_kernel()).prepare(Domain{64, 64}, 1.0f, gx, gy).compiled);
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Targets, PrepareForTarget,
    ::testing::Values(TargetCase{"cuda", "sm_90", "cubin", test::elf_machine_cuda},
                      TargetCase{"hip", "gfx90a", "amdgpu-code-object", test::elf_machine_amdgpu}),
    [](const auto& info) { return std::string(info.param.backend); });

TEST(RuntimeTarget, ATargetNoBackendCompilesForIsRefusedWithEachBackendsReason) {
  RuntimeOptions options;
  options.target = "not_a_target";
  options.disk_cache = false;
  try {
    Runtime runtime(options);
    FAIL() << "a runtime for an unknown target";
  } catch (const BackendError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no backend can compile for target 'not_a_target'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("cpu:"), std::string::npos) << message;
  }
}

TEST(RuntimeTarget, TheHostsOwnTargetGivesACompileOnlyCpuRuntime) {
  RuntimeOptions options = test::cpu_options();
  options.disk_cache = false;
  const std::string host = Runtime(options).target_id();
  options.target = host;
  Runtime runtime(options);
  EXPECT_EQ(runtime.target_id(), host);
  std::vector<float> x(32, 1.0f), y(32, 2.0f);
  Field fx = runtime.wrap(static_cast<const float*>(x.data()), {32});
  Field fy = runtime.wrap(y.data(), {32});
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  EXPECT_TRUE(saxpy.prepare(Domain{32}, 3.0f, fx, fy).compiled);
  EXPECT_THROW(saxpy.launch(Domain{32}, 3.0f, fx, fy), BackendError);
  EXPECT_EQ(y, std::vector<float>(32, 2.0f));
  EXPECT_EQ(runtime.counters().launches, 0u);
}

}  // namespace
}  // namespace stubjit
