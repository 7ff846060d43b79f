// The entries of group and tiled stubs, for both emitter families. Their groups are
// numbered 0 .. groups-1 and laid over the grid like a spread plan's positions
// (make_group_plan); each stub raises its group's number to a position of its domain
// (group: one group per index) or of the domain's tiling (tiled: one per tile), once
// per group, with plain division: per group, not per element.
//
// GPU: a group is a block. A block past the last group leaves as a whole, so no thread
// of a group that runs ever misses a fence; a tiled stub masks the positions of a
// partial tile inside its loop (continue), never by returning.
// CPU: one host thread runs a run of groups; a group's inner loops are plain loops.
#include <string>

#include "codegen/group_entries.hpp"

namespace stubjit::detail {
namespace {

// The tile's extent along dimension d of the stub's domain (1 outside the tile).
std::uint32_t tile_extent(const StubContext& context, int d) {
  const StubRequest& request = context.request();
  const int untiled = context.rank() - request.tile_rank;
  return d < untiled ? 1u : request.tile[static_cast<std::size_t>(d - untiled)];
}

std::uint64_t tile_elements(const StubContext& context) {
  std::uint64_t n = 1;
  for (int d = 0; d < context.rank(); ++d) n *= tile_extent(context, d);
  return n;
}

// const I <name>d = position of group `gid` along d over the counts <counts>d.
void emit_raise(const StubContext& context, int indent, const std::string& gid,
                const std::string& counts, const std::string& name) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  out.line(indent, "stubjit::u64 stubjit_rest = " + gid + ";");
  for (int d = context.rank() - 1; d > 0; --d) {
    const std::string n = std::to_string(d);
    out.line(indent, "const " + I + " " + name + n + " = " + I + "(stubjit_rest % stubjit::u64(" +
                         counts + n + "));");
    out.line(indent, "stubjit_rest /= stubjit::u64(" + counts + n + ");");
  }
  out.line(indent, "const " + I + " " + name + "0 = " + I + "(stubjit_rest);");
}

// The tiling's counts: stubjit_tiles<d> tiles along each dimension but the first
// (emit_raise gives dimension 0 what is left of the group's number).
void emit_tile_counts(const StubContext& context, int indent) {
  const std::string I = context.index_type();
  for (int d = 1; d < context.rank(); ++d) {
    const std::string n = std::to_string(d);
    const std::uint32_t extent = tile_extent(context, d);
    context.out().line(
        indent, "const " + I + " stubjit_tiles" + n + " = " +
                    (extent == 1 ? "stubjit_count" + n
                                 : "stubjit::div_ceil<" + I + ">(stubjit_count" + n + ", " + I +
                                       "(" + std::to_string(extent) + "))") +
                    ";");
  }
}

bool has_shared(const StubContext& context) { return context.has_param(ParamKind::shared); }

// A group stub raises its group's number over the domain's counts (emit_raise: the
// first is not read); a tiled stub over the tiles', and masks with every count.
EntryHead entry_head(const StubContext& context) {
  EntryHead head;
  if (context.request().pattern == Pattern::group)
    head.counts = StubContext::CountLocals::all_but_first;
  return head;
}

}  // namespace

void emit_warp_width_check(const StubContext& context) {
  SourceWriter& out = context.out();
  const std::string what = name_of(context.request().pattern);
  out.line(0, "#if defined(__AMDGCN_WAVEFRONT_SIZE)");
  out.line(0, "static_assert(STUBJIT_WARP_SIZE == __AMDGCN_WAVEFRONT_SIZE, \"stubjit: a " + what +
                  " stub's warp width must be the target's wavefront size\");");
  out.line(0, "#elif defined(__CUDACC_RTC__) || defined(__CUDACC__)");
  out.line(0, "static_assert(STUBJIT_WARP_SIZE == 32, \"stubjit: a " + what +
                  " stub's warp width must be CUDA's 32 lanes\");");
  out.line(0, "#endif");
}

void emit_gpu_entry_head(const StubContext& context, const std::string& bounds,
                         const EntryHead& head) {
  SourceWriter& out = context.out();
  out.line(0, "extern \"C\" __global__ void " + bounds + context.entry() +
                  "(const stubjit_args_t stubjit_args, const stubjit::LaunchParams stubjit_lp)");
  out.line(0, "{");
  context.emit_domain_locals(1, head.counts);
  out.line(1,
           "const stubjit::u64 stubjit_gid = stubjit::u64(stubjit_lp.linear_begin) + blockIdx.x + "
           "stubjit_lp.grid[0] * (blockIdx.y + stubjit_lp.grid[1] * stubjit::u64(blockIdx.z));");
  out.line(1, "// Past the last group: the whole block leaves, so no thread of a group that");
  out.line(1, "// runs waits at a barrier for it.");
  out.line(1, "if (stubjit_gid >= stubjit::u64(stubjit_lp.linear_end)) return;");
  out.line(1,
           "const stubjit::u32 stubjit_rank = threadIdx.x + stubjit_lp.block[0] * (threadIdx.y + "
           "stubjit_lp.block[1] * threadIdx.z);");
  if (head.threads) {
    out.line(1,
             "const stubjit::u32 stubjit_threads = stubjit_lp.block[0] * stubjit_lp.block[1] * "
             "stubjit_lp.block[2];");
  }
  context.emit_argument_locals(1, head.arguments);
}

void emit_gpu_group_entry(const StubContext& context, const std::string& bounds) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  const int rank = context.rank();
  // The Group's workers are the hardware's warps: its vector masks and fences hold
  // only at the width the target runs (a runtime's adjusted limits could say another).
  if (context.request().pattern == Pattern::group) emit_warp_width_check(context);
  emit_gpu_entry_head(context, bounds, entry_head(context));
  if (context.request().pattern == Pattern::group) {
    emit_raise(context, 1, "stubjit_gid", "stubjit_count", "stubjit_p");
    for (int d = 0; d < rank; ++d) context.emit_logical_index(1, d);
    if (has_shared(context)) {
      out.line(1, "STUBJIT_GROUP_MEMORY(stubjit_group_memory);");
      context.emit_shared_locals(1, "stubjit_group_memory");
    }
    out.line(
        1, "const stubjit::Group stubjit_group(stubjit_rank, stubjit_threads, STUBJIT_WARP_SIZE);");
    context.emit_visit(1, StubContext::VisitStyle::full_offsets);
    out.line(0, "}");
    return;
  }
  emit_tile_counts(context, 1);
  emit_raise(context, 1, "stubjit_gid", "stubjit_tiles", "stubjit_t");
  // The tile's positions spread over the group's threads: one each where the tile is
  // the group's shape, several where it is spread over a smaller group.
  out.line(1, "for (stubjit::u32 stubjit_k = stubjit_rank; stubjit_k < " +
                  std::to_string(tile_elements(context)) + "u; stubjit_k += stubjit_threads) {");
  out.line(2, "stubjit::u32 stubjit_krest = stubjit_k;");
  std::string outside;
  for (int d = rank - 1; d >= 0; --d) {
    const std::string n = std::to_string(d);
    const std::string extent = std::to_string(tile_extent(context, d));
    if (tile_extent(context, d) == 1) {
      out.line(2, "const " + I + " stubjit_l" + n + " = 0;");
    } else {
      out.line(2,
               "const " + I + " stubjit_l" + n + " = " + I + "(stubjit_krest % " + extent + "u);");
      out.line(2, "stubjit_krest /= " + extent + "u;");
    }
  }
  for (int d = 0; d < rank; ++d) {
    const std::string n = std::to_string(d);
    out.line(2, "const " + I + " stubjit_p" + n + " = stubjit_t" + n + " * " + I + "(" +
                    std::to_string(tile_extent(context, d)) + ") + stubjit_l" + n + ";");
    outside += (d ? " || stubjit_p" : "stubjit_p") + n + " >= stubjit_count" + n;
  }
  out.line(2, "if (" + outside + ") continue;  // a partial tile: masked, not returned");
  for (int d = 0; d < rank; ++d) context.emit_logical_index(2, d);
  context.emit_visit(2, StubContext::VisitStyle::full_offsets);
  out.line(1, "}");
  out.line(0, "}");
}

void emit_cpp_entry_head(const StubContext& context, const EntryHead& head) {
  SourceWriter& out = context.out();
  out.line(0, "extern \"C\" void " + context.entry() +
                  "(const void* stubjit_args_raw, const stubjit::LaunchParams* stubjit_lp_raw, "
                  "stubjit::u64 stubjit_group_begin, stubjit::u64 stubjit_group_end, "
                  "stubjit::u8* stubjit_group_memory)");
  out.line(0, "{");
  out.line(1,
           "const stubjit_args_t& stubjit_args = *static_cast<const "
           "stubjit_args_t*>(stubjit_args_raw);");
  out.line(1, "const stubjit::LaunchParams& stubjit_lp = *stubjit_lp_raw;");
  context.emit_domain_locals(1, head.counts);
  context.emit_argument_locals(1, head.arguments);
}

void emit_cpp_group_entry(const StubContext& context) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  const int rank = context.rank();
  emit_cpp_entry_head(context, entry_head(context));
  const bool group = context.request().pattern == Pattern::group;
  if (group) {
    // The runner's memory for this thread: each group of the run reuses it (a group's
    // shared arrays start uninitialised, as on a GPU).
    if (has_shared(context)) context.emit_shared_locals(1, "stubjit_group_memory");
    out.line(1, "const stubjit::Group stubjit_group = stubjit::Group();");
  } else {
    emit_tile_counts(context, 1);
  }
  out.line(1,
           "for (stubjit::u64 stubjit_g = stubjit_group_begin; stubjit_g < stubjit_group_end; "
           "++stubjit_g) {");
  // The grid may hold more groups than there are (a spread grid rounds up); the
  // groups come in order, so the first past the last ends the run.
  out.line(2,
           "const stubjit::u64 stubjit_gid = stubjit::u64(stubjit_lp.linear_begin) + stubjit_g;");
  out.line(2, "if (stubjit_gid >= stubjit::u64(stubjit_lp.linear_end)) break;");
  if (group) {
    emit_raise(context, 2, "stubjit_gid", "stubjit_count", "stubjit_p");
    for (int d = 0; d < rank; ++d) context.emit_logical_index(2, d);
    context.emit_visit(2, StubContext::VisitStyle::full_offsets);
    out.line(1, "}");
    out.line(0, "}");
    return;
  }
  emit_raise(context, 2, "stubjit_gid", "stubjit_tiles", "stubjit_t");
  // A partial tile's loops stop at the domain's edge.
  for (int d = 0; d < rank; ++d) {
    const std::string n = std::to_string(d);
    const std::string extent = std::to_string(tile_extent(context, d));
    out.line(
        2, "const " + I + " stubjit_lo" + n + " = stubjit_t" + n + " * " + I + "(" + extent + ");");
    out.line(2, "const " + I + " stubjit_hi" + n + " = stubjit::min_of<" + I + ">(stubjit_lo" + n +
                    " + " + I + "(" + extent + "), stubjit_count" + n + ");");
  }
  for (int d = 0; d < rank; ++d) {
    const std::string n = std::to_string(d);
    out.line(2 + d, "for (" + I + " stubjit_p" + n + " = stubjit_lo" + n + "; stubjit_p" + n +
                        " < stubjit_hi" + n + "; ++stubjit_p" + n + ") {");
    out.line(3 + d,
             "const " + I + " stubjit_l" + n + " = stubjit_p" + n + " - stubjit_lo" + n + ";");
    context.emit_logical_index(3 + d, d);
  }
  context.emit_visit(2 + rank, StubContext::VisitStyle::full_offsets);
  for (int d = rank - 1; d >= 0; --d) out.line(2 + d, "}");
  out.line(1, "}");
  out.line(0, "}");
}

}  // namespace stubjit::detail
