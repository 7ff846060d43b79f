// What the stub writer needs to know: one stub per (dialect, mode, rank, index width,
// bindings) of a kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

enum class Dialect : std::uint8_t { cpp, cuda, hip };

const char* name_of(Dialect dialect) noexcept;

struct StubRequest {
  Dialect dialect = Dialect::cpp;
  Mode mode = Mode::direct;
  int rank = 1;
  int index_bits = 64;  // 32 or 64
  const KernelSource* kernel = nullptr;
  std::vector<Binding> bindings;  // one per parameter
  // GPU dialects: the most threads per group the planner will use with this stub
  // (becomes __launch_bounds__); 0 for none.
  std::uint32_t max_threads_per_group = 0;
  // GPU dialects: the warp size the planner assumed (STUBJIT_WARP_SIZE); 0 for none.
  std::uint32_t warp_size = 0;
};

struct GeneratedStub {
  std::string source;           // prelude + stub, ready to compile
  std::string entry;            // the extern "C" entry point
  std::string file_name;        // name to compile it under; #line resets refer to it
  std::size_t stub_offset = 0;  // where the stub part begins, after the prelude
};

// Deterministic: the same request gives the same bytes.
GeneratedStub generate_stub(const StubRequest& request);

// "stubjit_<kernel>_<mode>_r<rank>".
std::string entry_name(const std::string& kernel, Mode mode, int rank);

}  // namespace stubjit::detail
