// CPU-only: the sort stubs (cuda/sort_stub_cases.hpp: both stages of a sort of every
// element type with a payload, ascending, descending or by a less expression; of each
// dimension of rank-2 and rank-3 domains, the permutation from an index token, keys
// computed from other fields, a custom order, a specialized scalar) compile with NVRTC
// for sm_90 in both index widths into a CUBIN that defines the stage's entry; the
// first stage's PTX holds the group barriers between its merge passes. Needs libnvrtc
// only (no driver, no GPU); skips with the reason when NVRTC is absent, fails when the
// build found it (nvrtc_for_tests.hpp).
#include <gtest/gtest.h>

#include <ostream>

#include "backends/cuda/nvrtc_compiler.hpp"
#include "common/elf_symbols.hpp"
#include "cuda/nvrtc_for_tests.hpp"
#include "cuda/sort_stub_cases.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using test::sort::SortStubCase;

class NvrtcSortStubs : public ::testing::TestWithParam<int> {};

TEST_P(NvrtcSortStubs, EveryStageCompilesToACubinDefiningItsEntry) {
  REQUIRE_NVRTC();
  const int index_bits = GetParam();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  std::size_t compiled = 0;
  for (const SortStubCase& c : test::sort::sort_stub_cases()) {
    for (const Pattern stage : test::sort::sort_stages()) {
      SCOPED_TRACE(c.name + " " + name_of(stage));
      const GeneratedStub stub =
          generate_stub(test::sort::sort_request(c, stage, "cuda", index_bits, 32));
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
  EXPECT_EQ(compiled, 2u * (12u + 9u));  // two stages of the types' cases and the shapes'
}

INSTANTIATE_TEST_SUITE_P(Sm90, NvrtcSortStubs, ::testing::Values(32, 64),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "i" + std::to_string(info.param);
                         });

// The first stage's merges within a group wait at barriers (bar.sync or barrier.sync);
// the merge passes need none (each thread finds its own share of the output).
TEST(NvrtcSortCompile, TheFirstStageWaitsAtGroupBarriersAndTheMergePassesDoNot) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), true});
  for (const SortStubCase& c : test::sort::sort_stub_cases()) {
    if (c.name != "argsort" && c.name != "r3_d1") continue;
    for (const Pattern stage : test::sort::sort_stages()) {
      SCOPED_TRACE(c.name + " " + name_of(stage));
      const GeneratedStub stub = generate_stub(test::sort::sort_request(c, stage, "cuda", 64, 32));
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
      const bool barrier = ptx.find("bar.sync") != std::string::npos ||
                           ptx.find("barrier.sync") != std::string::npos;
      EXPECT_EQ(barrier, stage == Pattern::sort_runs) << ptx;
    }
  }
}

// An error in a less expression is reported at its own line in both stages.
TEST(NvrtcSortCompile, AnOrderErrorIsReportedAtItsLineInBothStages) {
  REQUIRE_NVRTC();
  const NvrtcCompiler compiler(test::nvrtc_for_tests().library,
                               CudaTarget{parse_cuda_arch("sm_90"), false});
  SortStubCase c;
  c.kernel = KernelSource{"broken_sort", {stubjit::sort<float>("x", "a <\nno_such_b")}, ""};
  c.bindings = {Binding::projection};
  for (const Pattern stage : test::sort::sort_stages()) {
    const GeneratedStub stub = generate_stub(test::sort::sort_request(c, stage, "cuda", 32, 32));
    try {
      compiler.compile({stub.source, stub.file_name, stub.entry, c.kernel.name, {}});
      ADD_FAILURE() << name_of(stage) << " compiled";
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find("broken_sort.less:2:"), std::string::npos) << error.log();
      EXPECT_NE(error.log().find("no_such_b"), std::string::npos) << error.log();
    }
  }
}

}  // namespace
}  // namespace stubjit::detail
