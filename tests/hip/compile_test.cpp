// hipRTC without an AMD GPU: every stub variant of every end-to-end kernel compiles
// for gfx90a (wave64, CDNA), and a sample of them for gfx1030 (wave32, RDNA), to an
// AMDGPU code object that defines the stub's entry and its kernel descriptor, for that
// processor; compile errors come back as CompileError with the user's lines.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/hip/hip_target.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "codegen/stub_request.hpp"
#include "common/elf_symbols.hpp"
#include "common/kernels.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using hip::HiprtcCompiler;

// EF_AMDGPU_MACH (the low byte of e_flags) of the processors tested.
std::uint32_t amdgpu_mach(const std::string& arch) { return arch == "gfx90a" ? 0x3f : 0x36; }

std::uint32_t elf_flags(const std::vector<char>& bytes) {
  std::uint32_t flags = 0;
  if (bytes.size() >= 52) std::memcpy(&flags, bytes.data() + 48, sizeof(flags));
  return flags;
}

StubRequest hip_request(const KernelSource& kernel, Mode mode, int rank, int index_bits,
                        const std::string& arch) {
  hip::HipDeviceShape shape;
  shape.wavefront_size = hip::default_wavefront_size(arch);
  StubRequest request;
  request.emitter = "hip";
  request.mode = mode;
  request.rank = rank;
  request.index_bits = index_bits;
  request.kernel = &kernel;
  request.bindings = test::e2e_bindings(kernel);
  const DeviceLimits limits = hip::hip_device_limits(shape);
  request.max_threads_per_group = max_group_threads(limits, kernel.block, mode, rank);
  request.warp_size = limits.warp_size;
  return request;
}

Binary compile(const HiprtcCompiler& compiler, const GeneratedStub& stub, const std::string& kernel,
               const std::vector<std::string>& options = {}) {
  return compiler.compile({stub.source, stub.file_name, stub.entry, kernel, options});
}

void expect_code_object(const Binary& binary, const std::string& entry, const std::string& arch) {
  EXPECT_EQ(binary.format, "amdgpu-code-object");
  const auto elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf) << entry << ": not an ELF64 image";
  EXPECT_EQ(elf->machine, test::elf_machine_amdgpu) << entry;
  EXPECT_TRUE(elf->defines(entry)) << entry << " not defined";
  EXPECT_TRUE(elf->defines(entry + ".kd")) << entry << ": no kernel descriptor";
  EXPECT_EQ(elf_flags(binary.bytes) & 0xff, amdgpu_mach(arch)) << entry << " not for " << arch;
}

using ArchAndKernel = std::tuple<std::string, std::size_t>;

class HipCompileAll : public ::testing::TestWithParam<ArchAndKernel> {};

// gfx90a compiles every mode and rank of every kernel. gfx1030 differs from it in the
// processor and the wavefront width, which no forall stub's code reads (group, reduce
// and scan code does: their own tests): there the first kernel compiles in every mode
// and rank, the others at the two ends of the index path.
std::vector<std::pair<Mode, int>> variants_for(const std::string& arch, std::size_t kernel_index) {
  if (arch == "gfx90a" || kernel_index == 0) return test::all_stub_variants();
  return {{Mode::direct, 1}, {Mode::multi, 8}};
}

TEST_P(HipCompileAll, EveryModeAndRankIsAnAmdgpuCodeObjectWithTheEntry) {
  STUBJIT_REQUIRE_HIPRTC();
  const auto& [arch, kernel_index] = GetParam();
  const KernelSource kernel = test::all_kernels().at(kernel_index);
  ASSERT_TRUE(test::e2e_bindings_known(kernel)) << "no bindings known for " << kernel.name;
  const HiprtcCompiler compiler(arch);
  for (const auto& [mode, rank] : variants_for(arch, kernel_index)) {
    const GeneratedStub stub = generate_stub(hip_request(kernel, mode, rank, 64, arch));
    SCOPED_TRACE(stub.entry);
    ASSERT_NE(stub.source.find("#define STUBJIT_WARP_SIZE " +
                               std::to_string(hip::default_wavefront_size(arch))),
              std::string::npos);
    expect_code_object(compile(compiler, stub, kernel.name), stub.entry, arch);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Targets, HipCompileAll,
    ::testing::Combine(::testing::Values("gfx90a", "gfx1030"),
                       ::testing::Range<std::size_t>(0, test::all_kernels().size())),
    [](const ::testing::TestParamInfo<ArchAndKernel>& info) {
      return std::get<0>(info.param) + "_" + test::all_kernels().at(std::get<1>(info.param)).name;
    });

class HipCompileIndex32 : public ::testing::TestWithParam<std::string> {};

TEST_P(HipCompileIndex32, ThirtyTwoBitIndexVariantsCompile) {
  STUBJIT_REQUIRE_HIPRTC();
  const std::string arch = GetParam();
  const HiprtcCompiler compiler(arch);
  // gfx1030: the index writer only (variants_for says why).
  std::vector<KernelSource> kernels{test::index_writer_kernel()};
  if (arch == "gfx90a") kernels.push_back(test::row_sum_kernel());
  for (const KernelSource& kernel : kernels) {
    for (const auto& [mode, rank] : test::all_stub_variants()) {
      const GeneratedStub stub = generate_stub(hip_request(kernel, mode, rank, 32, arch));
      SCOPED_TRACE(stub.entry);
      ASSERT_NE(stub.source.find("stubjit::i32"), std::string::npos);
      expect_code_object(compile(compiler, stub, kernel.name), stub.entry, arch);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, HipCompileIndex32, ::testing::Values("gfx90a", "gfx1030"));

// The dense variant (bind/dense.hpp) of every mode and rank is a code object with its
// entry, without first, step or the innermost stride.
TEST(HipCompile, DenseVariantsCompile) {
  STUBJIT_REQUIRE_HIPRTC();
  const HiprtcCompiler compiler("gfx90a");
  const KernelSource kernel = test::index_writer_kernel();
  for (const auto& [mode, rank] : test::all_stub_variants()) {
    detail::StubRequest request = hip_request(kernel, mode, rank, 32, "gfx90a");
    request.dense = true;
    const GeneratedStub stub = generate_stub(request);
    SCOPED_TRACE(stub.entry);
    EXPECT_EQ(stub.source.find("stubjit_lp.first["), std::string::npos);
    EXPECT_EQ(stub.source.find(".stride[" + std::to_string(rank - 1) + "]"), std::string::npos);
    expect_code_object(compile(compiler, stub, kernel.name), stub.entry, "gfx90a");
  }
}

// Specialized values compile as hipRTC reads them: every element type, extremes too.
TEST(HipCompile, SpecializedValuesCompile) {
  STUBJIT_REQUIRE_HIPRTC();
  const HiprtcCompiler compiler("gfx90a");
  const KernelSource kernel = test::specialized_constants_kernel();
  StubRequest request = hip_request(kernel, Mode::spread, 4, 32, "gfx90a");
  request.specialized_values = test::specialized_constants_values();
  const GeneratedStub stub = generate_stub(request);
  ASSERT_NE(stub.source.find("(-2147483647 - 1)"), std::string::npos);
  ASSERT_NE(stub.source.find("stubjit::complex<float>((0x1.99999ap-4f), (-0x1p+1f))"),
            std::string::npos)
      << stub.source;
  expect_code_object(compile(compiler, stub, kernel.name), stub.entry, "gfx90a");
}

TEST(HipCompile, ErrorInTheBodyIsReportedAtTheUsersLine) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{"broken",
                            {scalar<float>("a"), inout<float>("y")},
                            "float twice = 2 * a;\ny = twice + no_such_variable;",
                            "",
                            {}};
  const GeneratedStub stub = generate_stub(hip_request(kernel, Mode::spread, 2, 64, "gfx90a"));
  const HiprtcCompiler compiler("gfx90a");
  try {
    compile(compiler, stub, kernel.name);
    FAIL() << "compiled an undeclared identifier";
  } catch (const CompileError& error) {
    EXPECT_EQ(error.kernel(), "broken");
    EXPECT_NE(error.log().find("broken.body:2:"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("no_such_variable"), std::string::npos) << error.log();
    EXPECT_EQ(error.source(), hip::device_default_source(stub.source));
  }
}

TEST(HipCompile, ErrorInTheHelpersIsReportedAtTheHelpersLine) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{"bad_helper",
                            {inout<float>("y")},
                            "y = helper(y);",
                            "static float helper(float v) {\n  return v +;\n}",
                            {}};
  const GeneratedStub stub = generate_stub(hip_request(kernel, Mode::direct, 1, 64, "gfx1030"));
  try {
    compile(HiprtcCompiler("gfx1030"), stub, kernel.name);
    FAIL() << "compiled a syntax error";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("bad_helper.helpers:2:"), std::string::npos) << error.log();
  }
}

// The wavefront width the planner assumes for a target (hip_target.cpp) is the one
// hipRTC compiles for: the stub's STUBJIT_WARP_SIZE against clang's own
// __AMDGCN_WAVEFRONT_SIZE, in device code.
TEST(HipCompile, WavefrontSizeIsTheCompilersForEachTarget) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{
      "wave",
      {inout<float>("y")},
      "static_assert(STUBJIT_WARP_SIZE == __AMDGCN_WAVEFRONT_SIZE, \"wavefront\");\ny = 1;"};
  for (const std::string arch : {"gfx90a", "gfx908", "gfx1030", "gfx1031"}) {
    StubRequest request = hip_request(kernel, Mode::direct, 1, 64, arch);
    const HiprtcCompiler compiler(arch);
    EXPECT_NO_THROW(compile(compiler, generate_stub(request), kernel.name)) << arch;
    request.warp_size = request.warp_size == 64 ? 32 : 64;  // the check can fail
    EXPECT_THROW(compile(compiler, generate_stub(request), kernel.name), CompileError) << arch;
  }
}

TEST(HipCompile, ExtraCompilerOptionsReachHiprtc) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{"flagged",
                            {inout<float>("y")},
                            "#ifndef STUBJIT_TEST_FLAG\n#error flag missing\n#endif\ny = 1;"};
  const GeneratedStub stub = generate_stub(hip_request(kernel, Mode::direct, 1, 64, "gfx90a"));
  const HiprtcCompiler compiler("gfx90a");
  EXPECT_THROW(compile(compiler, stub, kernel.name), CompileError);
  EXPECT_NO_THROW(compile(compiler, stub, kernel.name, {"-DSTUBJIT_TEST_FLAG"}));
}

TEST(HipCompile, TargetFeaturesAreAccepted) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel = test::saxpy_kernel();
  const GeneratedStub stub = generate_stub(hip_request(kernel, Mode::direct, 1, 64, "gfx90a"));
  expect_code_object(compile(HiprtcCompiler("gfx90a:xnack-"), stub, kernel.name), stub.entry,
                     "gfx90a");
}

TEST(HipCompile, MalformedTargetIsRefusedBeforeCompiling) {
  STUBJIT_REQUIRE_HIPRTC();
  for (const char* bad : {"", "sm_90", "gfx", "gfx90a;rm -rf", "gfx90a:xnack", "GFX90A"}) {
    EXPECT_THROW(HiprtcCompiler{bad}, BackendError) << bad;
  }
}

// ROCm 5.2's hipRTC aborts the whole process on a target its comgr does not know;
// stubjit asks comgr first and refuses with the targets it does know.
TEST(HipCompile, TargetsUnknownToComgrAreRefusedBeforeHiprtcSeesThem) {
  STUBJIT_REQUIRE_HIPRTC();
  for (const char* unknown : {"gfx9999", "gfx1030:xnack-", "gfx90a:foo+"}) {
    try {
      HiprtcCompiler compiler(unknown);
      FAIL() << "accepted " << unknown;
    } catch (const BackendError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(std::string("does not know ") + unknown), std::string::npos) << what;
      EXPECT_NE(what.find("gfx90a"), std::string::npos) << what;  // among those it knows
    }
  }
}

TEST(HipCompile, CompilerIdNamesHiprtcAndItsVersion) {
  STUBJIT_REQUIRE_HIPRTC();
  const std::string id = HiprtcCompiler("gfx90a").compiler_id();
  EXPECT_EQ(id.rfind("hiprtc ", 0), 0u) << id;
  EXPECT_EQ(id.find("unknown"), std::string::npos) << id;
}

// The CPU backend puts libclang-cpp (LLVM 14) in the global symbol scope; hipRTC's
// comgr brings its own LLVM. Without isolation comgr binds to the wrong LLVM and
// crashes (hip_library.cpp): compile with both in one process, in both orders.
TEST(HipCompile, CoexistsWithTheCpuBackendsClang) {
  STUBJIT_REQUIRE_HIPRTC();
  const std::unique_ptr<Toolchain> cpu = make_cpu_toolchain();
  const KernelSource kernel = test::saxpy_kernel();
  StubRequest cpu_request;
  cpu_request.kernel = &kernel;
  cpu_request.mode = Mode::spread;
  cpu_request.rank = 3;
  cpu_request.bindings = test::e2e_bindings(kernel);
  const GeneratedStub cpu_stub = generate_stub(cpu_request);
  const std::vector<std::string> none;
  const HiprtcCompiler compiler("gfx90a");
  for (int round = 0; round < 2; ++round) {
    EXPECT_NO_THROW(
        cpu->compile({cpu_stub.source, cpu_stub.file_name, cpu_stub.entry, kernel.name, none}));
    const GeneratedStub stub = generate_stub(hip_request(kernel, Mode::spread, 3, 64, "gfx90a"));
    expect_code_object(compile(compiler, stub, kernel.name), stub.entry, "gfx90a");
  }
}

}  // namespace
}  // namespace stubjit::detail
