// hipRTC without an AMD GPU: the sort stubs (the cases of cuda/sort_stub_cases.hpp, which
// the NVRTC tests compile too: both stages of a sort of every element type with a
// payload, of each dimension of rank-2 and rank-3 domains, the permutation from an
// index token, keys computed from other fields, a custom order, a specialized scalar)
// compile for gfx90a (wavefront 64, CDNA), those of each element type for gfx1030
// (wavefront 32, RDNA), to an AMDGPU code object for that processor that defines the
// stage's entry and its kernel descriptor; the first stage's code holds the group
// barrier (s_barrier) between its merge passes.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "backends/hip/hiprtc_compiler.hpp"
#include "cuda/sort_stub_cases.hpp"
#include "hip/amdgpu_code_object.hpp"
#include "hip/hip_test_support.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using hip::HiprtcCompiler;
using test::sort::SortStubCase;

using test::amdgpu::expect_kernel_object;
using test::amdgpu::has_s_barrier;
using test::amdgpu::section;
using test::amdgpu::warp_of;

class HipSortStubs : public ::testing::TestWithParam<std::string> {};

TEST_P(HipSortStubs, EveryStageIsAnAmdgpuCodeObjectWithTheEntry) {
  STUBJIT_REQUIRE_HIPRTC();
  const std::string arch = GetParam();
  const HiprtcCompiler compiler(arch);
  // gfx1030 differs from gfx90a in the processor and the wavefront width, which no sort
  // stage reads: there only the first cases, one per element type, compile.
  const bool whole_matrix = arch == "gfx90a";
  std::vector<SortStubCase> cases = test::sort::sort_stub_cases();
  if (!whole_matrix) cases.resize(test::reduce::reduce_element_types().size());
  std::size_t compiled = 0;
  for (const SortStubCase& c : cases) {
    for (const Pattern stage : test::sort::sort_stages()) {
      SCOPED_TRACE(c.name + " " + name_of(stage));
      const GeneratedStub stub =
          generate_stub(test::sort::sort_request(c, stage, "hip", 64, warp_of(arch)));
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
      if (stage == Pattern::sort_runs) {
        EXPECT_TRUE(has_s_barrier(*text)) << stub.entry;
      }
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 2u * (whole_matrix ? 12u + 9u : 12u));
}

INSTANTIATE_TEST_SUITE_P(Targets, HipSortStubs, ::testing::Values("gfx90a", "gfx1030"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace stubjit::detail
