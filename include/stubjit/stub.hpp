// Generated stub source without a runtime or a device: the exact text a launch
// compiles for a kernel, in a dialect, mode and rank. `stubjit dump-stub` prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/export.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/signature.hpp"

namespace stubjit {

struct StubOptions {
  std::string dialect = "cpp";  // one of stub_dialects(): "cpp" (CPU backend), "cuda", "hip"
  Mode mode = Mode::direct;
  int rank = 1;         // of the compute domain, 1..8 (direct: 1..3)
  int index_bits = 64;  // 32 or 64: the width of positions and indices
  // One per parameter of the kernel's signature: scalar for a scalar, index for an
  // index token, projection or broadcast for a field.
  std::vector<Binding> bindings;
  // GPU dialects: the most threads per group the stub is launched with
  // (__launch_bounds__); 0 for none, and 0 for cpp. A runtime declares
  // max_group_threads(limits, block, mode, rank) for a per-element stub, and
  // max_group_launch_threads(block, limits) for a group, reduce or scan stub (plan.hpp).
  std::uint32_t launch_bounds = 0;
  // GPU dialects: the warp (wavefront) width the planner assumed (STUBJIT_WARP_SIZE);
  // 0 for none, and 0 for cpp. A CUDA runtime uses 32; a HIP one its device's
  // wavefront width (64 on GCN/CDNA such as gfx90a, 32 on RDNA such as gfx1030).
  std::uint32_t warp_size = 0;
  // cpp, rank 2 and up: the innermost count compiled into the loop over a row, as a CPU
  // runtime does for a launch whose innermost extent is at most 16
  // (RuntimeOptions::specialize_short_rows); 0 for none.
  std::int64_t rows = 0;
  // cpp, with rows or without (longer rows, or rank 1): the stride along the innermost
  // loop that every broadcast view shares, compiled in as a CPU runtime does for a
  // launch whose views (all of the domain's rank) share a stride of 2 to
  // max_view_stride, with an innermost step of 1 if the kernel takes its index or has a
  // filter (RuntimeOptions::specialize_short_rows); 1 (not 0) for none. Needs a
  // broadcast view of rank 1 or more.
  std::int64_t view_stride = 1;
  // GPU dialects: the stub of a dense launch, as a CUDA or HIP runtime compiles for a
  // domain that starts at 0 with unit steps over fields contiguous along its innermost
  // dimension: each logical index is its position, no innermost stride.
  bool dense = false;
  // A per-element kernel: the stub of a tiled launch with this tile (its tile_index and
  // local_index tokens need one). A group kernel's stub is a group stub whatever the
  // mode; GPU dialects need a warp size for both.
  Tile tile{};
  // A reduce, scan or sort kernel (a result, scan or sort parameter): its stub is the
  // pattern's
  // (numbered as spread, whatever `mode` says) along this dimension of the stub's
  // (C-order) domain, as LaunchOptions::reduce_dimension gives it: -1, the last (a
  // result of rank 0 takes the whole domain whatever this says).
  int reduce_dimension = -1;
  // A scan kernel: the stub of its first stage (the partials), which a CPU launch runs
  // before the scan's own where it splits a pencil into parts. The GPU dialects have
  // none (their scans run in one pass): an Error there.
  bool scan_partials = false;
  // A sort kernel: the stub of its merge passes (sort_merge) rather than of its first
  // stage (sort_runs, each group's part evaluated and sorted).
  bool sort_merge = false;
  // The user's code may #include "quoted" names, as in a runtime given
  // RuntimeOptions::include_directories; otherwise only <toolchain headers>.
  bool quoted_includes = false;
};

struct StubSource {
  std::string source;           // prelude + stub, as the backend's compiler gets it
  std::string entry;            // the extern "C" entry point
  std::string file_name;        // the name it is compiled under
  std::size_t stub_offset = 0;  // where the stub begins, after the prelude
};

// Deterministic: the same kernel and options give the same bytes, and the same as a
// runtime of that dialect generates for a launch that needs this stub. Throws
// SignatureError for a bad kernel (names, ranks) and Error for options that do not
// fit it (unknown dialect, rank, index width, bindings that do not match the
// parameters, a projection beyond rank 8, mode direct above rank 3, a warp size or
// launch bounds with cpp, rows other than 1 to 16, rows with a GPU dialect or at rank
// 1, a view stride outside 1 to 16, or other than 1 with a GPU dialect or without a
// broadcast view of rank 1 or more, dense with cpp; for a reduce or scan kernel a dimension
// outside the domain, a result whose rank does not fit it, a binding other than
// broadcast for a result or projection for a scan, a tile, rows, a view stride or dense,
// a GPU dialect without a warp size; a dimension or the partials stage for a kernel
// without a combining parameter; the partials stage for a GPU dialect).
STUBJIT_API StubSource generate_stub_source(const KernelSource& kernel, const StubOptions& options);

// A dialect the stub writer can write. A GPU dialect's stubs declare their launch
// bounds and carry the warp width the plan assumed (StubOptions::launch_bounds and
// warp_size); `default_warp_size` is the width a runtime of the dialect assumes unless
// its device says otherwise (stubjit dump-stub uses it when given none).
struct StubDialect {
  std::string name;
  bool takes_launch_bounds_and_warp_size = false;
  std::uint32_t default_warp_size = 0;  // 0 for a dialect that takes none
};
STUBJIT_API std::vector<StubDialect> stub_dialects();

}  // namespace stubjit
