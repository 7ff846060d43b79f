// CPU-only: the scan stubs (cuda/scan_stub_cases.hpp: the scan of every combiner over
// every element type that takes it, inclusive and exclusive; each dimension of rank-2
// and rank-3 domains, an in-place scan, an index token with a mask,
// projected and broadcast fields with a scalar, a custom combiner, a specialized
// scalar) compile with NVRTC for sm_90 in both index widths (64-bit ones with one
// combiner per element type) into a CUBIN that defines the stage's entry; the scan stage's PTX
// holds the shuffles up the warp, the group barriers and the dynamic group memory of its block
// scan, and the ticket, fences and flags of its look-back; the partials stage of the CPU is
// refused. Needs libnvrtc only (no driver, no GPU); skips with the reason when NVRTC is absent,
// fails when the build found it (nvrtc_for_tests.hpp).
#include <gtest/gtest.h>

#include <ostream>

#include "backends/cuda/nvrtc_compiler.hpp"
#include "common/elf_symbols.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "cuda/scan_stub_cases.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using test::scan::ScanStubCase;

class NvrtcScanStubs : public ::testing::TestWithParam<int> {};

TEST_P(NvrtcScanStubs, EveryStageCompilesToACubinDefiningItsEntry) {
  REQUIRE_NVRTC();
  const int index_bits = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  // 32-bit indices compile every case; 64-bit ones one combiner per element type
  // (reduce_stub_cases.hpp, one_combiner_per_type).
  const bool whole_matrix = index_bits == 32;
  const std::vector<ScanStubCase> cases =
      whole_matrix ? test::scan::scan_stub_cases()
                   : test::reduce::one_combiner_per_type(test::scan::scan_stub_cases());
  std::size_t compiled = 0;
  for (const ScanStubCase& c : cases) {
    for (const Pattern stage : test::scan::stages_of(c)) {
      SCOPED_TRACE(c.name + " " + name_of(stage));
      const GeneratedStub stub =
          generate_stub(test::scan::scan_request(c, stage, "cuda", index_bits, 32));
      EXPECT_EQ(stub.entry,
                "stubjit_" + c.kernel.name + "_" + name_of(stage) + "_r" + std::to_string(c.rank));
      EXPECT_NE(stub.source.find(std::string(", ") + name_of(stage) + " along dimension " +
                                 std::to_string(c.dimension) + ", rank " + std::to_string(c.rank)),
                std::string::npos)
          << stub.source.substr(0, 400);
      Binary binary;
      try {
        std::string diagnostics;
        binary = compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}},
                                  &diagnostics);
        // Generated code compiles without a warning.
        EXPECT_EQ(diagnostics, "") << stub.entry;
      } catch (const CompileError& error) {
        ADD_FAILURE() << stub.entry << " (i" << index_bits << "):\n"
                      << error.log() << "\n"
                      << stub.source.substr(stub.stub_offset);
        continue;
      }
      const auto elf = test::read_elf(binary.bytes);
      ASSERT_TRUE(elf) << stub.entry << ": not an ELF image";
      EXPECT_EQ(elf->machine, test::elf_machine_cuda) << stub.entry;
      EXPECT_TRUE(elf->defines(stub.entry)) << stub.entry << " missing from its cubin";
      ++compiled;
    }
  }
  // The matrix's scan stubs, and the shapes'.
  EXPECT_EQ(compiled, (whole_matrix ? 60u : test::reduce::reduce_element_types().size()) + 10u);
}

INSTANTIATE_TEST_SUITE_P(Sm90, NvrtcScanStubs, ::testing::Values(32, 64),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "i" + std::to_string(info.param);
                         });

// The scan's block scan, in the PTX: shuffles up the warp (shfl.sync.up.b32), the
// barriers between its warps (bar.sync or barrier.sync), its scratch as the dynamic
// group memory; its look-back (reduce.h, scan_part_prefix): the ticket's atomic add,
// the fences between a value and its flag (membar.gl or fence.sc.gpu), the flags'
// volatile loads and stores. The partials stage, a CPU scan's first, is refused.
TEST(NvrtcScanCompile, PtxHoldsTheBlockScanAndTheLookBack) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), true});
  for (const ScanStubCase& c : test::scan::scan_stub_cases()) {
    if (c.matrix) continue;
    SCOPED_TRACE(c.name);
    const GeneratedStub stub =
        generate_stub(test::scan::scan_request(c, Pattern::scan, "cuda", 64, 32));
    std::string ptx;
    try {
      const Binary binary =
          compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
      ptx.assign(binary.bytes.begin(), binary.bytes.end());
    } catch (const CompileError& error) {
      ADD_FAILURE() << error.log();
      continue;
    }
    EXPECT_NE(ptx.find(".entry " + stub.entry + "("), std::string::npos) << ptx;
    const bool barrier =
        ptx.find("bar.sync") != std::string::npos || ptx.find("barrier.sync") != std::string::npos;
    EXPECT_TRUE(barrier) << ptx;
    EXPECT_NE(ptx.find(".extern .shared .align 16 .b8 stubjit_group_memory[]"), std::string::npos)
        << ptx;
    EXPECT_NE(ptx.find("shfl.sync.up.b32"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("atom.global.add.u32"), std::string::npos) << ptx;
    const bool fence =
        ptx.find("membar.gl") != std::string::npos || ptx.find("fence.sc.gpu") != std::string::npos;
    EXPECT_TRUE(fence) << ptx;
    EXPECT_NE(ptx.find("ld.volatile.global.u32"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find("st.volatile.global.u32"), std::string::npos) << ptx;
    EXPECT_THROW(generate_stub(test::scan::scan_request(c, Pattern::scan_partials, "cuda", 64, 32)),
                 Error);
  }
}

// An error in a custom combiner of a scan is reported at its own line.
TEST(NvrtcScanCompile, ACombinerErrorIsReportedAtItsLine) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  ScanStubCase c;
  c.kernel = KernelSource{
      "broken_scan", {in<float>("x"), stubjit::scan<float>("y", "a +\nno_such_b", "0")}, "y = x;"};
  c.bindings = {Binding::projection, Binding::projection};
  for (const Pattern stage : test::scan::stages_of(c)) {
    const GeneratedStub stub = generate_stub(test::scan::scan_request(c, stage, "cuda", 32, 32));
    try {
      compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
      ADD_FAILURE() << name_of(stage) << " compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("broken_scan.combine:2:"), std::string::npos) << error.log();
      EXPECT_NE(error.log().find("no_such_b"), std::string::npos) << error.log();
    }
  }
}

// A scan stub written for warps other than CUDA's 32 lanes does not compile: its block
// scan shuffles over the hardware's lanes.
TEST(NvrtcScanCompile, AScanStubForAnotherWarpWidthIsRefused) {
  REQUIRE_NVRTC();
  ScanStubCase c;
  c.kernel = KernelSource{
      "warp_scan_sum", {in<float>("x"), stubjit::scan<float>("y", Combiner::sum)}, "y = x;"};
  c.bindings = {Binding::projection, Binding::projection};
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  const auto compile = [&](std::uint32_t warp) {
    const GeneratedStub stub =
        generate_stub(test::scan::scan_request(c, Pattern::scan, "cuda", 32, warp));
    return compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
  };
  EXPECT_NO_THROW(compile(32));
  try {
    compile(64);
    ADD_FAILURE() << "a scan stub for warps of 64 compiled";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("must be CUDA's 32 lanes"), std::string::npos) << error.log();
  }
}

}  // namespace
}  // namespace stubjit::detail
