// The entries of a scan: on the CPU its second stage (Pattern::scan; the first,
// Pattern::scan_partials, is a reduce entry that leaves each group's value in the
// partials: reduce_entries.cpp), on a GPU its only one.
//
// A segment is one pencil along the dimension scanned; a launch splits it into parts,
// one group each (plan/reduce_plan.cpp), and each group walks its part in order,
// writing each element's prefix to the scan's field: on the CPU one element at a time,
// on a GPU a tile at a time, each warp a chunk of it read a row of consecutive elements
// at a time across its lanes, the rows scanned by shuffles and the warps' chunks by the
// group (reduce.h, warp_scan and warps_scan). A group starts from the combination of
// the parts before its own: on the CPU the partials of the first stage, combined in
// part order; on a GPU, where a split segment's parts are one tile each, the prefix
// its look-back finds (reduce.h, scan_part_prefix), in the same order. The body's
// value is the field's element until the body sets it, and is read before the element
// is written, so that a scan in place reads every element before it writes it.
#include <string>

#include "codegen/reduce_entries.hpp"
#include "codegen/reduce_parts.hpp"
#include "codegen/stub_request.hpp"
#include "plan/reduce_plan.hpp"

namespace stubjit::detail {
namespace {

// Values a CPU group's walk combines from the identity before it adds them to the
// carry (see emit_cpp_scan_entry).
constexpr int cpu_scan_block = 1024;

// Rows of a warp's chunk of a tile (values each GPU thread takes of it): the group
// combines its warps' chunks once per tile, so that its barriers are paid once per this
// many values. The plan's: a split segment's parts are one tile each.
constexpr int gpu_scan_items = static_cast<int>(device_scan_thread_values);

bool exclusive(const StubContext& context) {
  return result_of(context).scan == ScanKind::exclusive;
}

}  // namespace

void emit_cpp_scan_entry(const StubContext& context) {
  SourceWriter& out = context.out();
  const int along = context.request().reduce_dimension;
  emit_cpp_entry_head(context);
  out.line(1, "const stubjit::ReduceParams& stubjit_rp = stubjit_args.stubjit_reduce;");
  out.line(1,
           "const stubjit_reduce::value_t* const stubjit_partials = "
           "reinterpret_cast<const stubjit_reduce::value_t*>(stubjit_rp.partials);");
  emit_length(context, 1);
  emit_cpp_group_loop(context);
  emit_part(context, 2);
  emit_kept_positions(context, 2);
  out.line(2, "// The parts before this one, in order (the first stage wrote them).");
  out.line(2, "stubjit_reduce::value_t stubjit_carry = stubjit_reduce::identity();");
  out.line(2, "for (stubjit::u64 stubjit_p = 0; stubjit_p < stubjit_part; ++stubjit_p)");
  out.line(3,
           "stubjit_carry = stubjit_reduce::combine(stubjit_carry, "
           "stubjit_partials[stubjit_segment * stubjit_rp.parts + stubjit_p]);");
  for (const bool unit : {false, true}) {
    emit_element(
        context, 2, [&](int indent) { emit_along_positions(context, indent); },
        unit ? "stubjit_element_unit" : "stubjit_element", unit ? along : -1, true);
  }
  std::string unit = "stubjit_step" + std::to_string(along) + " == 1";
  for (const std::string& stride : projected_strides(context, along))
    unit += " && " + stride + " == 1";
  // One walk of the part, with `el` the element lambda: its value read (and the body
  // run) before its element is written. Block by block, each block's running
  // combination from the identity and written combined with the carry of everything
  // before the block: a float sum's rounding then grows with a block's length and the
  // number of blocks, not with the part's length.
  const std::string block = std::to_string(cpu_scan_block);
  out.line(2, "const auto stubjit_walk = [&](const auto& stubjit_el) {");
  out.line(3, "for (stubjit::u64 stubjit_b = stubjit_lo; stubjit_b < stubjit_hi; stubjit_b += " +
                  block + ") {");
  out.line(4, "const stubjit::u64 stubjit_e = stubjit::min_of<stubjit::u64>(stubjit_b + " + block +
                  ", stubjit_hi);");
  out.line(4, "stubjit_reduce::value_t stubjit_local = stubjit_reduce::identity();");
  out.line(4, "for (stubjit::u64 stubjit_k = stubjit_b; stubjit_k < stubjit_e; ++stubjit_k) {");
  out.line(5, "stubjit_reduce::value_t* stubjit_at = nullptr;");
  out.line(5, "const stubjit_reduce::value_t stubjit_value = stubjit_el(stubjit_k, stubjit_at);");
  if (exclusive(context)) {
    out.line(5, "*stubjit_at = stubjit_reduce::combine(stubjit_carry, stubjit_local);");
    out.line(5, "stubjit_local = stubjit_reduce::combine(stubjit_local, stubjit_value);");
  } else {
    out.line(5, "stubjit_local = stubjit_reduce::combine(stubjit_local, stubjit_value);");
    out.line(5, "*stubjit_at = stubjit_reduce::combine(stubjit_carry, stubjit_local);");
  }
  out.line(4, "}");
  out.line(4, "stubjit_carry = stubjit_reduce::combine(stubjit_carry, stubjit_local);");
  out.line(3, "}");
  out.line(2, "};");
  out.line(2, "if (" + unit + ") stubjit_walk(stubjit_element_unit);");
  out.line(2, "else stubjit_walk(stubjit_element);");
  out.line(1, "}");
  out.line(0, "}");
}

void emit_gpu_scan_entry(const StubContext& context, const std::string& bounds) {
  SourceWriter& out = context.out();
  // The rows' scans shuffle within warps (reduce.h, warp_scan).
  emit_warp_width_check(context);
  emit_gpu_entry_head(context, bounds);
  out.line(1, "const stubjit::ReduceParams& stubjit_rp = stubjit_args.stubjit_reduce;");
  out.line(1,
           "// A split segment: parts of one tile each, in one pass (reduce.h, scan_part_prefix):");
  out.line(1, "// two values per group, a ticket counter, then a flag per group.");
  out.line(1, "const bool stubjit_chained = stubjit_rp.parts > 1;");
  out.line(1,
           "stubjit_reduce::value_t* const stubjit_chain = "
           "reinterpret_cast<stubjit_reduce::value_t*>(stubjit_rp.partials);");
  out.line(1,
           "stubjit::u32* const stubjit_status = "
           "reinterpret_cast<stubjit::u32*>(stubjit_rp.arrivals);");
  out.line(1, "// Group memory: 16 bytes for the group's ticket, then one value per warp and one");
  out.line(1, "// more.");
  out.line(1, "STUBJIT_GROUP_MEMORY(stubjit_group_memory);");
  out.line(1,
           "stubjit_reduce::value_t* const stubjit_scratch = "
           "reinterpret_cast<stubjit_reduce::value_t*>(stubjit_group_memory + 16);");
  out.line(1, "stubjit::u64 stubjit_group = stubjit_gid;");
  out.line(1, "if (stubjit_chained) {");
  out.line(2, "// Parts in the order groups start: a group waits only on groups that started.");
  out.line(2,
           "stubjit::u64* const stubjit_ticket = "
           "reinterpret_cast<stubjit::u64*>(stubjit_group_memory);");
  out.line(2, "if (stubjit_rank == 0) *stubjit_ticket = stubjit::scan_ticket(stubjit_status);");
  out.line(2, "STUBJIT_GROUP_BARRIER();");
  out.line(2, "stubjit_group = *stubjit_ticket;");
  out.line(1, "}");
  emit_length(context, 1);
  emit_part(context, 1, "stubjit_group");
  emit_kept_positions(context, 1);
  emit_element(
      context, 1, [&](int indent) { emit_along_positions(context, indent); }, "stubjit_element", -1,
      true);
  out.line(1, "stubjit_reduce::value_t stubjit_carry = stubjit_reduce::identity();");
  // The part a tile at a time (the same tiles for every thread): each warp a chunk of
  // scan_items rows of consecutive values, one per lane, so that a warp's loads and
  // stores are side by side. Every value of a thread is read (and the body run) first,
  // all of its loads in flight at once; then each row is scanned across the warp by
  // shuffles, the rows' totals carried down the chunk, and the warps' chunks across the
  // group once per tile (warps_scan: its barriers are paid once per this many values).
  const std::string items = std::to_string(gpu_scan_items);
  out.line(1, "const stubjit::u32 stubjit_lane = stubjit_rank % STUBJIT_WARP_SIZE;");
  out.line(1, "const stubjit::u32 stubjit_warp = stubjit_rank / STUBJIT_WARP_SIZE;");
  out.line(1,
           "const stubjit::u32 stubjit_warps = (stubjit_threads + STUBJIT_WARP_SIZE - 1) / "
           "STUBJIT_WARP_SIZE;");
  out.line(1, "// The last warp of a group may have fewer lanes than the width.");
  out.line(1,
           "const stubjit::u32 stubjit_lanes = stubjit::min_of<stubjit::u32>(STUBJIT_WARP_SIZE, "
           "stubjit_threads - stubjit_warp * STUBJIT_WARP_SIZE);");
  out.line(1,
           "for (stubjit::u64 stubjit_base = stubjit_lo; stubjit_base < stubjit_hi; "
           "stubjit_base += stubjit::u64(stubjit_threads) * " +
               items + ") {");
  out.line(2,
           "const stubjit::u64 stubjit_first = stubjit_base + stubjit::u64(stubjit_warp) * "
           "(STUBJIT_WARP_SIZE * " +
               items + "u) + stubjit_lane;");
  out.line(2, "stubjit_reduce::value_t stubjit_values[" + items + "];");
  out.line(2, "stubjit_reduce::value_t* stubjit_slots[" + items + "];");
  out.line(2, "for (int stubjit_j = 0; stubjit_j < " + items + "; ++stubjit_j) {");
  out.line(3,
           "const stubjit::u64 stubjit_k = stubjit_first + stubjit::u64(stubjit_j) * "
           "stubjit_lanes;");
  out.line(3, "stubjit_slots[stubjit_j] = nullptr;");
  out.line(3,
           "stubjit_values[stubjit_j] = stubjit_k < stubjit_hi ? stubjit_element(stubjit_k, "
           "stubjit_slots[stubjit_j]) : stubjit_reduce::identity();");
  out.line(2, "}");
  out.line(2, "// Each value's combination from the chunk's start, row by row.");
  out.line(2, "stubjit_reduce::value_t stubjit_rows = stubjit_reduce::identity();");
  out.line(2, "for (int stubjit_j = 0; stubjit_j < " + items + "; ++stubjit_j) {");
  out.line(3,
           "const stubjit_reduce::value_t stubjit_row = stubjit::warp_scan(stubjit_values["
           "stubjit_j], stubjit_lane, stubjit_lanes, STUBJIT_WARP_SIZE, "
           "stubjit_reduce::combiner());");
  if (exclusive(context)) {
    out.line(3,
             "const stubjit_reduce::value_t stubjit_below = stubjit::warp_shuffle_up(stubjit_row, "
             "1u, stubjit_lanes);");
    out.line(3,
             "stubjit_values[stubjit_j] = stubjit_lane == 0 ? stubjit_rows : "
             "stubjit_reduce::combine(stubjit_rows, stubjit_below);");
  } else {
    out.line(3, "stubjit_values[stubjit_j] = stubjit_reduce::combine(stubjit_rows, stubjit_row);");
  }
  out.line(3,
           "stubjit_rows = stubjit_reduce::combine(stubjit_rows, stubjit::warp_broadcast("
           "stubjit_row, stubjit_lanes - 1, stubjit_lanes));");
  out.line(2, "}");
  out.line(2, "stubjit_reduce::value_t stubjit_before, stubjit_total;");
  out.line(2,
           "stubjit::warps_scan(stubjit_rows, stubjit_scratch, stubjit_lane, stubjit_warp, "
           "stubjit_warps, stubjit_reduce::identity(), stubjit_reduce::combiner(), "
           "stubjit_before, stubjit_total);");
  // A chained part is one tile: its carry is what the parts before it combine to.
  out.line(2, "if (stubjit_chained)");
  out.line(3,
           "stubjit_carry = stubjit::scan_part_prefix(stubjit_chain, stubjit_status + 1, "
           "stubjit_segment * stubjit_rp.parts, stubjit_part, stubjit_rp.epoch, stubjit_total, "
           "stubjit_scratch, stubjit_rank, stubjit_threads, STUBJIT_WARP_SIZE, "
           "stubjit_reduce::identity(), stubjit_reduce::combiner());");
  // Written combined with the carry of everything before the tile (as on the CPU,
  // rounding stays local).
  out.line(2, "for (int stubjit_j = 0; stubjit_j < " + items + "; ++stubjit_j) {");
  out.line(3, "if (stubjit_first + stubjit::u64(stubjit_j) * stubjit_lanes >= stubjit_hi) break;");
  out.line(3,
           "*stubjit_slots[stubjit_j] = stubjit_reduce::combine(stubjit_carry, "
           "stubjit_reduce::combine(stubjit_before, stubjit_values[stubjit_j]));");
  out.line(2, "}");
  out.line(2, "stubjit_carry = stubjit_reduce::combine(stubjit_carry, stubjit_total);");
  out.line(1, "}");
  out.line(0, "}");
}

}  // namespace stubjit::detail
