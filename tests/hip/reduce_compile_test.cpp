// hipRTC without an AMD GPU: the reduce stubs (the cases of cuda/reduce_stub_cases.hpp,
// which the NVRTC tests compile too: every combiner over every element type that takes
// it, the whole domain of rank 1, 2 and 4, a dimension of rank-2 and rank-3 domains, an
// index token, a projected and a broadcast field, custom combiners, a specialized
// scalar) compile for gfx90a (wavefront 64, CDNA) in both index widths and for gfx1030
// (wavefront 32, RDNA) with 32-bit ones (all but gfx90a's 32-bit check with one
// combiner per element type), to an AMDGPU code object for that processor
// that defines the stub's entry and its kernel descriptor, whose metadata gives the
// wavefront width and the launch bounds, and whose code holds the group barrier
// (s_barrier) of the reduction's tree.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <tuple>

#include "backends/hip/hiprtc_compiler.hpp"
#include "cuda/reduce_stub_cases.hpp"
#include "hip/amdgpu_code_object.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using hip::HiprtcCompiler;
using test::reduce::ReduceStubCase;

using test::amdgpu::expect_kernel_object;
using test::amdgpu::has_s_barrier;
using test::amdgpu::metadata_uint;
using test::amdgpu::section;
using test::amdgpu::warp_of;

using ArchAndBits = std::tuple<std::string, int>;

class HipReduceStubs : public ::testing::TestWithParam<ArchAndBits> {};

TEST_P(HipReduceStubs, EveryCaseIsAnAmdgpuCodeObjectWithTheEntryAndABarrier) {
  STUBJIT_REQUIRE_HIPRTC();
  const auto& [arch, bits] = GetParam();
  const HiprtcCompiler compiler(arch);
  // gfx90a with 32-bit indices compiles every case; the others one combiner per
  // element type (reduce_stub_cases.hpp, one_combiner_per_type).
  const bool whole_matrix = arch == "gfx90a" && bits == 32;
  const std::vector<ReduceStubCase> cases =
      whole_matrix ? test::reduce::reduce_stub_cases()
                   : test::reduce::one_combiner_per_type(test::reduce::reduce_stub_cases());
  ASSERT_EQ(cases.size(), (whole_matrix ? 60u : test::reduce::reduce_element_types().size()) + 14u);
  const std::string index_local =
      std::string("const ") + (bits == 32 ? "stubjit::i32" : "stubjit::i64") + " stubjit_count0 = ";
  for (const ReduceStubCase& c : cases) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::reduce::reduce_request(c, "hip", bits, warp_of(arch)));
    EXPECT_EQ(stub.entry, test::reduce::reduce_entry(c));
    ASSERT_NE(stub.source.find("#define STUBJIT_WARP_SIZE " + std::to_string(warp_of(arch))),
              std::string::npos);
    EXPECT_NE(stub.source.find(index_local), std::string::npos)
        << stub.source.substr(stub.stub_offset);
    Binary binary;
    try {
      binary = compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
    } catch (const CompileError& error) {
      ADD_FAILURE() << stub.entry << " for " << arch << " (i" << bits << "):\n"
                    << error.log() << "\n"
                    << stub.source.substr(stub.stub_offset);
      continue;
    }
    expect_kernel_object(binary.format, binary.bytes, stub.entry, arch);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(metadata_uint(binary.bytes, ".max_flat_workgroup_size"), 1024u);
    const std::optional<std::vector<char>> text = section(binary.bytes, ".text");
    ASSERT_TRUE(text) << stub.entry << ": no .text";
    EXPECT_TRUE(has_s_barrier(*text)) << stub.entry << ": no s_barrier for its tree";
  }
}

// The index width changes the index arithmetic only: gfx90a checks both, gfx1030 (the
// other wavefront width) the 32-bit one (one compile of every case is about 35 s here);
// all but gfx90a's 32-bit check take one combiner per element type.
INSTANTIATE_TEST_SUITE_P(Targets, HipReduceStubs,
                         ::testing::Values(ArchAndBits{"gfx90a", 32}, ArchAndBits{"gfx90a", 64},
                                           ArchAndBits{"gfx1030", 32}),
                         [](const ::testing::TestParamInfo<ArchAndBits>& info) {
                           return std::get<0>(info.param) + "_i" +
                                  std::to_string(std::get<1>(info.param));
                         });

// An error in a reduce kernel's body is reported at the body's line, behind the reduce
// prelude.
TEST(HipReduceCompile, ErrorInAReduceBodyIsReportedAtTheBodysLine) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{"broken_reduce",
                            {in<float>("x"), result<float>("v", Combiner::max)},
                            "v = x;\nv = undefined_name;"};
  ReduceStubCase c;
  c.kernel = kernel;
  c.bindings = {Binding::projection, Binding::broadcast};
  const GeneratedStub stub = generate_stub(test::reduce::reduce_request(c, "hip", 32, 64));
  try {
    HiprtcCompiler("gfx90a").compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
    FAIL() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken_reduce.body:2:"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("undefined_name"), std::string::npos) << error.log();
  }
}

// A reduce stub written for another wavefront width than the target's does not
// compile: its warps' trees shuffle over the hardware's lanes.
TEST(HipReduceCompile, AReduceStubForAnotherWarpWidthIsRefused) {
  STUBJIT_REQUIRE_HIPRTC();
  ReduceStubCase c;
  c.kernel = KernelSource{
      "warp_reduce_sum", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"};
  c.bindings = {Binding::projection, Binding::broadcast};
  for (const std::string arch : {"gfx90a", "gfx1030"}) {
    const std::uint32_t width = arch == "gfx90a" ? 64 : 32;
    const HiprtcCompiler compiler(arch);
    const auto compile = [&](std::uint32_t warp) {
      const GeneratedStub stub = generate_stub(test::reduce::reduce_request(c, "hip", 32, warp));
      return compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
    };
    EXPECT_NO_THROW(compile(width)) << arch;
    try {
      compile(width == 64 ? 32 : 64);
      ADD_FAILURE() << arch << ": a reduce stub for the other width compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("must be the target's wavefront size"), std::string::npos)
          << error.log();
    }
  }
}

}  // namespace
}  // namespace stubjit::detail
