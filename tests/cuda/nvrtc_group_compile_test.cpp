// CPU-only: the group and tiled stubs (one kernel per construct of a Group: inner loops
// of one to three dimensions, single, fence, worker and vector loops with vector_single
// and vector_fence, shared arrays of literal and scalar extents, two of them, an index
// token and a specialized scalar in a group kernel; tiles of rank 1, 2 and 4) compile
// with NVRTC for sm_80 and sm_90, in both index widths, into a CUBIN that defines the
// stub's entry; their PTX holds the barriers, the warp barriers, the dynamic shared
// memory and the launch bounds the constructs compile to. Needs libnvrtc only (no
// driver, no GPU); skips with the reason when NVRTC is absent, fails when the build
// found it (nvrtc_for_tests.hpp).
#include <gtest/gtest.h>

#include <ostream>

#include "backends/cuda/nvrtc_compiler.hpp"
#include "common/elf_symbols.hpp"
#include "cuda/group_stub_cases.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using test::groups::GroupStubCase;

struct GroupArchCase {
  std::string arch;
  int index_bits;
};

void PrintTo(const GroupArchCase& c, std::ostream* out) {
  *out << c.arch << ", " << c.index_bits << "-bit indices";
}

class NvrtcGroupStubs : public ::testing::TestWithParam<GroupArchCase> {};

TEST_P(NvrtcGroupStubs, EveryConstructCompilesToACubinDefiningItsEntry) {
  REQUIRE_NVRTC();
  const GroupArchCase a = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch(a.arch), false});
  const std::vector<GroupStubCase> cases = test::groups::group_stub_cases();
  ASSERT_EQ(cases.size(), 16u);
  for (const GroupStubCase& c : cases) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::groups::group_request(c, "cuda", a.index_bits, 32));
    EXPECT_EQ(stub.entry, test::groups::group_entry(c));
    EXPECT_NE(stub.source.find(test::groups::group_position_local(c, a.index_bits)),
              std::string::npos)
        << stub.source.substr(stub.stub_offset);
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

// What each construct compiles to, in the PTX: __syncthreads as a barrier (bar.sync or
// barrier.sync), __syncwarp as bar.warp.sync, the group-shared arrays as one dynamic
// .extern .shared array aligned to 16 bytes, and the launch bounds as .maxntid.
TEST_P(NvrtcGroupStubs, PtxHoldsTheBarriersSharedMemoryAndLaunchBounds) {
  REQUIRE_NVRTC();
  const GroupArchCase a = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch(a.arch), true});
  for (const GroupStubCase& c : test::groups::group_stub_cases()) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::groups::group_request(c, "cuda", a.index_bits, 32));
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
    EXPECT_EQ(barrier, c.group_barrier) << ptx;
    EXPECT_EQ(ptx.find("bar.warp.sync") != std::string::npos, c.warp_barrier) << ptx;
    EXPECT_EQ(ptx.find(".extern .shared .align 16 .b8 stubjit_group_memory[]") != std::string::npos,
              c.group_memory)
        << ptx;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, NvrtcGroupStubs,
                         ::testing::Values(GroupArchCase{"sm_80", 32}, GroupArchCase{"sm_80", 64},
                                           GroupArchCase{"sm_90", 32}, GroupArchCase{"sm_90", 64}),
                         [](const ::testing::TestParamInfo<GroupArchCase>& info) {
                           return info.param.arch + "_i" + std::to_string(info.param.index_bits);
                         });

// A specialized scalar of a group kernel is compiled in: the stub reads no argument for
// it, and the shared extent and loop counts it names are the constant.
TEST(NvrtcGroupCompile, TheSpecializedValueIsAConstantOfTheGroupStub) {
  REQUIRE_NVRTC();
  for (const GroupStubCase& c : test::groups::group_stub_cases()) {
    if (c.name != "specialized") continue;
    const GeneratedStub stub = generate_stub(test::groups::group_request(c, "cuda", 32, 32));
    EXPECT_NE(stub.source.find("_width = (64);"), std::string::npos) << stub.source;
    GroupStubCase generic = c;
    generic.specialized_values.clear();
    const GeneratedStub read = generate_stub(test::groups::group_request(generic, "cuda", 32, 32));
    EXPECT_NE(read.source.find(" = stubjit_args.width;"), std::string::npos) << read.source;
    EXPECT_EQ(stub.source.find(" = stubjit_args.width;"), std::string::npos) << stub.source;
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

// A group stub's error in the body is reported at the body's line, behind the group
// prelude.
TEST(NvrtcGroupCompile, ErrorInAGroupBodyIsReportedAtTheBodysLine) {
  REQUIRE_NVRTC();
  const KernelSource kernel{"broken_group",
                            {group("g"), inout<float>("y", 1)},
                            "g.fence();\ng.inner(4, [&](int k) { y(k) = undefined_name; });"};
  GroupStubCase c;
  c.kernel = kernel;
  c.bindings = {Binding::index, Binding::broadcast};
  const GeneratedStub stub = generate_stub(test::groups::group_request(c, "cuda", 32, 32));
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_80"), false});
  try {
    compiler.compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
    FAIL() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken_group.body:2:"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("undefined_name"), std::string::npos) << error.log();
  }
}

// A group stub written for warps other than CUDA's 32 lanes does not compile: its
// worker and vector loops and masks hold for the hardware's warps only.
TEST(NvrtcGroupCompile, AGroupStubForAnotherWarpWidthIsRefused) {
  REQUIRE_NVRTC();
  const KernelSource kernel{"warp_group",
                            {group("g"), inout<float>("y", 1)},
                            "g.vector_loop(4, [&](int k) { y(k) = 1; });\ng.vector_fence();"};
  GroupStubCase c;
  c.kernel = kernel;
  c.bindings = {Binding::index, Binding::broadcast};
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  const auto compile = [&](std::uint32_t warp) {
    const GeneratedStub stub = generate_stub(test::groups::group_request(c, "cuda", 32, warp));
    return compiler.compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
  };
  EXPECT_NO_THROW(compile(32));
  for (const std::uint32_t warp : {16u, 64u}) {
    try {
      compile(warp);
      ADD_FAILURE() << "a group stub for warps of " << warp << " compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("must be CUDA's 32 lanes"), std::string::npos) << error.log();
    }
  }
}

}  // namespace
}  // namespace stubjit::detail
