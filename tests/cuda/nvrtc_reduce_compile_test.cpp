// CPU-only: the reduce stubs (cuda/reduce_stub_cases.hpp: every combiner over every
// element type that takes it, the whole domain of rank 1, 2 and 4, a dimension of rank-2
// and rank-3 domains, an index token, a projected and a broadcast field, custom
// combiners, a specialized scalar) compile with NVRTC for sm_90 in both index widths and
// for sm_80 with 32-bit ones (all but sm_90's 32-bit check with one combiner per element
// type), into a CUBIN that defines the stub's entry; their PTX holds
// the group barriers of the tree, the dynamic group memory it runs in, and the atomic add
// that counts a group's arrival at its segment. Needs libnvrtc only (no driver, no GPU);
// skips with the reason when NVRTC is absent, fails when the build found it
// (nvrtc_for_tests.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <set>
#include <utility>

#include "backends/cuda/nvrtc_compiler.hpp"
#include "codegen/identifier.hpp"
#include "common/elf_symbols.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "cuda/reduce_stub_cases.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using test::reduce::ReduceStubCase;

// Matrix cases (one per type and combiner) and the shape cases after them.
constexpr std::size_t matrix_cases = 60;
constexpr std::size_t shape_cases = 14;

struct ReduceArchCase {
  std::string arch;
  int index_bits;
};

void PrintTo(const ReduceArchCase& c, std::ostream* out) {
  *out << c.arch << ", " << c.index_bits << "-bit indices";
}

class NvrtcReduceStubs : public ::testing::TestWithParam<ReduceArchCase> {};

// sm_90 with 32-bit indices compiles every case; the others one combiner per element
// type (reduce_stub_cases.hpp, one_combiner_per_type).
bool whole_matrix(const ReduceArchCase& a) { return a.arch == "sm_90" && a.index_bits == 32; }

std::vector<ReduceStubCase> cases_for(const ReduceArchCase& a) {
  std::vector<ReduceStubCase> cases = test::reduce::reduce_stub_cases();
  if (whole_matrix(a)) return cases;
  return test::reduce::one_combiner_per_type(std::move(cases));
}

TEST_P(NvrtcReduceStubs, EveryCaseCompilesToACubinDefiningItsEntry) {
  REQUIRE_NVRTC();
  const ReduceArchCase a = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch(a.arch), false});
  const std::vector<ReduceStubCase> cases = cases_for(a);
  ASSERT_EQ(
      cases.size(),
      (whole_matrix(a) ? matrix_cases : test::reduce::reduce_element_types().size()) + shape_cases);
  const std::string index_local = std::string("const ") +
                                  (a.index_bits == 32 ? "stubjit::i32" : "stubjit::i64") +
                                  " stubjit_count0 = ";
  for (const ReduceStubCase& c : cases) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::reduce::reduce_request(c, "cuda", a.index_bits, 32));
    EXPECT_EQ(stub.entry, test::reduce::reduce_entry(c));
    EXPECT_NE(stub.source.find(index_local), std::string::npos)
        << stub.source.substr(stub.stub_offset);
    const std::string reduction =
        c.reduce_dimension < 0
            ? ", reduce of the whole domain, rank "
            : ", reduce along dimension " + std::to_string(c.reduce_dimension) + ", rank ";
    EXPECT_NE(stub.source.find(reduction + std::to_string(c.rank)), std::string::npos)
        << stub.source.substr(0, 400);
    Binary binary;
    try {
      std::string diagnostics;
      binary = compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}},
                                &diagnostics);
      // Generated code compiles without a warning.
      EXPECT_EQ(diagnostics, "") << stub.entry;
    } catch (const CompileError& error) {
      ADD_FAILURE() << stub.entry << " for " << a.arch << " (i" << a.index_bits << "):\n"
                    << error.log() << "\n"
                    << stub.source.substr(stub.stub_offset);
      continue;
    }
    EXPECT_EQ(binary.format, "cubin");
    const auto elf = test::read_elf(binary.bytes);
    ASSERT_TRUE(elf) << stub.entry << ": not an ELF image";
    EXPECT_EQ(elf->machine, test::elf_machine_cuda) << stub.entry;
    EXPECT_TRUE(elf->defines(stub.entry)) << stub.entry << " missing from its cubin";
  }
}

// What every reduce stub compiles to, in the PTX: the tree's __syncthreads as a
// barrier (bar.sync or barrier.sync), its scratch as the one dynamic .extern .shared
// array aligned to 16 bytes, the arrival count as a global atomic add (atom.global.add,
// or red. where the old value went unused), the launch bounds as .maxntid, and the
// warps' trees as shuffles (shfl.sync.down.b32).
TEST_P(NvrtcReduceStubs, PtxHoldsTheBarrierGroupMemoryAndArrivalCount) {
  REQUIRE_NVRTC();
  const ReduceArchCase a = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch(a.arch), true});
  for (const ReduceStubCase& c : cases_for(a)) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::reduce::reduce_request(c, "cuda", a.index_bits, 32));
    std::string ptx;
    try {
      const Binary binary =
          compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
      ASSERT_EQ(binary.format, "ptx");
      ptx.assign(binary.bytes.begin(), binary.bytes.end());
    } catch (const CompileError& error) {
      ADD_FAILURE() << stub.entry << " for " << a.arch << ":\n" << error.log();
      continue;
    }
    EXPECT_NE(ptx.find(".entry " + stub.entry + "("), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".maxntid 1024"), std::string::npos) << ptx;
    const bool barrier =
        ptx.find("bar.sync") != std::string::npos || ptx.find("barrier.sync") != std::string::npos;
    EXPECT_TRUE(barrier) << ptx;
    EXPECT_NE(ptx.find(".extern .shared .align 16 .b8 stubjit_group_memory[]"), std::string::npos)
        << ptx;
    const bool atomic_add =
        ptx.find("atom.global.add") != std::string::npos || ptx.find("red.") != std::string::npos;
    EXPECT_TRUE(atomic_add) << ptx;
    // The warps' trees: shuffles down the warp (reduce.h, warp_reduce).
    EXPECT_NE(ptx.find("shfl.sync.down.b32"), std::string::npos) << ptx;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, NvrtcReduceStubs,
                         // The index width changes the index arithmetic only: sm_90
                         // checks both, sm_80 the 32-bit one (one compile of every case
                         // is about 16 s here); all but sm_90's 32-bit check take one
                         // combiner per element type.
                         ::testing::Values(ReduceArchCase{"sm_80", 32}, ReduceArchCase{"sm_90", 32},
                                           ReduceArchCase{"sm_90", 64}),
                         [](const ::testing::TestParamInfo<ReduceArchCase>& info) {
                           return info.param.arch + "_i" + std::to_string(info.param.index_bits);
                         });

// The matrix holds exactly the (type, combiner) pairs a signature may have: every pair
// it lists validates, every other built-in combiner over its types is refused.
TEST(NvrtcReduceCompile, TheCasesHoldEveryCombinerEachTypeTakes) {
  std::set<std::pair<ElementType, Combiner>> listed;
  for (const ReduceStubCase& c : test::reduce::reduce_stub_cases()) {
    if (c.kernel.signature.size() != 2 || c.kernel.name.rfind("reduce_", 0) != 0) continue;
    const Param& result = c.kernel.signature[1];
    listed.insert({result.type, result.combiner});
  }
  EXPECT_EQ(listed.size(), matrix_cases);
  for (const ElementType type : test::reduce::reduce_element_types())
    for (const Combiner combiner : test::reduce::builtin_combiners()) {
      SCOPED_TRACE(std::string(name_of(combiner)) + " of " + name_of(type));
      const KernelSource kernel{"pair",
                                {Param{ParamKind::field, "x", type, 0, Access::read_only},
                                 test::reduce::result_param("v", type, combiner)},
                                "v = x;"};
      if (listed.count({type, combiner})) {
        EXPECT_NO_THROW(validate_kernel_source(kernel));
      } else {
        EXPECT_THROW(validate_kernel_source(kernel), SignatureError);
      }
    }
}

// A specialized scalar of a reduce kernel is compiled in: the stub reads no argument
// for it, and the generic stub (no values) does.
TEST(NvrtcReduceCompile, TheSpecializedValueIsAConstantOfTheReduceStub) {
  REQUIRE_NVRTC();
  for (const ReduceStubCase& c : test::reduce::reduce_stub_cases()) {
    if (c.name != "specialized") continue;
    const GeneratedStub stub = generate_stub(test::reduce::reduce_request(c, "cuda", 32, 32));
    EXPECT_NE(stub.source.find("_k = (3);"), std::string::npos) << stub.source;
    EXPECT_EQ(stub.source.find(" = stubjit_args.k;"), std::string::npos) << stub.source;
    ReduceStubCase generic = c;
    generic.specialized_values.clear();
    const GeneratedStub read = generate_stub(test::reduce::reduce_request(generic, "cuda", 32, 32));
    EXPECT_NE(read.source.find(" = stubjit_args.k;"), std::string::npos) << read.source;
    const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                                 CudaTarget{parse_cuda_arch("sm_90"), false});
    try {
      const auto elf = test::read_elf(
          compiler.compile({read.source, read.file_name, read.entry, c.kernel.name, {}}).bytes);
      ASSERT_TRUE(elf);
      EXPECT_TRUE(elf->defines(read.entry));
    } catch (const CompileError& error) {
      FAIL() << error.log();
    }
    return;
  }
  FAIL() << "no case 'specialized'";
}

// An error in a reduce kernel's body, or in a custom combiner's expression, is reported
// at its own line, behind the reduce prelude.
TEST(NvrtcReduceCompile, ErrorsInTheBodyAndTheCombinerAreReportedAtTheirLines) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_80"), false});
  const auto compile_error = [&](const KernelSource& kernel) -> std::string {
    ReduceStubCase c;
    c.kernel = kernel;
    c.bindings = {Binding::projection, Binding::broadcast};
    const GeneratedStub stub = generate_stub(test::reduce::reduce_request(c, "cuda", 32, 32));
    try {
      compiler.compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
    } catch (const CompileError& error) {
      return error.log();
    }
    ADD_FAILURE() << kernel.name << " compiled";
    return {};
  };
  const std::string body = compile_error({"broken_reduce",
                                          {in<float>("x"), result<float>("v", Combiner::sum)},
                                          "v = x;\nv = nothing;"});
  EXPECT_NE(body.find("broken_reduce.body:2:"), std::string::npos) << body;
  EXPECT_NE(body.find("nothing"), std::string::npos) << body;
  const std::string combine = compile_error(
      {"broken_combine", {in<float>("x"), result<float>("v", "a + no_such_b", "0")}, "v = x;"});
  EXPECT_NE(combine.find("broken_combine.combine:1:"), std::string::npos) << combine;
  EXPECT_NE(combine.find("no_such_b"), std::string::npos) << combine;
}

// A reduce stub written for warps other than CUDA's 32 lanes does not compile: its
// warps' trees shuffle over the hardware's lanes.
TEST(NvrtcReduceCompile, AReduceStubForAnotherWarpWidthIsRefused) {
  REQUIRE_NVRTC();
  ReduceStubCase c;
  c.kernel = KernelSource{
      "warp_reduce_sum", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"};
  c.bindings = {Binding::projection, Binding::broadcast};
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  const auto compile = [&](std::uint32_t warp) {
    const GeneratedStub stub = generate_stub(test::reduce::reduce_request(c, "cuda", 32, warp));
    return compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
  };
  EXPECT_NO_THROW(compile(32));
  for (const std::uint32_t warp : {16u, 64u}) {
    try {
      compile(warp);
      ADD_FAILURE() << "a reduce stub for warps of " << warp << " compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("must be CUDA's 32 lanes"), std::string::npos) << error.log();
    }
  }
}

}  // namespace
}  // namespace stubjit::detail
