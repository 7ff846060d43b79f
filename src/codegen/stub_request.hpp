// What the stub writer needs to know: one stub per (emitter, mode, rank, index width,
// bindings, launch bounds, warp width) of a kernel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"
#include "support/entry_parameters.hpp"
#include "support/pattern.hpp"

namespace stubjit::detail {

struct StubRequest {
  // The emitter family (dialect.hpp): "cpp", "cuda" or "hip". A toolchain's traits
  // name it; nothing in the writer compares backend names.
  std::string emitter = "cpp";
  // forall: once per index; tiled: once per index, a group per tile; group: once per
  // group (docs/groups.md). Group and tiled stubs number their groups like a spread
  // plan's positions (make_group_plan) whatever `mode` says.
  Pattern pattern = Pattern::forall;
  // Tiled stubs: the tile's extents over the last tile_rank dimensions.
  std::uint8_t tile_rank = 0;
  std::array<std::uint32_t, 8> tile{};
  // Reduce stubs: the dimension the reduction eliminates; -1: the whole domain.
  int reduce_dimension = -1;
  Mode mode = Mode::direct;
  int rank = 1;
  int index_bits = 64;  // 32 or 64
  const KernelSource* kernel = nullptr;
  std::vector<Binding> bindings;  // one per parameter
  // index_order[d]: the stub dimension whose logical index is the index token's d.
  std::array<std::uint8_t, 8> index_order = {0, 1, 2, 3, 4, 5, 6, 7};
  // GPU dialects: the most threads per group the planner will use with this stub
  // (becomes __launch_bounds__); 0 for none.
  std::uint32_t max_threads_per_group = 0;
  // GPU dialects: the warp size the planner assumed (STUBJIT_WARP_SIZE); 0 for none.
  std::uint32_t warp_size = 0;
  // The C++ dialect: the innermost count of the domain, compiled into the loop over a
  // row for the rows that have it (others run the general loop); 0 for none.
  std::int64_t inner_count = 0;  // at most stubjit::max_short_row
  // The C++ dialect, with or without inner_count: the stride along the innermost loop
  // that the broadcast views of launches of this stub share, compiled into the copy of
  // the loops that the stub takes when they have it (1: the stub's usual copy for views
  // contiguous along it).
  std::int64_t view_stride = 1;  // at most stubjit::max_view_stride
  // The GPU dialects: a dense launch (bind/dense.hpp): every logical index is its
  // position, and projected fields are read without the innermost stride.
  bool dense = false;
  // The values of the kernel's specialized scalar parameters, in signature order, as
  // words (support/scalar_words.hpp: Arg::bits(), and Arg::high_bits() too for a
  // complex<double>): each is compiled in as a constant. Empty: the stub reads
  // them from its arguments like any scalar (stub_source() without values).
  std::vector<std::uint64_t> specialized_values;
  // The user's code may #include "quoted" names (the runtime has include directories).
  bool quoted_includes = false;
  // The options the stub will be compiled with (the runtime's compiler_options, part
  // of its identity): a -D there may name a prelude header's declarations, so the
  // choice of headers (prelude.hpp) reads them with the user's code.
  std::vector<std::string> compiler_options;
};

// The bytes of stubjit::ReduceParams (kernels/stubjit/reduce.h), after a reduce
// stub's packed arguments.
inline constexpr std::size_t reduce_params_size = 40;
// What a sort stub's launch passes after them (sort.h, SortParams).
inline constexpr std::size_t sort_params_size = 64;

struct GeneratedStub {
  std::string source;           // prelude + stub, ready to compile
  std::string entry;            // the extern "C" entry point
  std::string file_name;        // name to compile it under; #line resets refer to it
  std::size_t stub_offset = 0;  // where the stub part begins, after the prelude
  // How the entry takes its values (support/entry_parameters.hpp); empty: the packed
  // arguments and the LaunchParams.
  EntryParameters parameters;
};

// Deterministic: the same request gives the same bytes. Throws CompileError, before
// anything is compiled, when the user's code would leave its place or includes what
// it may not (user_code_check.hpp).
GeneratedStub generate_stub(const StubRequest& request);

// "stubjit_<kernel>_<mode>_r<rank>".
std::string entry_name(const std::string& kernel, Mode mode, int rank);
// The entry of a request's stub: entry_name(kernel, mode, rank) for a forall stub,
// "stubjit_<kernel>_<pattern>_r<rank>" for a tiled or group one.
std::string entry_name(const StubRequest& request);

// The stub generator's version and a hash of the prelude (every header): what a cached
// binary depends on besides its request, so that a binary from another generator is
// never reused. Bump generator_version when generated code changes for the same
// inputs (4: a stub includes only the prelude headers it needs; 5: CPU stubs run blocks
// of rows; 6: GPU stubs take grid and group extents from LaunchParams and raise spread
// positions with the host's divisors; 7: index.h only where the stub's own code uses
// it, and GPU direct stubs write their positions out; 8: the argument struct's members
// are plain, slot.h is gone; 9: a CPU stub's entry takes the group memory the runner
// gives it; 10: reduce stubs; 11: scan stubs, and a scan parameter in the visit; 12:
// sort stubs; 13: GPU forall entries take their values one by one; 14: no stub declares
// a local it does not read, and a sort's merge stub marks the body it never calls; 15:
// GPU reduce stubs evaluate four elements a thread before combining them, and GPU scan
// stubs read and write a tile a row across each warp at a time; 16: a CPU short-row stub of
// rank 3 or more runs blocks of planes per call of its run function, its rows rolled,
// and a CPU stub's general copy of its loops, where views have run-time strides, keeps
// its loop over a run rolled; 17: a CPU reduce or scan-partials stub keeps its loops over
// the lanes out of the loop vectorizer; 18: a GPU scan that splits a segment scans it in
// one pass, each part's prefix by a look-back; 19: a CPU sort's part of keys of a built-in
// order sorts by radix, and merges select rather than branch; 20: float16 and bfloat16
// keys too).
inline constexpr int generator_version = 20;
const std::string& generator_fingerprint();

}  // namespace stubjit::detail
