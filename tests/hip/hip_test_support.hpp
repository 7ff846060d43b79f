// Shared by the HIP compile tests: the stub variants every backend must compile, the
// bindings the end-to-end suites give the test kernels, and whether hipRTC must be
// present (CMake sets STUBJIT_TEST_REQUIRE_HIPRTC when it finds ROCm's library, so a
// broken install fails instead of skipping).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "backends/hip/hip_library.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::test {

// (mode, rank) pairs a stub exists for: direct for rank 1..3, spread and multi for 1..8.
inline std::vector<std::pair<Mode, int>> all_stub_variants() {
  std::vector<std::pair<Mode, int>> variants;
  for (int rank = 1; rank <= 8; ++rank) {
    if (rank <= 3) variants.emplace_back(Mode::direct, rank);
    variants.emplace_back(Mode::spread, rank);
    variants.emplace_back(Mode::multi, rank);
  }
  return variants;
}

// How the end-to-end suites bind each kernel of all_kernels(): fields are projected,
// except the whole-table lookup and the rank-0 total of the reduction, which every
// activity sees whole. Kernels of other tests get every field projected.
inline std::vector<Binding> e2e_bindings(const KernelSource& kernel) {
  std::vector<Binding> bindings;
  for (const Param& param : kernel.signature) {
    if (param.kind == ParamKind::scalar) {
      bindings.push_back(Binding::scalar);
    } else if (param.kind == ParamKind::index) {
      bindings.push_back(Binding::index);
    } else {
      const bool whole = (kernel.name == "lookup" && param.name == "table") ||
                         (kernel.name == "sum_all" && param.name == "total");
      bindings.push_back(whole ? Binding::broadcast : Binding::projection);
    }
  }
  return bindings;
}

// Whether e2e_bindings knows how the end-to-end suites bind `kernel`: a kernel added
// to all_kernels() must be added there too.
inline bool e2e_bindings_known(const KernelSource& kernel) {
  for (const char* name :
       {"saxpy", "count_visits", "write_index", "mixed", "row_sum", "lookup", "sum_all"})
    if (kernel.name == name) return true;
  return false;
}

// Skips (or, where hipRTC is required, fails) when hipRTC cannot be loaded.
#define STUBJIT_REQUIRE_HIPRTC()                                                \
  do {                                                                          \
    std::string stubjit_reason;                                                 \
    if (!::stubjit::detail::hip::hiprtc_library(stubjit_reason)) {              \
      if (std::getenv("STUBJIT_TEST_REQUIRE_HIPRTC")) FAIL() << stubjit_reason; \
      GTEST_SKIP() << "hipRTC is not installed: " << stubjit_reason;            \
    }                                                                           \
  } while (0)

}  // namespace stubjit::test
