// The GPU backends' binaries go through the same disk cache: a cubin (CUDA) or an
// AMDGPU code object (HIP), compiled in each backend's compile-only mode, where its
// run-time compiler is installed; no GPU needed. Without the compiler: skipped.
#include <gtest/gtest.h>

#include <optional>

#include "common/elf_symbols.hpp"
#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "cuda/group_kernels.hpp"
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

class GpuCompileOnlyCache : public ::testing::TestWithParam<GpuCase> {
 protected:
  // A runtime of the case's backend, compile-only; nullopt (the reason in why_) where
  // its run-time compiler is not installed.
  std::optional<Runtime> compile_only(const RuntimeOptions& options) {
    try {
      return Runtime(options);
    } catch (const BackendError& error) {
      why_ = error.what();
      return std::nullopt;
    }
  }

  NeutralCacheEnv neutral_;
  ScopedEnv arch_{GetParam().arch_variable, GetParam().arch};
  // CUDA: no driver, so the backend is compile-only even on a machine with a GPU.
  ScopedEnv no_driver_{"STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-test/libcuda.so.1"};
  std::string why_;
};

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
  TempDir dir;
  RuntimeOptions options;
  options.backend = c.backend;
  options.cache_dir = dir.path();
  std::optional<Runtime> first = compile_only(options);
  if (!first) GTEST_SKIP() << c.backend << " cannot compile here: " << why_;
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

// A Fortran nest's stencil (do j; do i over column-major a(i, j), b(i, j)) compiles for
// the target, in every mode, and its stub hands the index token the run's dimensions
// back in Fortran order: p[0], i, is the stub's innermost (last) dimension.
TEST_P(GpuCompileOnlyCache, AFortranOrderStencilCompiles) {
  const GpuCase& c = GetParam();
  RuntimeOptions options;
  options.backend = c.backend;
  options.disk_cache = false;
  std::optional<Runtime> runtime = compile_only(options);
  if (!runtime) GTEST_SKIP() << c.backend << " cannot compile here: " << why_;
  Kernel jacobi = runtime->kernel({"jacobi_f",
                                   {index("p"), in<double>("a", 2), inout<double>("b")},
                                   "const auto i = p[0], j = p[1];\n"
                                   "b = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + "
                                   "a(i, j + 1));"});
  const std::int64_t m = 53, n = 37;
  std::vector<double> a(m * n), b(m * n);
  const std::vector<std::int64_t> column_major = {1, m};
  const Field fa = runtime->wrap(static_cast<const double*>(a.data()), {m, n}, column_major);
  const Field fb = runtime->wrap(b.data(), {m, n}, column_major);
  const Domain interior = Domain::loops({{1, n - 2}, {m - 2, 1, -1}}, Order::fortran);
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
    SCOPED_TRACE(name_of(mode));
    LaunchOptions forced;
    forced.mode = mode;
    const LaunchSummary summary = jacobi.prepare(forced, interior, fa, fb);
    EXPECT_TRUE(summary.compiled);
    EXPECT_EQ(summary.mode, mode);
  }
  EXPECT_EQ(runtime->counters().compiles, 3u);
  const std::string source = jacobi.stub_source(interior, {fa, fb});
  EXPECT_NE(source.find("stubjit_index = {{stubjit_i1, stubjit_i0}}"), std::string::npos) << source;
}

// A filtered kernel (a lower triangle and a mask) compiles for the target in every mode.
TEST_P(GpuCompileOnlyCache, AFilteredKernelCompiles) {
  const GpuCase& c = GetParam();
  RuntimeOptions options;
  options.backend = c.backend;
  options.disk_cache = false;
  std::optional<Runtime> runtime = compile_only(options);
  if (!runtime) GTEST_SKIP() << c.backend << " cannot compile here: " << why_;
  KernelSource source{"lower", {mask<float>("keep"), inout<double>("y")}, "y = y * keep;"};
  source.filter = "i[1] <= i[0]";
  Kernel lower = runtime->kernel(source);
  std::vector<float> keep(64 * 64, 1.0f);
  std::vector<double> y(64 * 64);
  const Field fk = runtime->wrap(static_cast<const float*>(keep.data()), {64, 64});
  const Field fy = runtime->wrap(y.data(), {64, 64});
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
    SCOPED_TRACE(name_of(mode));
    LaunchOptions forced;
    forced.mode = mode;
    EXPECT_TRUE(lower.prepare(forced, Domain{64, 64}, fk, fy).compiled);
  }
  EXPECT_EQ(runtime->counters().compiles, 3u);
}

// Every element type compiles for the target as a scalar, a specialized scalar, a
// projected field, a broadcast view and a written field; atomic_add takes a literal of
// another type for int64 and uint64 targets.
TEST_P(GpuCompileOnlyCache, EveryElementTypeCompiles) {
  const GpuCase& c = GetParam();
  RuntimeOptions options;
  options.backend = c.backend;
  options.disk_cache = false;
  std::optional<Runtime> runtime = compile_only(options);
  if (!runtime) GTEST_SKIP() << c.backend << " cannot compile here: " << why_;
  std::vector<unsigned char> memory(4096);
  // A 1 of every element type: the scalars' values, and the types to compile for.
  for (const Arg& s :
       {Arg(1.0f), Arg(1.0), Arg(std::int32_t(1)), Arg(std::int64_t(1)), Arg(std::uint32_t(1)),
        Arg(std::int8_t(1)), Arg(std::uint8_t(1)), Arg(std::int16_t(1)), Arg(std::uint16_t(1)),
        Arg(std::uint64_t(1)), Arg(true), Arg(float16(1.0f)), Arg(bfloat16(1.0f)),
        Arg(std::complex<float>(1, 2)), Arg(std::complex<double>(1, 2))}) {
    const ElementType type = s.type();
    SCOPED_TRACE(name_of(type));
    const auto param = [&](ParamKind kind, const char* name, int rank, Access access) {
      return Param{kind, name, type, rank, access};
    };
    Param fixed = param(ParamKind::scalar, "k", 0, Access::read_only);
    fixed.specialized = true;
    Kernel kernel =
        runtime->kernel({"all_" + std::to_string(static_cast<int>(type)),
                         {param(ParamKind::scalar, "s", 0, Access::read_only), fixed,
                          param(ParamKind::field, "x", 0, Access::read_only),
                          param(ParamKind::field, "table", 1, Access::read_only),
                          param(ParamKind::field, "y", 0, Access::read_write)},
                         type == ElementType::boolean ? "y = (x != s) || (table(0) && k);"
                                                      : "y = x + s + table(0) + k;"});
    const Field x = runtime->wrap_memory(memory.data(), type, {16}, {}, false);
    const Field table = runtime->wrap_memory(memory.data() + 1024, type, {4}, {}, false);
    const Field y = runtime->wrap_memory(memory.data() + 2048, type, {16}, {}, true);
    for (Mode mode : {Mode::direct, Mode::spread}) {
      LaunchOptions forced;
      forced.mode = mode;
      EXPECT_TRUE(
          kernel.prepare_args(Domain{16}, std::vector<Arg>{s, s, x, table, y}.data(), 5, forced)
              .compiled);
    }
  }
  Kernel count = runtime->kernel({"count",
                                  {inout<std::int64_t>("total", 1), inout<std::uint64_t>("big", 1)},
                                  "stubjit::atomic_add(total(0), 1);\n"
                                  "stubjit::atomic_add(big(0), 2);"});
  const Field total = runtime->wrap_memory(memory.data() + 3072, ElementType::i64, {1}, {}, true);
  const Field big = runtime->wrap_memory(memory.data() + 3080, ElementType::u64, {1}, {}, true);
  EXPECT_TRUE(count.prepare(Domain{16}, total, big).compiled);
}

// Group kernels and tiled launches compile for the target through the runtime (the
// stubs a launch of them would run, with the target's launch bounds and warp width):
// the YAKL column, a transpose through a shared tile, worker and vector loops over a
// shared array of a scalar extent, a tile of rank 2 and one of rank 4. Each is a binary
// of the target's format that defines the group or tiled entry, planned with the group
// size asked for and the shared bytes its arrays need.
TEST_P(GpuCompileOnlyCache, GroupKernelsAndTiledLaunchesCompile) {
  const GpuCase& c = GetParam();
  RuntimeOptions options;
  options.backend = c.backend;
  options.disk_cache = false;
  std::optional<Runtime> runtime = compile_only(options);
  if (!runtime) GTEST_SKIP() << c.backend << " cannot compile here: " << why_;
  using i64 = std::int64_t;
  using i32 = std::int32_t;
  struct Expected {
    std::string entry;
    std::uint32_t group_size;
    std::uint32_t shared_bytes;
  };
  const auto check = [&](Kernel& kernel, const Domain& domain, const std::vector<Arg>& args,
                         const LaunchOptions& launch, const Expected& expected) {
    SCOPED_TRACE(expected.entry);
    const LaunchSummary summary = kernel.prepare_args(domain, args.data(), args.size(), launch);
    EXPECT_TRUE(summary.compiled);
    EXPECT_EQ(summary.group_size, expected.group_size);
    EXPECT_EQ(summary.shared_bytes, expected.shared_bytes);
    const StubBinary binary = kernel.binary(domain, args, launch);
    EXPECT_EQ(binary.format, c.format);
    EXPECT_EQ(binary.target, c.arch);
    EXPECT_EQ(binary.entry, expected.entry);
    const auto elf = test::read_elf(binary.bytes);
    ASSERT_TRUE(elf) << "not an ELF image";
    EXPECT_TRUE(elf->defines(expected.entry)) << "no " << expected.entry << " in the binary";
  };
  const auto threads = [](std::uint32_t size) {
    LaunchOptions launch;
    launch.group_size = size;
    return launch;
  };

  const i64 ny = 5, nx = 7, nz = 11;
  std::vector<double> state(ny * nx * nz), density(ny * nx * (nz + 2)), w(density.size()),
      momentum(density.size());
  Kernel column = runtime->kernel(test::groups::column_kernel());
  check(
      column, Domain{ny, nx},
      {Arg(nz), runtime->wrap(static_cast<const double*>(state.data()), {ny, nx, nz}),
       runtime->wrap(static_cast<const double*>(density.data()), {ny, nx, nz + 2}),
       runtime->wrap(w.data(), {ny, nx, nz + 2}), runtime->wrap(momentum.data(), {ny, nx, nz + 2})},
      threads(64), {"stubjit_column_group_r2", 64, 0});

  const i64 rows = 70, cols = 45;
  std::vector<float> in(rows * cols), out(rows * cols);
  Kernel transpose = runtime->kernel(test::groups::transpose_kernel());
  check(transpose, Domain{3, 2},
        {Arg(rows), Arg(cols), runtime->wrap(static_cast<const float*>(in.data()), {rows, cols}),
         runtime->wrap(out.data(), {cols, rows})},
        threads(256), {"stubjit_transpose_group_r2", 256, 32 * 33 * 4});

  const i32 nw = 9, nv = 40;
  std::vector<i32> hits(nw * nv), once(nw), mirrored(nw * nv);
  Kernel gwv = runtime->kernel(test::groups::gang_worker_vector_kernel());
  check(gwv, Domain{2},
        {Arg(nw), Arg(nv), runtime->wrap(hits.data(), {nw, nv}), runtime->wrap(once.data(), {nw}),
         runtime->wrap(mirrored.data(), {nw, nv})},
        threads(96), {"stubjit_gang_worker_vector_group_r1", 96, 32 * nv * 4});

  std::vector<i64> tiles(rows * cols), locals(rows * cols);
  std::vector<i32> visits(rows * cols);
  Kernel mark = runtime->kernel(test::groups::mark_tiles_kernel());
  LaunchOptions tiled;
  tiled.tile = Tile{8, 32};
  check(mark, Domain{rows, cols},
        {runtime->wrap(tiles.data(), {rows, cols}), runtime->wrap(locals.data(), {rows, cols}),
         runtime->wrap(visits.data(), {rows, cols})},
        tiled, {"stubjit_mark_tiles_tiled_r2", 256, 0});

  std::vector<i32> visits4(3 * 5 * 4 * 7);
  std::vector<i64> where(visits4.size());
  Kernel mark4 = runtime->kernel(test::groups::mark4_kernel());
  LaunchOptions spread = threads(16);
  spread.tile = Tile{2, 3, 2, 3};
  check(mark4, Domain{3, 5, 4, 7},
        {runtime->wrap(visits4.data(), {3, 5, 4, 7}), runtime->wrap(where.data(), {3, 5, 4, 7})},
        spread, {"stubjit_mark4_tiled_r4", 16, 0});

  // Each compiled once, by prepare; binary found it.
  EXPECT_EQ(runtime->counters().compiles, 5u);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuCompileOnlyCache,
                         ::testing::Values(GpuCase{"cuda", "STUBJIT_CUDA_ARCH", "sm_90", "cubin",
                                                   "cuda/sm_90/"},
                                           GpuCase{"hip", "STUBJIT_HIP_ARCH", "gfx90a",
                                                   "amdgpu-code-object", "hip/gfx90a"}),
                         [](const auto& info) { return std::string(info.param.backend); });

}  // namespace
}  // namespace stubjit
