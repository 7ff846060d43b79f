// hipRTC without an AMD GPU: the group and tiled stubs (one kernel per construct of a
// Group, the cases of cuda/group_stub_cases.hpp, which the NVRTC tests compile too)
// compile for gfx90a (wavefront 64, CDNA) in both index widths and gfx1030 (wavefront
// 32, RDNA) in 32-bit ones, to an AMDGPU code object for that processor that defines the stub's
// entry and its kernel descriptor, whose metadata gives the wavefront width and the
// launch bounds, and whose code holds a group barrier (s_barrier) where the kernel has
// a fence and none where it has not.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <tuple>

#include "backends/hip/hiprtc_compiler.hpp"
#include "cuda/group_stub_cases.hpp"
#include "hip/amdgpu_code_object.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using hip::HiprtcCompiler;
using test::groups::GroupStubCase;

using test::amdgpu::expect_kernel_object;
using test::amdgpu::has_s_barrier;
using test::amdgpu::metadata_uint;
using test::amdgpu::section;
using test::amdgpu::warp_of;

using ArchAndBits = std::tuple<std::string, int>;

class HipGroupStubs : public ::testing::TestWithParam<ArchAndBits> {};

TEST_P(HipGroupStubs, EveryConstructIsAnAmdgpuCodeObjectWithTheEntry) {
  STUBJIT_REQUIRE_HIPRTC();
  const auto& [arch, bits] = GetParam();
  const HiprtcCompiler compiler(arch);
  const std::vector<GroupStubCase> cases = test::groups::group_stub_cases();
  ASSERT_EQ(cases.size(), 16u);
  for (const GroupStubCase& c : cases) {
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::groups::group_request(c, "hip", bits, warp_of(arch)));
    EXPECT_EQ(stub.entry, test::groups::group_entry(c));
    ASSERT_NE(stub.source.find("#define STUBJIT_WARP_SIZE " + std::to_string(warp_of(arch))),
              std::string::npos);
    EXPECT_NE(stub.source.find(test::groups::group_position_local(c, bits)), std::string::npos)
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
    EXPECT_EQ(has_s_barrier(*text), c.group_barrier)
        << stub.entry << (c.group_barrier ? ": no s_barrier for its fence" : ": an s_barrier");
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, HipGroupStubs,
                         // The index width changes the index arithmetic only, the
                         // same on either processor: gfx1030 with 32-bit indices.
                         ::testing::Values(ArchAndBits{"gfx90a", 32}, ArchAndBits{"gfx90a", 64},
                                           ArchAndBits{"gfx1030", 32}),
                         [](const ::testing::TestParamInfo<ArchAndBits>& info) {
                           return std::get<0>(info.param) + "_i" +
                                  std::to_string(std::get<1>(info.param));
                         });

// A group stub made for the other wavefront width does not compile: the stub checks
// the warp width the planner assumed against the compiler's (a Group's worker and
// vector loops depend on it), and the error says so.
TEST(HipGroupCompile, AGroupStubForAnotherWavefrontWidthIsRefused) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{
      "wave_group",
      {group("g"), inout<std::int32_t>("lanes", 1)},
      "g.worker_loop(1, [&](int) { g.vector_loop(int(g.vector_length()), [&](int v) { "
      "lanes(v) = 1; }); });"};
  GroupStubCase c;
  c.kernel = kernel;
  c.bindings = {Binding::index, Binding::broadcast};
  for (const std::string arch : {"gfx90a", "gfx1030"}) {
    const HiprtcCompiler compiler(arch);
    const auto compile = [&](std::uint32_t warp) {
      const GeneratedStub stub = generate_stub(test::groups::group_request(c, "hip", 32, warp));
      return compiler.compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
    };
    EXPECT_NO_THROW(compile(warp_of(arch))) << arch;
    try {
      compile(warp_of(arch) == 64 ? 32 : 64);
      ADD_FAILURE() << arch << ": a stub for the other width compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("must be the target's wavefront size"), std::string::npos)
          << error.log();
    }
  }
}

TEST(HipGroupCompile, ErrorInAGroupBodyIsReportedAtTheBodysLine) {
  STUBJIT_REQUIRE_HIPRTC();
  const KernelSource kernel{"broken_group",
                            {group("g"), inout<float>("y", 1)},
                            "g.fence();\ng.inner(4, [&](int k) { y(k) = undefined_name; });"};
  GroupStubCase c;
  c.kernel = kernel;
  c.bindings = {Binding::index, Binding::broadcast};
  const GeneratedStub stub = generate_stub(test::groups::group_request(c, "hip", 32, 64));
  try {
    HiprtcCompiler("gfx90a").compile({stub.source, stub.file_name, stub.entry, kernel.name, {}});
    FAIL() << "compiled a body that uses an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken_group.body:2:"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("undefined_name"), std::string::npos) << error.log();
  }
}

}  // namespace
}  // namespace stubjit::detail
