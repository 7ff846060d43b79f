// hipRTC without an AMD GPU: the scan stubs (the cases of cuda/scan_stub_cases.hpp,
// which the NVRTC tests compile too: the scan stage of every combiner over every
// element type that takes it, each dimension of rank-2 and rank-3 domains, an in-place scan, an
// index token with a mask, projected and broadcast fields, a custom combiner, a specialized scalar)
// compile for gfx90a (wavefront 64, CDNA) and gfx1030 (wavefront 32, RDNA; one combiner per element
// type) to an AMDGPU code object for that processor that defines the stage's entry and its kernel
// descriptor, whose metadata gives the wavefront width, and whose code holds the group barrier
// (s_barrier) of its block scan or tree.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "backends/hip/hiprtc_compiler.hpp"
#include "cuda/scan_stub_cases.hpp"
#include "hip/amdgpu_code_object.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using hip::HiprtcCompiler;
using test::scan::ScanStubCase;

using test::amdgpu::expect_kernel_object;
using test::amdgpu::has_s_barrier;
using test::amdgpu::metadata_uint;
using test::amdgpu::section;
using test::amdgpu::warp_of;

class HipScanStubs : public ::testing::TestWithParam<std::string> {};

TEST_P(HipScanStubs, EveryStageIsAnAmdgpuCodeObjectWithTheEntryAndABarrier) {
  STUBJIT_REQUIRE_HIPRTC();
  const std::string arch = GetParam();
  const HiprtcCompiler compiler(arch);
  // gfx90a compiles every case; gfx1030 one combiner per element type
  // (reduce_stub_cases.hpp, one_combiner_per_type).
  const bool whole_matrix = arch == "gfx90a";
  const std::vector<ScanStubCase> cases =
      whole_matrix ? test::scan::scan_stub_cases()
                   : test::reduce::one_combiner_per_type(test::scan::scan_stub_cases());
  std::size_t compiled = 0;
  for (const ScanStubCase& c : cases) {
    for (const Pattern stage : test::scan::stages_of(c)) {
      SCOPED_TRACE(c.name + " " + name_of(stage));
      const GeneratedStub stub =
          generate_stub(test::scan::scan_request(c, stage, "hip", 64, warp_of(arch)));
      Binary binary;
      try {
        binary = compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
      } catch (const CompileError& error) {
        ADD_FAILURE() << stub.entry << " for " << arch << ":\n"
                      << error.log() << "\n"
                      << stub.source.substr(stub.stub_offset);
        continue;
      }
      expect_kernel_object(binary.format, binary.bytes, stub.entry, arch);
      if (::testing::Test::HasFatalFailure()) return;
      const std::optional<std::vector<char>> text = section(binary.bytes, ".text");
      ASSERT_TRUE(text) << stub.entry << ": no .text";
      EXPECT_TRUE(has_s_barrier(*text)) << stub.entry << ": no s_barrier";
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, (whole_matrix ? 60u : test::reduce::reduce_element_types().size()) + 10u);
}

INSTANTIATE_TEST_SUITE_P(Targets, HipScanStubs, ::testing::Values("gfx90a", "gfx1030"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A scan stub written for another wavefront width than the target's does not compile.
TEST(HipScanCompile, AScanStubForAnotherWarpWidthIsRefused) {
  STUBJIT_REQUIRE_HIPRTC();
  ScanStubCase c;
  c.kernel = KernelSource{
      "warp_scan_sum", {in<float>("x"), stubjit::scan<float>("y", Combiner::sum)}, "y = x;"};
  c.bindings = {Binding::projection, Binding::projection};
  const HiprtcCompiler compiler("gfx90a");
  const auto compile = [&](std::uint32_t warp) {
    const GeneratedStub stub =
        generate_stub(test::scan::scan_request(c, Pattern::scan, "hip", 32, warp));
    return compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
  };
  EXPECT_NO_THROW(compile(64));
  try {
    compile(32);
    ADD_FAILURE() << "a scan stub for wavefronts of 32 compiled for gfx90a";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("must be the target's wavefront size"), std::string::npos)
        << error.log();
  }
}

}  // namespace
}  // namespace stubjit::detail
