// CPU-only: every stub of every test kernel, in every mode and rank, compiles with
// NVRTC for sm_90 and sm_80 into a CUBIN that defines the stub's entry. Needs
// libnvrtc only (no driver, no GPU); skips with the reason when NVRTC is absent.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/cuda/nvrtc_compiler.hpp"
#include "common/elf_symbols.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "cuda/stub_cases.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

NvrtcCompiler compiler_for(const std::string& arch, bool ptx = false) {
  return NvrtcCompiler(test::nvrtc_for_tests().library, CudaTarget{parse_cuda_arch(arch), ptx});
}

Binary compile(const NvrtcCompiler& compiler, const GeneratedStub& stub, const std::string& kernel,
               const std::vector<std::string>& options = {}) {
  return compiler.compile({stub.source, stub.file_name, stub.entry, kernel, options});
}

// As the backend compiles it, expecting NVRTC to say nothing: a warning about
// generated code is the generator's defect, and every user of the stub would get it.
Binary compile_quietly(const NvrtcCompiler& compiler, const GeneratedStub& stub,
                       const std::string& kernel) {
  std::string diagnostics;
  Binary binary =
      compiler.compile({stub.source, stub.file_name, stub.entry, kernel, {}}, &diagnostics);
  EXPECT_EQ(diagnostics, "") << stub.entry;
  return binary;
}

struct ArchCase {
  std::string arch;
  test::ModeRank at;
};

class EveryStub : public ::testing::TestWithParam<ArchCase> {};

TEST_P(EveryStub, CompilesToACubinDefiningItsEntry) {
  REQUIRE_NVRTC();
  const ArchCase c = GetParam();
  const NvrtcCompiler compiler = compiler_for(c.arch);
  for (const KernelSource& kernel : test::all_kernels()) {
    // The 32-bit index variant where the CUDA backend would pick it, the 64-bit
    // one otherwise; alternate by rank so both are compiled in every mode.
    const int bits = c.at.rank % 2 ? 32 : 64;
    const GeneratedStub stub = generate_stub(test::cuda_request(kernel, c.at, bits));
    Binary binary;
    try {
      binary = compile_quietly(compiler, stub, kernel.name);
    } catch (const CompileError& error) {
      FAIL() << stub.entry << " for " << c.arch << ":\n" << error.log();
    }
    EXPECT_EQ(binary.format, "cubin");
    const auto elf = test::read_elf(binary.bytes);
    ASSERT_TRUE(elf) << stub.entry << ": not an ELF image";
    EXPECT_EQ(elf->machine, test::elf_machine_cuda) << stub.entry;
    EXPECT_TRUE(elf->defines(stub.entry)) << stub.entry << " missing from its cubin";
  }
}

std::vector<ArchCase> arch_cases() {
  std::vector<ArchCase> cases;
  for (const char* arch : {"sm_90", "sm_80"})
    for (const test::ModeRank& at : test::every_mode_and_rank()) cases.push_back({arch, at});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Nvrtc, EveryStub, ::testing::ValuesIn(arch_cases()),
                         [](const ::testing::TestParamInfo<ArchCase>& info) {
                           return info.param.arch + "_" + name_of(info.param.at.mode) + "_r" +
                                  std::to_string(info.param.at.rank);
                         });

// Specialized values compile as NVRTC reads them: every element type, extremes
// included (no literal of these needs a header).
TEST(NvrtcCompile, SpecializedValuesCompile) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource kernel = test::specialized_constants_kernel();
  for (const test::ModeRank at :
       {test::ModeRank{Mode::direct, 2}, test::ModeRank{Mode::spread, 4}}) {
    std::vector<Binding> bindings(kernel.signature.size(), Binding::scalar);
    bindings.back() = Binding::projection;
    StubRequest request = test::cuda_request(kernel, at, 32, bindings);
    request.specialized_values = test::specialized_constants_values();
    const GeneratedStub stub = generate_stub(request);
    ASSERT_NE(stub.source.find("(-9223372036854775807LL - 1)"), std::string::npos);
    ASSERT_NE(stub.source.find("18446744073709551615ULL"), std::string::npos);
    ASSERT_NE(stub.source.find("(-128)"), std::string::npos);
    ASSERT_NE(stub.source.find("stubjit::float16::from_bits(31744)"), std::string::npos);
    ASSERT_NE(stub.source.find("stubjit::complex<double>((0x1.ffffffffffffep-1023), (-0x0p+0))"),
              std::string::npos)
        << stub.source;
    try {
      const auto elf = test::read_elf(compile(compiler, stub, kernel.name).bytes);
      ASSERT_TRUE(elf);
      EXPECT_TRUE(elf->defines(stub.entry));
    } catch (const CompileError& error) {
      FAIL() << stub.entry << ":\n" << error.log();
    }
  }
}

// The constants NVRTC reads are the values' own bits: a stored constant appears in
// the PTX with exactly those bits.
TEST(NvrtcCompile, SpecializedFloatsKeepTheirBits) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90", /*ptx=*/true);
  const KernelSource kernel{
      "store",
      {specialized<float>("f"), specialized<double>("d"), inout<float>("a"), inout<double>("b")},
      "a = f;\nb = d;",
      "",
      {}};
  StubRequest request = test::cuda_request(
      kernel, {Mode::direct, 1}, 32,
      {Binding::scalar, Binding::scalar, Binding::projection, Binding::projection});
  request.specialized_values = {0x3dcccccdu /* 0.1f */, 0x000fffffffffffffull /* a denormal */};
  const GeneratedStub stub = generate_stub(request);
  const std::vector<char> bytes = compile(compiler, stub, kernel.name).bytes;
  const std::string ptx(bytes.begin(), bytes.end());
  // As a float literal, or (NVRTC 13 stores a constant so) as the integer of its bits.
  const auto holds = [&ptx](const char* literal, const char* bits) {
    return ptx.find(literal) != std::string::npos ||
           ptx.find(std::string(" ") + bits + ";") != std::string::npos;
  };
  EXPECT_TRUE(holds("0f3DCCCCCD", "1036831949")) << ptx;
  EXPECT_TRUE(holds("0d000FFFFFFFFFFFFF", "4503599627370495")) << ptx;
}

TEST(NvrtcCompile, BothIndexWidthsOfOneStubCompile) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource kernel = test::index_writer_kernel();
  for (int bits : {32, 64}) {
    const GeneratedStub stub = generate_stub(test::cuda_request(kernel, {Mode::spread, 4}, bits));
    EXPECT_NE(stub.source.find(bits == 32 ? "stubjit::Index<4, stubjit::i32>"
                                          : "stubjit::Index<4, stubjit::i64>"),
              std::string::npos);
    const auto elf = test::read_elf(compile(compiler, stub, kernel.name).bytes);
    ASSERT_TRUE(elf);
    EXPECT_TRUE(elf->defines("stubjit_write_index_spread_r4"));
  }
}

// The dense variant (a launch from 0 with unit steps over fields contiguous along the
// innermost dimension) of every kernel, mode and rank compiles, in both index widths;
// it reads no first, step or innermost stride.
TEST(NvrtcCompile, DenseVariantsOfEveryModeAndRankCompile) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  for (const KernelSource& kernel : {test::saxpy_kernel(), test::index_writer_kernel()}) {
    for (const test::ModeRank at : test::every_mode_and_rank()) {
      for (int bits : {32, 64}) {
        detail::StubRequest request = test::cuda_request(kernel, at, bits);
        request.dense = true;
        const GeneratedStub stub = generate_stub(request);
        SCOPED_TRACE(stub.entry + (bits == 32 ? " i32" : " i64"));
        EXPECT_EQ(stub.source.find("stubjit_lp.first["), std::string::npos);
        EXPECT_EQ(stub.source.find("stubjit_lp.step["), std::string::npos);
        EXPECT_EQ(stub.source.find(".stride[" + std::to_string(at.rank - 1) + "]"),
                  std::string::npos);
        const auto elf = test::read_elf(compile_quietly(compiler, stub, kernel.name).bytes);
        ASSERT_TRUE(elf);
        EXPECT_TRUE(elf->defines(stub.entry));
      }
    }
  }
}

// A kernel whose body reads no index and no projected field (only a scalar and a
// broadcast field): its stub needs its positions for the domain's bounds alone, and
// declares nothing more, in every mode and rank, both widths, dense or not.
TEST(NvrtcCompile, AStubThatReadsNoIndexDeclaresOnlyWhatItReads) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource tally{"tally",
                           {scalar<std::int64_t>("step"), inout<std::int64_t>("total")},
                           "stubjit::atomic_add(total, step);",
                           "",
                           {}};
  for (const test::ModeRank at : test::every_mode_and_rank()) {
    for (int bits : {32, 64}) {
      for (bool dense : {false, true}) {
        detail::StubRequest request =
            test::cuda_request(tally, at, bits, {Binding::scalar, Binding::broadcast});
        request.dense = dense;
        const GeneratedStub stub = generate_stub(request);
        SCOPED_TRACE(stub.entry + (bits == 32 ? " i32" : " i64") + (dense ? " dense" : ""));
        EXPECT_EQ(stub.source.find("stubjit_i0"), std::string::npos);
        const auto elf = test::read_elf(compile_quietly(compiler, stub, tally.name).bytes);
        ASSERT_TRUE(elf);
        EXPECT_TRUE(elf->defines(stub.entry));
      }
    }
  }
}

TEST(NvrtcCompile, PtxOptionGivesPtxForTheArchitecture) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90", /*ptx=*/true);
  EXPECT_EQ(compiler.target().id(), "compute_90");
  const KernelSource kernel = test::saxpy_kernel();
  const GeneratedStub stub = generate_stub(test::cuda_request(kernel, {Mode::direct, 2}, 32));
  const Binary binary = compile(compiler, stub, kernel.name);
  EXPECT_EQ(binary.format, "ptx");
  ASSERT_FALSE(binary.bytes.empty());
  EXPECT_EQ(binary.bytes.back(), '\0');  // the driver loads PTX as a C string
  const std::string ptx(binary.bytes.data());
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find(".entry stubjit_saxpy_direct_r2("), std::string::npos);
  EXPECT_NE(ptx.find(".maxntid 256"), std::string::npos);  // the launch bounds
}

TEST(NvrtcCompile, ErrorInTheBodyIsReportedAtTheBodysLine) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource kernel{"broken", {inout<float>("y")}, "y = 1;\ny = undefined_name;"};
  const GeneratedStub stub =
      generate_stub(test::cuda_request(kernel, {Mode::direct, 1}, 32, {Binding::projection}));
  try {
    compile(compiler, stub, kernel.name);
    FAIL() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_EQ(error.kernel(), "broken");
    EXPECT_NE(
        error.log().find("broken.body:2:5: error: identifier \"undefined_name\" is undefined"),
        std::string::npos)
        << error.log();
    EXPECT_EQ(error.source(), stub.source);
  }
}

TEST(NvrtcCompile, ErrorInTheHelpersIsReportedAtTheHelpersLine) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_80");
  const KernelSource kernel{"helped",
                            {inout<float>("y")},
                            "y = twice(y);",
                            "float twice(float v) {\n  return v * two;\n}"};
  const GeneratedStub stub =
      generate_stub(test::cuda_request(kernel, {Mode::spread, 3}, 64, {Binding::projection}));
  try {
    compile(compiler, stub, kernel.name);
    FAIL();
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("helped.helpers:2:14: error:"), std::string::npos) << error.log();
  }
}

TEST(NvrtcCompile, HelpersWithoutQualifiersAreDeviceFunctions) {
  REQUIRE_NVRTC();
  // lookup's helper is a plain `static inline` function: -default-device makes it
  // callable from the kernel.
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource kernel = test::lookup_kernel();
  ASSERT_EQ(kernel.helpers.find("__device__"), std::string::npos);
  const GeneratedStub stub = generate_stub(test::cuda_request(kernel, {Mode::direct, 1}, 32));
  EXPECT_NO_THROW(compile(compiler, stub, kernel.name));
}

TEST(NvrtcCompile, ExtraOptionsReachNvrtc) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const KernelSource kernel{
      "opt", {inout<float>("y")}, "#ifndef STUBJIT_TEST_FLAG\n#error flag missing\n#endif\ny = 1;"};
  const GeneratedStub stub =
      generate_stub(test::cuda_request(kernel, {Mode::direct, 1}, 32, {Binding::projection}));
  EXPECT_THROW(compile(compiler, stub, kernel.name), CompileError);
  EXPECT_NO_THROW(compile(compiler, stub, kernel.name, {"-DSTUBJIT_TEST_FLAG"}));
}

TEST(NvrtcCompile, AnArchitectureNvrtcDoesNotKnowIsRefusedWhenCompiling) {
  REQUIRE_NVRTC();
  // sm_10 was never a target of any NVRTC.
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{CudaArch{1, 0, ""}, false});
  const KernelSource kernel = test::saxpy_kernel();
  const GeneratedStub stub = generate_stub(test::cuda_request(kernel, {Mode::direct, 1}, 32));
  EXPECT_THROW(compile(compiler, stub, kernel.name), Error);
}

// The prelude's double atomic_add is atomicAdd from sm_60 on, and a compare-and-swap
// loop below, where atomicAdd(double*, double) does not exist: the automatic choice is
// compiled for the oldest architecture this NVRTC accepts (below sm_60 only up to
// NVRTC 12; the tests cuda_prelude_double_atomic_* check the choice by preprocessing),
// and the loop, forced with STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS=1, compiles with any NVRTC.
TEST(NvrtcCompile, DoubleAtomicAddIsNativeFromSm60AndACompareAndSwapLoopBelow) {
  REQUIRE_NVRTC();
  const std::shared_ptr<const NvrtcLibrary>& library = test::nvrtc_for_tests().library;
  const int oldest = library->supported_archs.front();
  const KernelSource kernel{"double_sum",
                            {in<double>("x"), inout<double>("total")},
                            "stubjit::atomic_add(total, x);",
                            "",
                            {}};
  const GeneratedStub stub = generate_stub(
      test::cuda_request(kernel, {Mode::direct, 1}, 32, {Binding::projection, Binding::broadcast}));
  const auto ptx_for = [&](int arch, const std::vector<std::string>& options) {
    const NvrtcCompiler compiler(library, CudaTarget{CudaArch{arch / 10, arch % 10, ""}, true});
    Binary binary;
    try {
      binary = compile(compiler, stub, kernel.name, options);
    } catch (const CompileError& error) {
      ADD_FAILURE() << "sm_" << arch << ":\n" << error.log();
    }
    return std::string(binary.bytes.begin(), binary.bytes.end());
  };
  const std::string native = ptx_for(std::max(oldest, 60), {});
  EXPECT_NE(native.find(".add.f64"), std::string::npos) << native;
  EXPECT_EQ(native.find(".cas.b64"), std::string::npos) << native;
  const std::string forced = ptx_for(oldest, {"-DSTUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS=1"});
  EXPECT_NE(forced.find(".cas.b64"), std::string::npos) << forced;
  EXPECT_EQ(forced.find(".add.f64"), std::string::npos) << forced;
  if (oldest < 60) {
    const std::string automatic = ptx_for(oldest, {});
    EXPECT_NE(automatic.find(".cas.b64"), std::string::npos) << automatic;
    EXPECT_EQ(automatic.find(".add.f64"), std::string::npos) << automatic;
  }
}

// A stub includes only the prelude headers it needs (codegen/prelude.hpp): each
// combination compiles, and a body's error still maps to the body's own line behind
// a prelude of another length.
TEST(NvrtcCompile, StubsWithOnlySomePreludeHeadersCompile) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler = compiler_for("sm_90");
  const auto prelude_line = [](const GeneratedStub& stub) {
    const std::size_t at = stub.source.find("// prelude:", stub.stub_offset);
    return stub.source.substr(at, stub.source.find('\n', at) - at);
  };
  struct Case {
    KernelSource kernel;
    std::vector<std::string> options;
    std::string prelude;
    std::vector<Binding> bindings = {};  // empty: those of stub_cases.hpp
    Mode mode = Mode::spread;
    bool dense = false;
  };
  const std::vector<Case> cases = {
      {test::sum_kernel(), {}, "// prelude: config.h index.h atomic.h"},
      {test::row_sum_kernel(), {}, "// prelude: config.h index.h view.h"},
      {test::saxpy_kernel(), {}, "// prelude: config.h index.h"},
      // The atomic reaches the body through a compiler option's macro.
      {KernelSource{
           "option_sum", {in<float>("x"), inout<float>("total")}, "ADD(total, x);", "", {}},
       {"-DADD(a,b)=stubjit::atomic_add(a,b)"},
       "// prelude: config.h index.h atomic.h",
       {Binding::projection, Binding::broadcast}},
      // A dense direct stub writes its positions out: no index.h; with a view, view.h.
      {test::saxpy_kernel(), {}, "// prelude: config.h", {}, Mode::direct, true},
      {KernelSource{"dense_row",
                    {in<double>("row", 1), inout<double>("total")},
                    "total += row(0) + row.extent(0);",
                    "",
                    {}},
       {},
       "// prelude: config.h view.h",
       {Binding::projection, Binding::projection},
       Mode::direct,
       true},
  };
  for (const Case& c : cases) {
    StubRequest request = test::cuda_request(c.kernel, {c.mode, 2}, 32, c.bindings);
    request.compiler_options = c.options;
    request.dense = c.dense;
    const GeneratedStub stub = generate_stub(request);
    EXPECT_EQ(prelude_line(stub), c.prelude) << c.kernel.name;
    Binary binary;
    try {
      binary = compile(compiler, stub, c.kernel.name, c.options);
    } catch (const CompileError& error) {
      ADD_FAILURE() << c.kernel.name << ":\n" << error.log();
      continue;
    }
    const auto elf = test::read_elf(binary.bytes);
    ASSERT_TRUE(elf) << c.kernel.name;
    EXPECT_TRUE(elf->defines(stub.entry)) << c.kernel.name;
  }

  const KernelSource broken{"broken_sum",
                            {in<double>("x"), inout<double>("total")},
                            "stubjit::atomic_add(total, x);\n"
                            "total = undefined_name;"};
  const GeneratedStub stub = generate_stub(
      test::cuda_request(broken, {Mode::direct, 1}, 32, {Binding::projection, Binding::broadcast}));
  EXPECT_EQ(prelude_line(stub), "// prelude: config.h index.h atomic.h");
  try {
    compile(compiler, stub, broken.name);
    ADD_FAILURE() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(
        error.log().find("broken_sum.body:2:9: error: identifier \"undefined_name\" is undefined"),
        std::string::npos)
        << error.log();
  }
}

// NVRTC's -minimal (nvrtc_compiler.hpp): first where the user's code cannot name what
// it leaves out, and never a change to what a stub compiles to.
NvrtcCompiler minimal_compiler(MinimalFirst minimal, bool ptx = false) {
  return NvrtcCompiler(test::nvrtc_for_tests().library, CudaTarget{parse_cuda_arch("sm_90"), ptx},
                       minimal);
}

bool nvrtc_has_minimal() {
  const NvrtcLibrary& library = *test::nvrtc_for_tests().library;
  return library.major > 12 || (library.major == 12 && library.minor >= 4);
}

bool minimal_first(const KernelSource& kernel, const std::vector<std::string>& options = {}) {
  const GeneratedStub stub = generate_stub(
      test::cuda_request(kernel, {Mode::direct, 1}, 32, {Binding::projection, Binding::broadcast}));
  const NvrtcCompiler compiler = minimal_compiler(MinimalFirst::when_user_code_allows);
  const CompileJob job{stub.source, stub.file_name, stub.entry, kernel.name, options};
  // What the compiler is given first.
  const std::vector<std::string> first = compiler.options(job);
  const bool minimal = std::count(first.begin(), first.end(), "-minimal") == 1;
  EXPECT_EQ(minimal, compiler.compiles_minimal_first(job));
  return minimal;
}

KernelSource sum_with(std::string body, std::string helpers = "") {
  return {"k", {in<double>("x"), inout<double>("total")}, std::move(body), std::move(helpers), {}};
}

TEST(NvrtcMinimal, ComesFirstUnlessTheUserCodeMayNameWhatItLeavesOut) {
  REQUIRE_NVRTC();
  if (!nvrtc_has_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
  // The prelude names __CUDA_ARCH__ and __CUDACC_RTC__; only the user's code counts.
  EXPECT_TRUE(minimal_first(sum_with("total += x;")));
  EXPECT_TRUE(minimal_first(sum_with("stubjit::atomic_add(total, x);")));
  // Each name alone, in any case.
  for (const char* body :
       {"cudaError_t e = cudaSuccess; (void)e; total += x;", "total += CUDART_VERSION;",
        "/* Cuda */ total += x;", "total += tex1Dfetch<float>(t, 0);", "// TEXTURE\ntotal += x;",
        "surf2Dwrite(x, s, 0, 0);", "// Surface\ntotal += x;", "child<<<1, 1>>>(x);"})
    EXPECT_FALSE(minimal_first(sum_with(body))) << body;
  // What the scan cannot see: a pasted name, an include.
  EXPECT_FALSE(minimal_first(sum_with("P(cu, da)(total);", "#define P(a, b) a##b")));
  EXPECT_FALSE(minimal_first(sum_with("total += x;", "#include <mine.h>")));
  // In the helpers or the options.
  EXPECT_FALSE(minimal_first(sum_with("total += x;", "// uses cudaStream_t")));
  EXPECT_FALSE(minimal_first(sum_with("total += X;"), {"-DX=cudaSuccess"}));
  EXPECT_FALSE(minimal_first(sum_with("total += x;"), {"-include", "mine.h"}));
  // A kernel named after what -minimal leaves out is read too.
  KernelSource named = sum_with("total += x;");
  named.name = "texture_sum";
  EXPECT_FALSE(minimal_first(named));
}

TEST(NvrtcMinimal, ChangesNothingInWhatAStubCompilesTo) {
  REQUIRE_NVRTC();
  if (!nvrtc_has_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
  const NvrtcCompiler backend = minimal_compiler(MinimalFirst::when_user_code_allows, true);
  // Neither falls back: one is given -minimal as an option of the job's, one not.
  const NvrtcCompiler plain = minimal_compiler(MinimalFirst::never, true);
  const std::vector<std::string> with_minimal = {"-minimal"};
  int compared = 0;
  for (const KernelSource& kernel : test::all_kernels()) {
    for (const test::ModeRank at : {test::ModeRank{Mode::direct, 1}, test::ModeRank{Mode::multi, 3},
                                    test::ModeRank{Mode::spread, 5}}) {
      const GeneratedStub stub = generate_stub(test::cuda_request(kernel, at, 32));
      const CompileJob job{stub.source, stub.file_name, stub.entry, kernel.name, {}};
      if (!backend.compiles_minimal_first(job)) continue;
      ++compared;
      Binary minimal;
      try {
        minimal =
            plain.compile({stub.source, stub.file_name, stub.entry, kernel.name, with_minimal});
      } catch (const CompileError& error) {
        ADD_FAILURE() << stub.entry << " does not compile with -minimal:\n" << error.log();
        continue;
      }
      EXPECT_EQ(minimal.bytes, plain.compile(job).bytes) << stub.entry;
    }
  }
  EXPECT_GE(compared, 6);
}

TEST(NvrtcMinimal, ACodeThatNeedsWhatItLeavesOutIsCompiledAgainWithout) {
  REQUIRE_NVRTC();
  if (!nvrtc_has_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
  const NvrtcCompiler always = minimal_compiler(MinimalFirst::always);
  const KernelSource runtime_types =
      sum_with("cudaError_t e = cudaSuccess;\ntotal += x + (double)e;");
  const GeneratedStub stub = generate_stub(test::cuda_request(
      runtime_types, {Mode::direct, 1}, 32, {Binding::projection, Binding::broadcast}));
  // It does not compile with -minimal ...
  const std::vector<std::string> with_minimal = {"-minimal"};
  EXPECT_THROW(minimal_compiler(MinimalFirst::never)
                   .compile({stub.source, stub.file_name, stub.entry, "k", with_minimal}),
               CompileError);
  // ... but does through the fallback.
  Binary binary;
  try {
    binary = compile(always, stub, "k");
  } catch (const CompileError& error) {
    FAIL() << error.log();
  }
  const auto elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf);
  EXPECT_TRUE(elf->defines(stub.entry));
  // A body that compiles neither way reports the error of the compile without.
  const KernelSource broken = sum_with("total += x;\ntotal += undefined_name;");
  const GeneratedStub bad = generate_stub(
      test::cuda_request(broken, {Mode::direct, 1}, 32, {Binding::projection, Binding::broadcast}));
  try {
    compile(always, bad, "k");
    ADD_FAILURE() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("k.body:2:10: error: identifier \"undefined_name\" is undefined"),
              std::string::npos)
        << error.log();
  }
}

TEST(NvrtcLibrary, ReportsItsVersionAndArchitectures) {
  REQUIRE_NVRTC();
  const NvrtcLibrary& library = *test::nvrtc_for_tests().library;
  EXPECT_GE(library.major, 11);
  EXPECT_EQ(library.id(),
            "nvrtc " + std::to_string(library.major) + "." + std::to_string(library.minor));
  EXPECT_TRUE(library.supports(80));
  EXPECT_TRUE(library.supports(90));
  EXPECT_FALSE(library.supports(10));
}

}  // namespace
}  // namespace stubjit::detail
