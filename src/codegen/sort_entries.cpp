// The entries of a sort's stages, for both emitter families (kernels/stubjit/sort.h
// says what each stage does and how the merges split their work).
//
// A segment is one pencil along the dimension sorted; the launch splits it into parts,
// one group each (plan/reduce_plan.cpp, sort_layout). sort_runs evaluates each element
// of the group's part (the body run, the key the field's element until the body sets
// it, the payloads the fields' elements, which the body may set) into the launch's
// buffer `to` at the element's dense position, segment * length + k, and sorts the
// part there: on the CPU the group alone (radix_sort_run for a built-in order of keys
// radix_bits_type names, else sort_run); on a GPU each thread a run of
// thread_run elements by insertion, then the group's threads merge the runs in pairs,
// a barrier between passes. Where a segment is one part (into_fields), the sorted part
// goes into the fields and no merge pass follows. sort_merge merges runs of `width` in
// pairs, each group its part of the output (each GPU thread a share of it), from
// buffer `from` into `to` or, in a launch's last pass, into the fields.
#include <string>

#include "codegen/reduce_entries.hpp"
#include "codegen/reduce_parts.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

const Param& keys_of(const StubContext& context) {
  for (const Param& p : context.request().kernel->signature)
    if (p.is_sort()) return p;
  throw Error("sort stub for kernel '" + context.request().kernel->name + "' without keys");
}

std::vector<const Param*> payloads_of(const StubContext& context) {
  std::vector<const Param*> payloads;
  for (const Param& p : context.request().kernel->signature)
    if (p.payload) payloads.push_back(&p);
  return payloads;
}

// The order's expression over keys a and b: true where a goes before b. A built-in
// order over floating-point keys puts NaNs (which compare false with everything) last,
// in ascending and descending order alike, so that it is a strict weak order. Its
// parts are combined with | and &, not || and &&: a short circuit is a branch, which
// kept the merges' selection (sort.h, merge_run) from being branch-free.
std::string less_expression(const Param& keys) {
  const bool real = is_float_type(keys.type);
  const std::string nan_last = real ? " | ((b != b) & (a == a))" : "";
  switch (keys.sort) {
    case SortOrder::ascending:
      return (real ? "(a < b)" : "a < b") + nan_last;
    case SortOrder::descending:
      return (real ? "(b < a)" : "b < a") + nan_last;
    case SortOrder::custom:
      return "stubjit_user::stubjit_less(a, b)";
    case SortOrder::none:
      break;
  }
  throw Error("sort stub for keys without an order");
}

// The unsigned type of the keys' radix bits (kernels/stubjit/sort.h, radix_sort_run),
// or null where the keys sort by merges alone: custom orders and complex keys.
const char* radix_bits_type(const Param& keys) {
  if (keys.sort == SortOrder::custom) return nullptr;
  switch (keys.type) {
    case ElementType::boolean:
    case ElementType::i8:
    case ElementType::u8:
      return "stubjit::u8";
    case ElementType::i16:
    case ElementType::u16:
    case ElementType::float16:
    case ElementType::bfloat16:
      return "stubjit::u16";
    case ElementType::i32:
    case ElementType::u32:
    case ElementType::f32:
      return "stubjit::u32";
    case ElementType::i64:
    case ElementType::u64:
    case ElementType::f64:
      return "stubjit::u64";
    default:
      return nullptr;
  }
}

// stubjit_sort::radix_t, the keys' radix bits: unsigned, in the order of the sort, and
// equal for keys it holds equal. Signed integers with the sign bit flipped; reals with
// NaNs (all of them: the order keeps them last either way) the largest, -0 as +0, and
// the rest by their sign: negative ones complemented, the others with the sign bit
// set. Descending: the complement (NaNs still the largest). NaNs (a magnitude above
// infinity's) and zeros are told by their bits, not by comparing: a user's
// -ffinite-math-only cannot fold the test away, and the integer tests ran faster
// (bench/results/patterns.md). (A thread that has the processor treat denormals as
// zero would see merges hold them equal to zero, and these bits order them.)
void emit_radix(const StubContext& context, const Param& keys, const char* bits) {
  SourceWriter& out = context.out();
  const bool real = is_float_type(keys.type);
  const bool descending = keys.sort == SortOrder::descending;
  out.line(0, "namespace stubjit_sort {");
  out.line(0, "struct radix_t {");
  out.line(1, std::string("typedef ") + bits + " bits;");
  out.line(1, "bits operator()(key_t k) const {");
  out.line(2, "const bits top = bits(bits(1) << (8 * sizeof(bits) - 1));");
  if (real) {
    // Infinity's bits without the sign: above them, a NaN.
    const std::string infinity = keys.type == ElementType::f32       ? "bits(0x7f800000u)"
                                 : keys.type == ElementType::f64     ? "bits(0x7ff0000000000000ull)"
                                 : keys.type == ElementType::float16 ? "bits(0x7c00u)"
                                                                     : "bits(0x7f80u)";
    out.line(2, "bits r = 0;");
    out.line(2, "__builtin_memcpy(&r, &k, sizeof r);");
    out.line(2, "const bits magnitude = bits(r & bits(~top));");
    out.line(2, "if (magnitude > " + infinity + ") return bits(~bits(0));");
    out.line(2, "if (magnitude == 0) r = 0;");
    out.line(2, "r = (r & top) ? bits(~r) : bits(r | top);");
  } else if (keys.type == ElementType::boolean) {
    out.line(2, "(void)top;");
    out.line(2, "const bits r = k ? 1 : 0;");
  } else if (keys.type == ElementType::u8 || keys.type == ElementType::u16 ||
             keys.type == ElementType::u32 || keys.type == ElementType::u64) {
    out.line(2, "(void)top;");
    out.line(2, "const bits r = bits(k);");
  } else {
    out.line(2, "const bits r = bits(bits(k) ^ top);");
  }
  out.line(2, descending ? "return bits(~r);" : "return r;");
  out.line(1, "}");
  out.line(0, "};");
  out.line(0, "}  // namespace stubjit_sort");
  out.raw("\n");
}

// The member of a record and a buffer for payload number j.
std::string payload_member(std::size_t j) { return "p" + std::to_string(j); }

void emit_buffers(const StubContext& context, int indent) {
  SourceWriter& out = context.out();
  out.line(indent, "const stubjit::SortParams& stubjit_rp = stubjit_args.stubjit_sort;");
  const std::string sort = context.request().pattern == Pattern::sort_runs
                               ? "stubjit_sort::buffer stubjit_spare = "
                                 "stubjit_sort::buffer_at(stubjit_rp.spare, stubjit_rp.total);"
                               : "const stubjit_sort::buffer stubjit_from = "
                                 "stubjit_sort::buffer_at(stubjit_rp.from, stubjit_rp.total);";
  out.line(indent,
           "stubjit_sort::buffer stubjit_to = stubjit_sort::buffer_at(stubjit_rp.to, "
           "stubjit_rp.total);");
  out.line(indent, sort);
}

// The element at position `k` of the segment (a lambda): `evaluate`,
// stubjit_evaluate(k, at), evaluates it (the body run) into buffer `to` at `at`; else
// stubjit_put_fields(k, buffer, at) puts element `at` of `buffer` into the fields there.
void emit_element_lambda(const StubContext& context, int indent, bool evaluate) {
  SourceWriter& out = context.out();
  const Param& keys = keys_of(context);
  const std::vector<const Param*> payloads = payloads_of(context);
  const bool runs = evaluate;
  out.line(indent, runs ? "const auto stubjit_evaluate = [&](const stubjit::u64 stubjit_k, const "
                          "stubjit::u64 stubjit_at) {"
                        : "const auto stubjit_put_fields = [&](const stubjit::u64 stubjit_k, const "
                          "stubjit_sort::buffer& stubjit_source, const stubjit::u64 stubjit_at) {");
  emit_along_positions(context, indent + 1);
  for (int d = 0; d < context.rank(); ++d) context.emit_logical_index(indent + 1, d);
  const std::string local = argument_local(keys);
  out.line(indent + 1, "stubjit_sort::key_t* const stubjit_slot = " + local + " + (" +
                           context.projection_offset(local) + ");");
  if (runs) {
    out.line(indent + 1, "stubjit_sort::key_t stubjit_value = *stubjit_slot;");
    context.emit_visit(indent + 1, StubContext::VisitStyle::full_offsets);
    out.line(indent + 1, "stubjit_to.keys[stubjit_at] = stubjit_value;");
    for (std::size_t j = 0; j < payloads.size(); ++j) {
      const std::string p = argument_local(*payloads[j]);
      out.line(indent + 1, "stubjit_to." + payload_member(j) + "[stubjit_at] = " + p + "[" +
                               context.projection_offset(p) + "];");
    }
  } else {
    out.line(indent + 1, "*stubjit_slot = stubjit_source.keys[stubjit_at];");
    for (std::size_t j = 0; j < payloads.size(); ++j) {
      const std::string p = argument_local(*payloads[j]);
      out.line(indent + 1, p + "[" + context.projection_offset(p) + "] = stubjit_source." +
                               payload_member(j) + "[stubjit_at];");
    }
  }
  out.line(indent, "};");
}

// sort_merge's group: the pair of runs its part of the output lies in (a part never
// straddles two: the width is the part length times a power of two).
void emit_pair(const StubContext& context, int indent) {
  SourceWriter& out = context.out();
  out.line(indent, "const stubjit::u64 stubjit_base = stubjit_segment * stubjit_length;");
  out.line(indent,
           "const stubjit::u64 stubjit_pair = stubjit_lo / (2 * stubjit_rp.width) * (2 * "
           "stubjit_rp.width);");
  out.line(indent,
           "const stubjit::u64 stubjit_na = stubjit::min_of<stubjit::u64>(stubjit_rp.width, "
           "stubjit_length - stubjit_pair);");
  out.line(indent,
           "const stubjit::u64 stubjit_nb = stubjit::min_of<stubjit::u64>(stubjit_rp.width, "
           "stubjit_length - stubjit_pair - stubjit_na);");
}

// Outputs [begin, end) of the segment's merge (positions along it), from buffer `from`
// into the fields or buffer `to`.
void emit_merge_outputs(const StubContext& context, int indent, const std::string& begin,
                        const std::string& end) {
  SourceWriter& out = context.out();
  const std::string merge =
      "stubjit::merge_outputs(stubjit_from, stubjit_base + stubjit_pair, "
      "stubjit_na, stubjit_nb, " +
      begin + " - stubjit_pair, " + end + " - " + begin + ", stubjit_sort::less_t(), ";
  out.line(indent, "if (stubjit_rp.into_fields)");
  out.line(indent + 1, merge + "[&](stubjit::u64 stubjit_o, stubjit::u64 stubjit_src) {");
  out.line(indent + 2, "stubjit_put_fields(" + begin + " + stubjit_o, stubjit_from, stubjit_src);");
  out.line(indent + 1, "});");
  out.line(indent, "else");
  out.line(indent + 1, merge + "[&](stubjit::u64 stubjit_o, stubjit::u64 stubjit_src) {");
  out.line(indent + 2,
           "stubjit_to.move(stubjit_base + " + begin + " + stubjit_o, stubjit_from, stubjit_src);");
  out.line(indent + 1, "});");
}

}  // namespace

void emit_sort_functions(const StubContext& context, const DialectEmitter& dialect) {
  SourceWriter& out = context.out();
  const Param& keys = keys_of(context);
  const std::vector<const Param*> payloads = payloads_of(context);
  const std::string qualifiers = dialect.function_qualifiers();
  const std::string member = member_qualifiers(dialect);
  out.line(0, "// The order: " + std::string(name_of(keys.sort)) + " of " + c_type(keys.type) +
                  " keys; " + std::to_string(payloads.size()) + " payload(s) move with them.");
  out.line(0, "namespace stubjit_sort {");
  out.line(0, "typedef " + std::string(c_type(keys.type)) + " key_t;");
  out.line(0, "struct less_t {");
  out.line(1, member + " bool operator()(key_t a, key_t b) const { return " +
                  less_expression(keys) + "; }");
  out.line(0, "};");
  std::string load = "record r; r.key = keys[i];";
  std::string store = "keys[i] = r.key;";
  std::string move = "keys[to] = from.keys[i];";
  out.line(0, "struct record {");
  out.line(1, "key_t key;");
  for (std::size_t j = 0; j < payloads.size(); ++j) {
    const std::string m = payload_member(j);
    out.line(1, std::string(c_type(payloads[j]->type)) + " " + m + ";");
    load += " r." + m + " = " + m + "[i];";
    store += " " + m + "[i] = r." + m + ";";
    move += " " + m + "[to] = from." + m + "[i];";
  }
  out.line(0, "};");
  out.line(0, "// The arrays of one of the launch's buffers: keys, then each payload.");
  out.line(0, "struct buffer {");
  out.line(1, "key_t* keys;");
  for (std::size_t j = 0; j < payloads.size(); ++j)
    out.line(1, std::string(c_type(payloads[j]->type)) + "* " + payload_member(j) + ";");
  out.line(1, member + " record load(stubjit::u64 i) const { " + load + " return r; }");
  out.line(1, member + " void store(stubjit::u64 i, const record& r) const { " + store + " }");
  out.line(1, member + " void move(stubjit::u64 to, const buffer& from, stubjit::u64 i) const { " +
                  move + " }");
  out.line(0, "};");
  out.line(0, qualifiers + " buffer buffer_at(stubjit::u64 base, stubjit::u64 total) {");
  out.line(1, "stubjit::u8* at = reinterpret_cast<stubjit::u8*>(base);");
  out.line(1, "buffer b;");
  out.line(1, "b.keys = reinterpret_cast<key_t*>(at);");
  std::string previous = "key_t";
  for (std::size_t j = 0; j < payloads.size(); ++j) {
    const std::string T = c_type(payloads[j]->type);
    out.line(1, "at += stubjit::sort_array_bytes(total, sizeof(" + previous + "));");
    out.line(1, "b." + payload_member(j) + " = reinterpret_cast<" + T + "*>(at);");
    previous = T;
  }
  out.line(1, "return b;");
  out.line(0, "}");
  out.line(0, "}  // namespace stubjit_sort");
  out.raw("\n");
}

// The merge passes move keys and payloads alone: they read no other argument.
EntryHead sort_entry_head(const StubContext& context) {
  EntryHead head;
  if (context.request().pattern == Pattern::sort_merge)
    head.arguments = [](const Param& p) { return p.is_sort() || p.payload; };
  return head;
}

void emit_cpp_sort_entry(const StubContext& context) {
  SourceWriter& out = context.out();
  const bool runs = context.request().pattern == Pattern::sort_runs;
  const char* const radix = runs ? radix_bits_type(keys_of(context)) : nullptr;
  if (radix) emit_radix(context, keys_of(context), radix);
  emit_cpp_entry_head(context, sort_entry_head(context));
  emit_buffers(context, 1);
  emit_length(context, 1);
  emit_cpp_group_loop(context);
  emit_part(context, 2);
  emit_kept_positions(context, 2);
  if (runs) emit_element_lambda(context, 2, true);
  emit_element_lambda(context, 2, false);
  if (runs) {
    out.line(2, "const stubjit::u64 stubjit_base = stubjit_segment * stubjit_length;");
    out.line(2, "for (stubjit::u64 stubjit_k = stubjit_lo; stubjit_k < stubjit_hi; ++stubjit_k)");
    out.line(3, "stubjit_evaluate(stubjit_k, stubjit_base + stubjit_k);");
    out.line(2, std::string(radix ? "stubjit::radix_sort_run" : "stubjit::sort_run") +
                    "(stubjit_to, stubjit_spare, stubjit_base + stubjit_lo, stubjit_hi - "
                    "stubjit_lo, " +
                    (radix ? "stubjit_sort::radix_t());" : "stubjit_sort::less_t());"));
    out.line(2, "// A segment of one part: sorted, into the fields (no merge pass follows).");
    out.line(2, "if (stubjit_rp.into_fields)");
    out.line(3, "for (stubjit::u64 stubjit_k = stubjit_lo; stubjit_k < stubjit_hi; ++stubjit_k)");
    out.line(4, "stubjit_put_fields(stubjit_k, stubjit_to, stubjit_base + stubjit_k);");
  } else {
    emit_pair(context, 2);
    emit_merge_outputs(context, 2, "stubjit_lo", "stubjit_hi");
  }
  out.line(1, "}");
  out.line(0, "}");
}

void emit_gpu_sort_entry(const StubContext& context, const std::string& bounds) {
  SourceWriter& out = context.out();
  const bool runs = context.request().pattern == Pattern::sort_runs;
  EntryHead head = sort_entry_head(context);
  head.threads = !runs;  // a thread of the first stage works on its own run
  emit_gpu_entry_head(context, bounds, head);
  emit_buffers(context, 1);
  emit_length(context, 1);
  emit_part(context, 1);
  emit_kept_positions(context, 1);
  if (runs) emit_element_lambda(context, 1, true);
  emit_element_lambda(context, 1, false);
  if (!runs) {
    // The group's part of the output in equal shares, one per thread.
    emit_pair(context, 1);
    out.line(1,
             "const stubjit::u64 stubjit_share = (stubjit_hi - stubjit_lo + stubjit_threads - 1) "
             "/ stubjit_threads;");
    out.line(1,
             "const stubjit::u64 stubjit_begin = stubjit_lo + stubjit::min_of<stubjit::u64>("
             "stubjit::u64(stubjit_rank) * stubjit_share, stubjit_hi - stubjit_lo);");
    out.line(1,
             "const stubjit::u64 stubjit_end = stubjit::min_of<stubjit::u64>(stubjit_begin + "
             "stubjit_share, stubjit_hi);");
    out.line(1, "if (stubjit_begin < stubjit_end) {");
    emit_merge_outputs(context, 2, "stubjit_begin", "stubjit_end");
    out.line(1, "}");
    out.line(0, "}");
    return;
  }
  // Each thread a run of thread_run elements of the part (the part is the group's
  // threads times as many), evaluated and sorted by insertion; then the runs merged in
  // pairs, each thread its own run's positions of each pass's output, between `to` and
  // `spare` (the same positions of both), a barrier after each pass.
  out.line(1, "const stubjit::u64 stubjit_base = stubjit_segment * stubjit_length + stubjit_lo;");
  out.line(1, "const stubjit::u64 stubjit_n = stubjit_hi - stubjit_lo;");
  out.line(1, "const stubjit::u64 stubjit_run = stubjit_rp.thread_run;");
  out.line(1, "const stubjit::u64 stubjit_first = stubjit::u64(stubjit_rank) * stubjit_run;");
  out.line(1,
           "const stubjit::u64 stubjit_mine = stubjit_first < stubjit_n ? "
           "stubjit::min_of<stubjit::u64>(stubjit_run, stubjit_n - stubjit_first) : 0;");
  out.line(1, "for (stubjit::u64 stubjit_j = 0; stubjit_j < stubjit_mine; ++stubjit_j)");
  out.line(2,
           "stubjit_evaluate(stubjit_lo + stubjit_first + stubjit_j, stubjit_base + stubjit_first "
           "+ stubjit_j);");
  out.line(1,
           "stubjit::insertion_sort(stubjit_to, stubjit_base + stubjit_first, stubjit_mine, "
           "stubjit_sort::less_t());");
  out.line(1, "STUBJIT_GROUP_BARRIER();");
  // The buffers by the parity of the pass (copies of two pointers' structs, selected:
  // no address of a local taken, which could put them in local memory).
  out.line(1, "bool stubjit_odd = false;");
  out.line(1,
           "for (stubjit::u64 stubjit_w = stubjit_run; stubjit_w < stubjit_n; stubjit_w *= 2) {");
  out.line(2, "const stubjit_sort::buffer stubjit_src = stubjit_odd ? stubjit_spare : stubjit_to;");
  out.line(2, "const stubjit_sort::buffer stubjit_dst = stubjit_odd ? stubjit_to : stubjit_spare;");
  out.line(2, "if (stubjit_mine > 0) {");
  out.line(3,
           "const stubjit::u64 stubjit_pair = stubjit_first / (2 * stubjit_w) * (2 * stubjit_w);");
  out.line(3,
           "const stubjit::u64 stubjit_na = stubjit::min_of<stubjit::u64>(stubjit_w, stubjit_n - "
           "stubjit_pair);");
  out.line(3,
           "const stubjit::u64 stubjit_nb = stubjit::min_of<stubjit::u64>(stubjit_w, stubjit_n - "
           "stubjit_pair - stubjit_na);");
  out.line(3,
           "stubjit::merge_outputs(stubjit_src, stubjit_base + stubjit_pair, stubjit_na, "
           "stubjit_nb, stubjit_first - stubjit_pair, stubjit_mine, stubjit_sort::less_t(),");
  out.line(4, "[&](stubjit::u64 stubjit_o, stubjit::u64 stubjit_from_at) {");
  out.line(5,
           "stubjit_dst.move(stubjit_base + stubjit_first + stubjit_o, stubjit_src, "
           "stubjit_from_at);");
  out.line(4, "});");
  out.line(2, "}");
  out.line(2, "STUBJIT_GROUP_BARRIER();");
  out.line(2, "stubjit_odd = !stubjit_odd;");
  out.line(1, "}");
  out.line(1, "// A segment of one part: sorted, into the fields (no merge pass follows);");
  out.line(1, "// else the run ends in `to`. Each thread its own positions.");
  out.line(1, "if (stubjit_rp.into_fields) {");
  out.line(2,
           "const stubjit_sort::buffer stubjit_sorted = stubjit_odd ? stubjit_spare : stubjit_to;");
  out.line(2, "for (stubjit::u64 stubjit_j = 0; stubjit_j < stubjit_mine; ++stubjit_j)");
  out.line(3,
           "stubjit_put_fields(stubjit_lo + stubjit_first + stubjit_j, stubjit_sorted, "
           "stubjit_base + stubjit_first + stubjit_j);");
  out.line(1, "} else if (stubjit_odd) {");
  out.line(2, "for (stubjit::u64 stubjit_j = 0; stubjit_j < stubjit_mine; ++stubjit_j)");
  out.line(3,
           "stubjit_to.move(stubjit_base + stubjit_first + stubjit_j, stubjit_spare, "
           "stubjit_base + stubjit_first + stubjit_j);");
  out.line(1, "}");
  out.line(0, "}");
}

}  // namespace stubjit::detail
