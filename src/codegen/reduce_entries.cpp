// The entries of reduce stubs, for both emitter families, and the combiner they use
// (kernels/stubjit/reduce.h says how a launch's groups share the work).
//
// A segment is the set of values one element of the result combines: the whole
// domain (reduce_dimension -1), or the positions along the reduced dimension with the
// others fixed, numbered row-major over the kept dimensions. The value of position k
// of a segment comes from the body run at that index, its result parameter (a T&,
// the identity until the body sets it) bound to a local.
#include <functional>
#include <string>

#include "codegen/reduce_entries.hpp"
#include "codegen/reduce_parts.hpp"
#include "codegen/scalar_literal.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

// The bits of an integer type's smallest and largest values, as Arg::bits() holds them.
std::uint64_t lowest_bits(ElementType type) {
  switch (type) {
    case ElementType::i8:
      return 0x80;
    case ElementType::i16:
      return 0x8000;
    case ElementType::i32:
      return 0x80000000u;
    case ElementType::i64:
      return 0x8000000000000000ull;
    default:
      return 0;  // unsigned
  }
}
std::uint64_t highest_bits(ElementType type) {
  switch (type) {
    case ElementType::i8:
      return 0x7f;
    case ElementType::u8:
      return 0xff;
    case ElementType::i16:
      return 0x7fff;
    case ElementType::u16:
      return 0xffff;
    case ElementType::i32:
      return 0x7fffffffu;
    case ElementType::u32:
      return 0xffffffffu;
    case ElementType::i64:
      return 0x7fffffffffffffffull;
    default:
      return 0xffffffffffffffffull;  // u64
  }
}

// Every bit of the type's width set (bit_and's identity): -1 for the signed types.
std::uint64_t all_ones_bits(ElementType type) {
  const std::size_t bits = 8 * size_of(type);
  return bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
}

std::string literal(ElementType type, std::uint64_t bits) {
  // Integers always have one (scalar_literal.hpp).
  return scalar_literal(type, bits).value_or("0");
}

// The unsigned type a sum or product of `type` is computed in where C++'s own
// arithmetic could overflow a signed type (undefined behaviour; the unsigned one
// wraps, as the result does): int32 and int64, and uint16's product (promoted to int).
const char* wrapping_type(ElementType type, Combiner combiner) {
  switch (type) {
    case ElementType::i32:
      return "stubjit::u32";
    case ElementType::i64:
      return "stubjit::u64";
    case ElementType::u16:
      return combiner == Combiner::product ? "stubjit::u32" : nullptr;
    default:
      return nullptr;
  }
}

// The combination of `a` and `b`, and the identity, of a built-in combiner.
std::string combine_expression(const Param& result) {
  const char* wrapping = wrapping_type(result.type, result.combiner);
  const std::string a = wrapping ? std::string(wrapping) + "(a)" : "a";
  const std::string b = wrapping ? std::string(wrapping) + "(b)" : "b";
  switch (result.combiner) {
    case Combiner::sum:
      return "value_t(" + a + " + " + b + ")";
    case Combiner::product:
      return "value_t(" + a + " * " + b + ")";
    case Combiner::min:
      return "b < a ? b : a";
    case Combiner::max:
      return "a < b ? b : a";
    case Combiner::bit_and:
      return "value_t(a & b)";
    case Combiner::bit_or:
      return "value_t(a | b)";
    case Combiner::bit_xor:
      return "value_t(a ^ b)";
    case Combiner::any:
      return "a || b";
    case Combiner::all:
      return "a && b";
    case Combiner::custom:
      return "stubjit_user::stubjit_combine(a, b)";
    case Combiner::none:
      break;
  }
  throw Error("reduce stub for a parameter without a combiner");
}

std::string identity_expression(const Param& result) {
  const ElementType type = result.type;
  const bool boolean = type == ElementType::boolean;
  switch (result.combiner) {
    case Combiner::sum:
    case Combiner::bit_or:
    case Combiner::bit_xor:
      return boolean ? "false" : "value_t(0)";
    case Combiner::product:
      return "value_t(1)";
    case Combiner::min:
      return is_float_type(type) ? "value_t(stubjit::reduce_infinity())"
                                 : "value_t(" + literal(type, highest_bits(type)) + ")";
    case Combiner::max:
      return is_float_type(type) ? "value_t(-stubjit::reduce_infinity())"
                                 : "value_t(" + literal(type, lowest_bits(type)) + ")";
    case Combiner::bit_and:
      return boolean ? "true" : "value_t(" + literal(type, all_ones_bits(type)) + ")";
    case Combiner::any:
      return "false";
    case Combiner::all:
      return "true";
    case Combiner::custom:
      return "stubjit_user::stubjit_identity()";
    case Combiner::none:
      break;
  }
  throw Error("reduce stub for a parameter without a combiner");
}

}  // namespace

bool is_float_type(ElementType type) {
  return type == ElementType::f32 || type == ElementType::f64 || type == ElementType::float16 ||
         type == ElementType::bfloat16;
}

std::string member_qualifiers(const DialectEmitter& dialect) {
  const std::string qualifiers = dialect.function_qualifiers();
  const std::string prefix = "static ";
  return qualifiers.compare(0, prefix.size(), prefix) == 0 ? qualifiers.substr(prefix.size())
                                                           : qualifiers;
}

const Param& result_of(const StubContext& context) {
  for (const Param& p : context.request().kernel->signature)
    if (p.is_result()) return p;
  throw Error("reduce stub for kernel '" + context.request().kernel->name + "' without a result");
}

namespace {

bool whole_domain(const StubContext& context) { return context.request().reduce_dimension < 0; }

}  // namespace

void emit_cpp_group_loop(const StubContext& context) {
  SourceWriter& out = context.out();
  out.line(1,
           "for (stubjit::u64 stubjit_g = stubjit_group_begin; stubjit_g < stubjit_group_end; "
           "++stubjit_g) {");
  out.line(2,
           "const stubjit::u64 stubjit_gid = stubjit::u64(stubjit_lp.linear_begin) + stubjit_g;");
  out.line(2, "if (stubjit_gid >= stubjit::u64(stubjit_lp.linear_end)) break;");
}

void emit_length(const StubContext& context, int indent) {
  std::string length;
  if (whole_domain(context)) {
    for (int d = 0; d < context.rank(); ++d)
      length +=
          std::string(d ? " * " : "") + "stubjit::u64(stubjit_count" + std::to_string(d) + ")";
  } else {
    length =
        "stubjit::u64(stubjit_count" + std::to_string(context.request().reduce_dimension) + ")";
  }
  context.out().line(indent, "const stubjit::u64 stubjit_length = " + length + ";");
}

void emit_part(const StubContext& context, int indent, const std::string& group) {
  SourceWriter& out = context.out();
  out.line(indent, "const stubjit::u64 stubjit_segment = " + group + " / stubjit_rp.parts;");
  out.line(indent,
           "const stubjit::u64 stubjit_part = " + group + " - stubjit_segment * stubjit_rp.parts;");
  out.line(indent, "const stubjit::u64 stubjit_lo = stubjit_part * stubjit_rp.part_length;");
  out.line(indent,
           "const stubjit::u64 stubjit_hi = stubjit::min_of<stubjit::u64>(stubjit_lo + "
           "stubjit_rp.part_length, stubjit_length);");
}

void emit_kept_positions(const StubContext& context, int indent) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  const int along = context.request().reduce_dimension;
  if (context.rank() == 1 && along == 0) return;  // no dimension is kept
  out.line(indent, "stubjit::u64 stubjit_rest = stubjit_segment;");
  for (int d = context.rank() - 1; d >= 0; --d) {
    if (d == along) continue;
    const std::string n = std::to_string(d);
    out.line(indent, "const " + I + " stubjit_q" + n + " = " + I +
                         "(stubjit_rest % stubjit::u64(stubjit_count" + n + "));");
    out.line(indent, "stubjit_rest /= stubjit::u64(stubjit_count" + n + ");");
  }
}

std::vector<std::string> projected_strides(const StubContext& context, int d) {
  std::vector<std::string> strides;
  const Signature& signature = context.request().kernel->signature;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (context.request().bindings[i] == Binding::projection)
      strides.push_back(argument_local(signature[i]) + "_s" + std::to_string(d));
  }
  return strides;
}

void emit_element(const StubContext& context, int indent, const std::function<void(int)>& positions,
                  const std::string& name, int unit, bool with_slot) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  out.line(indent, "const auto " + name + " = [&](const stubjit::u64 stubjit_k" +
                       (with_slot ? ", stubjit_reduce::value_t*& stubjit_at" : "") +
                       ") -> stubjit_reduce::value_t {");
  if (unit >= 0) {
    const std::string v = std::to_string(unit);
    out.line(indent + 1, "const " + I + " stubjit_step" + v + " = 1;");
    for (const std::string& stride : projected_strides(context, unit))
      out.line(indent + 1, "const " + I + " " + stride + " = 1;");
  }
  positions(indent + 1);
  for (int d = 0; d < context.rank(); ++d) context.emit_logical_index(indent + 1, d);
  const Param& result = result_of(context);
  if (result.is_scan()) {
    // A scan's value starts as its field's element (an empty body scans in place).
    const std::string local = argument_local(result);
    out.line(indent + 1, "stubjit_reduce::value_t* const stubjit_slot = " + local + " + (" +
                             context.projection_offset(local) + ");");
    out.line(indent + 1, "stubjit_reduce::value_t stubjit_value = *stubjit_slot;");
  } else {
    out.line(indent + 1, "stubjit_reduce::value_t stubjit_value = stubjit_reduce::identity();");
  }
  context.emit_visit(indent + 1, StubContext::VisitStyle::full_offsets);
  if (with_slot) out.line(indent + 1, "stubjit_at = stubjit_slot;");
  out.line(indent + 1, "return stubjit_value;");
  out.line(indent, "};");
}

void emit_along_positions(const StubContext& context, int indent) {
  const std::string I = context.index_type();
  for (int d = 0; d < context.rank(); ++d) {
    const std::string n = std::to_string(d);
    context.out().line(
        indent,
        "const " + I + " stubjit_p" + n + " = " +
            (d == context.request().reduce_dimension ? I + "(stubjit_k)" : "stubjit_q" + n) + ";");
  }
}

namespace {

// stubjit_out: the result's element of the segment.
void emit_result_pointer(const StubContext& context, int indent, const Param& result) {
  const std::string I = context.index_type();
  const std::string local = argument_local(result);
  std::string offset;
  if (!whole_domain(context)) {
    int j = 0;
    for (int d = 0; d < context.rank(); ++d) {
      if (d == context.request().reduce_dimension) continue;
      offset += std::string(offset.empty() ? "" : " + ") + "stubjit_q" + std::to_string(d) + " * " +
                I + "(stubjit_args.stubjit_" + result.name + "_stride[" + std::to_string(j++) +
                "])";
    }
  }
  context.out().line(indent, "stubjit_reduce::value_t* const stubjit_out = " + local +
                                 (offset.empty() ? "" : " + (" + offset + ")") + ";");
}

// A CPU group's lanes: two blocks, so that two vector operations are in flight (four ran
// no faster on the float sum benchmark, and took a third longer to compile).
constexpr int cpu_reduce_blocks = 2;

// The lanes of a block: eight (eight floats are a 256-bit vector, the stubs' width), or
// sixteen for 8- and 16-bit integers and bools. With eight, a min of int8s ran at 0.92
// of a `simd` OpenMP loop, its blocks 64-bit vectors; with sixteen at 1.01. With 32, the
// lanes stayed in memory (0.19). Their combinations are exact, so the number of lanes
// changes no result (for a custom combiner: one associative and commutative, as
// docs/patterns.md asks); float types keep eight whatever their size, their results' bits
// depending on the order of combination.
int cpu_block_lanes(ElementType type) {
  switch (type) {
    case ElementType::i8:
    case ElementType::u8:
    case ElementType::boolean:
    case ElementType::i16:
    case ElementType::u16:
      return 16;
    default:
      return 8;
  }
}

}  // namespace

std::string reduce_value_type(const KernelSource& kernel) {
  for (const Param& p : kernel.signature)
    if (p.is_result()) return c_type(p.type);
  return "void";
}

void emit_reduce_functions(const StubContext& context, const DialectEmitter& dialect) {
  SourceWriter& out = context.out();
  const Param& result = result_of(context);
  const std::string qualifiers = dialect.function_qualifiers();
  out.line(0, "// The combiner: " + std::string(name_of(result.combiner)) + " of " +
                  c_type(result.type) + " values.");
  out.line(0, "namespace stubjit_reduce {");
  out.line(0, "typedef " + std::string(c_type(result.type)) + " value_t;");
  out.line(0, qualifiers + " value_t combine(value_t a, value_t b) { return " +
                  combine_expression(result) + "; }");
  out.line(0, qualifiers + " value_t identity() { return " + identity_expression(result) + "; }");
  out.line(0, "struct combiner {");
  out.line(1, member_qualifiers(dialect) +
                  " value_t operator()(value_t a, value_t b) const { return combine(a, b); }");
  out.line(0, "};");
  out.line(0, "}  // namespace stubjit_reduce");
  out.raw("\n");
}

void emit_cpp_reduce_entry(const StubContext& context) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  const int rank = context.rank();
  const Param& result = result_of(context);
  const int block_lanes = cpu_block_lanes(result.type);
  const std::string width = std::to_string(block_lanes);
  const std::string lanes = std::to_string(block_lanes * cpu_reduce_blocks);
  emit_cpp_entry_head(context);
  out.line(1, "const stubjit::ReduceParams& stubjit_rp = stubjit_args.stubjit_reduce;");
  out.line(1,
           "stubjit_reduce::value_t* const stubjit_partials = "
           "reinterpret_cast<stubjit_reduce::value_t*>(stubjit_rp.partials);");
  emit_length(context, 1);
  emit_cpp_group_loop(context);
  emit_part(context, 2);
  // Lanes, each a fixed share of every row, in blocks (cpu_block_lanes): the compiler
  // keeps a block in a vector register, the blocks' adds overlap (one block's would
  // each wait for the one before), and their order never depends on the machine.
  for (int block = 0; block < cpu_reduce_blocks; ++block) {
    const std::string b = std::to_string(block);
    out.line(2, "stubjit_reduce::value_t stubjit_lanes" + b + "[" + width + "];");
    out.line(2, "for (int stubjit_j = 0; stubjit_j < " + width + "; ++stubjit_j) stubjit_lanes" +
                    b + "[stubjit_j] = stubjit_reduce::identity();");
  }
  const int along = context.request().reduce_dimension;
  // The varying dimension of a row: the reduced one, or the innermost.
  const int varying = along >= 0 ? along : rank - 1;
  if (along >= 0) {
    emit_kept_positions(context, 2);
    for (const bool unit : {false, true}) {
      emit_element(
          context, 2, [&](int indent) { emit_along_positions(context, indent); },
          unit ? "stubjit_element_unit" : "stubjit_element", unit ? varying : -1);
    }
  } else {
    // The row's other positions are the walk's (stubjit_q<d>, below), from the part's
    // first position; an empty part (an empty domain: a count may be 0) divides by
    // nothing.
    for (int d = 0; d < rank; ++d) out.line(2, I + " stubjit_q" + std::to_string(d) + " = 0;");
    out.line(2, "if (stubjit_lo < stubjit_hi) {");
    out.line(3, "stubjit::u64 stubjit_rest = stubjit_lo;");
    for (int d = rank - 1; d > 0; --d) {
      const std::string n = std::to_string(d);
      out.line(3, "stubjit_q" + n + " = " + I + "(stubjit_rest % stubjit::u64(stubjit_count" + n +
                      "));");
      out.line(3, "stubjit_rest /= stubjit::u64(stubjit_count" + n + ");");
    }
    out.line(3, "stubjit_q0 = " + I + "(stubjit_rest);");
    out.line(2, "}");
    for (const bool unit : {false, true}) {
      emit_element(
          context, 2,
          [&](int indent) {
            for (int d = 0; d < rank; ++d) {
              const std::string n = std::to_string(d);
              out.line(indent, "const " + I + " stubjit_p" + n + " = " +
                                   (d == varying ? I + "(stubjit_k)" : "stubjit_q" + n) + ";");
            }
          },
          unit ? "stubjit_element_unit" : "stubjit_element", unit ? varying : -1);
    }
  }
  // Unit steps along the rows: the copy of the loops that reads them as vectors.
  std::string unit = "stubjit_step" + std::to_string(varying) + " == 1";
  for (const std::string& stride : projected_strides(context, varying))
    unit += " && " + stride + " == 1";
  out.line(2, "const bool stubjit_unit = " + unit + ";");
  // One row: `n` positions from `start` along the varying dimension, each element's
  // value from `el` (stubjit_element or, with unit steps, stubjit_element_unit).
  out.line(2,
           "const auto stubjit_row = [&](const auto& stubjit_el, const stubjit::u64 stubjit_start, "
           "const stubjit::u64 stubjit_n) {");
  out.line(3, "stubjit::u64 stubjit_r = 0;");
  // The lanes are the vectors (the SLP vectorizer makes each block one). Left to the
  // loop vectorizer, an integer row was also vectorized across iterations of this
  // loop, each vector lane a block lane of another iteration: for 8- and 16-bit
  // values, interleaved loads of 16 that took LLVM 2 to 6 seconds to compile and ran
  // 2.6 to 4.3 times slower (bench/results/patterns.md).
  out.line(3, "#pragma clang loop vectorize(disable) interleave(disable)");
  out.line(3, "for (; stubjit_r + " + lanes + " <= stubjit_n; stubjit_r += " + lanes + ") {");
  for (int block = 0; block < cpu_reduce_blocks; ++block) {
    const std::string b = std::to_string(block);
    out.line(4, "for (int stubjit_j = 0; stubjit_j < " + width + "; ++stubjit_j)");
    out.line(5, "stubjit_lanes" + b + "[stubjit_j] = stubjit_reduce::combine(stubjit_lanes" + b +
                    "[stubjit_j], stubjit_el(stubjit_start + stubjit_r + " +
                    std::to_string(block_lanes * block) + " + stubjit::u64(stubjit_j)));");
  }
  out.line(3, "}");
  // The rest of the row (fewer than a block of each), one at a time into the first
  // block's lanes.
  out.line(3, "#pragma clang loop vectorize(disable) interleave(disable)");
  out.line(3,
           "for (int stubjit_j = 0; stubjit_r + stubjit::u64(stubjit_j) < stubjit_n; "
           "++stubjit_j)");
  out.line(4, "stubjit_lanes0[stubjit_j % " + width +
                  "] = stubjit_reduce::combine(stubjit_lanes0[stubjit_j % " + width +
                  "], "
                  "stubjit_el(stubjit_start + stubjit_r + stubjit::u64(stubjit_j)));");
  out.line(2, "};");
  if (along >= 0) {
    out.line(2, "if (stubjit_lo < stubjit_hi && stubjit_unit)");
    out.line(3, "stubjit_row(stubjit_element_unit, stubjit_lo, stubjit_hi - stubjit_lo);");
    out.line(2, "else if (stubjit_lo < stubjit_hi)");
    out.line(3, "stubjit_row(stubjit_element, stubjit_lo, stubjit_hi - stubjit_lo);");
  } else {
    // Row by row from the part's first position; a row ends at the innermost
    // dimension's end, and the walk carries into the dimensions before it.
    const std::string last = std::to_string(rank - 1);
    out.line(2, "for (stubjit::u64 stubjit_at = stubjit_lo; stubjit_at < stubjit_hi;) {");
    out.line(3,
             "const stubjit::u64 stubjit_n = stubjit::min_of<stubjit::u64>(stubjit_hi - "
             "stubjit_at, stubjit::u64(stubjit_count" +
                 last + " - stubjit_q" + last + "));");
    out.line(3, "if (stubjit_unit) stubjit_row(stubjit_element_unit, stubjit::u64(stubjit_q" +
                    last + "), stubjit_n);");
    out.line(3,
             "else stubjit_row(stubjit_element, stubjit::u64(stubjit_q" + last + "), stubjit_n);");
    out.line(3, "stubjit_at += stubjit_n;");
    out.line(3, "stubjit_q" + last + " = " + I + "(stubjit_q" + last + " + " + I + "(stubjit_n));");
    if (rank > 1) {
      // Carry: the innermost position back to 0, the one before it on by one, and so
      // on outwards (the outermost never wraps: the part ends first).
      int indent = 3;
      out.line(indent, "if (stubjit_q" + last + " == stubjit_count" + last + ") {");
      out.line(++indent, "stubjit_q" + last + " = 0;");
      for (int d = rank - 2; d > 0; --d) {
        const std::string n = std::to_string(d);
        out.line(indent, "if (++stubjit_q" + n + " == stubjit_count" + n + ") {");
        out.line(++indent, "stubjit_q" + n + " = 0;");
      }
      out.line(indent, "++stubjit_q0;");
      while (indent > 3) out.line(--indent, "}");
    }
    out.line(2, "}");
  }
  // The blocks onto the first, lane by lane (1 onto 0, 3 onto 2, then 2 onto 0), then
  // its lanes in a fixed tree, each half onto the one before it.
  for (int step = 1; step < cpu_reduce_blocks; step *= 2) {
    for (int block = 0; block + step < cpu_reduce_blocks; block += 2 * step) {
      const std::string to = std::to_string(block), from = std::to_string(block + step);
      out.line(2, "for (int stubjit_j = 0; stubjit_j < " + width + "; ++stubjit_j) stubjit_lanes" +
                      to + "[stubjit_j] = stubjit_reduce::combine(stubjit_lanes" + to +
                      "[stubjit_j], stubjit_lanes" + from + "[stubjit_j]);");
    }
  }
  out.line(2, "for (int stubjit_w = " + std::to_string(block_lanes / 2) +
                  "; stubjit_w > 0; stubjit_w /= 2)");
  out.line(3, "for (int stubjit_j = 0; stubjit_j < stubjit_w; ++stubjit_j)");
  out.line(4,
           "stubjit_lanes0[stubjit_j] = stubjit_reduce::combine(stubjit_lanes0[stubjit_j], "
           "stubjit_lanes0[stubjit_j + stubjit_w]);");
  out.line(2, "const stubjit_reduce::value_t stubjit_value = stubjit_lanes0[0];");
  if (context.request().pattern == Pattern::scan_partials) {
    // A scan's first stage: the part's combination, for the groups after it.
    out.line(2, "stubjit_partials[stubjit_gid] = stubjit_value;");
    out.line(1, "}");
    out.line(0, "}");
    return;
  }
  emit_result_pointer(context, 2, result);
  out.line(2, "if (stubjit_rp.parts == 1) {");
  out.line(3, "// An empty segment leaves a combined result as it was.");
  out.line(3, "if (stubjit_rp.assign) *stubjit_out = stubjit_value;");
  out.line(3,
           "else if (stubjit_length > 0) *stubjit_out = stubjit_reduce::combine(*stubjit_out, "
           "stubjit_value);");
  out.line(3, "continue;");
  out.line(2, "}");
  out.line(2, "stubjit_partials[stubjit_gid] = stubjit_value;");
  out.line(2,
           "if (stubjit::reduce_arrive(stubjit_rp.arrivals, stubjit_segment) != "
           "stubjit::u32(stubjit_rp.parts - 1)) continue;");
  out.line(2, "// The segment's last group: its parts in order.");
  out.line(2, "stubjit_reduce::value_t stubjit_total = stubjit_reduce::identity();");
  out.line(2, "for (stubjit::u64 stubjit_p = 0; stubjit_p < stubjit_rp.parts; ++stubjit_p)");
  out.line(3,
           "stubjit_total = stubjit_reduce::combine(stubjit_total, stubjit::reduce_load("
           "stubjit_partials + stubjit_segment * stubjit_rp.parts + stubjit_p));");
  out.line(2,
           "*stubjit_out = stubjit_rp.assign ? stubjit_total : "
           "stubjit_reduce::combine(*stubjit_out, stubjit_total);");
  out.line(2, "reinterpret_cast<stubjit::u32*>(stubjit_rp.arrivals)[stubjit_segment] = 0;");
  out.line(1, "}");
  out.line(0, "}");
}

namespace {

// Each thread's share of the part, folded left in element order: stubjit_k, then
// stubjit_k + threads, and so on. Four elements are evaluated before they are combined, so
// that four loads are in flight per thread: with one at a time, a whole-field float sum
// reached 0.65 of a device copy's bandwidth on an H100, with four 0.88
// (bench/results/patterns.md). The combination's order, and so its bits, are those of
// one element at a time.
void emit_thread_fold(const StubContext& context, int indent) {
  SourceWriter& out = context.out();
  out.line(indent, "stubjit_reduce::value_t stubjit_value = stubjit_reduce::identity();");
  out.line(indent, "stubjit::u64 stubjit_k = stubjit_lo + stubjit_rank;");
  out.line(indent,
           "for (; stubjit_k + 3u * stubjit_threads < stubjit_hi; stubjit_k += 4u * "
           "stubjit_threads) {");
  for (int u = 0; u < 4; ++u) {
    const std::string n = std::to_string(u);
    const std::string at = u == 0 ? "stubjit_k" : "stubjit_k + " + n + "u * stubjit_threads";
    out.line(indent + 1,
             "const stubjit_reduce::value_t stubjit_e" + n + " = stubjit_element(" + at + ");");
  }
  out.line(indent + 1,
           "stubjit_value = stubjit_reduce::combine(stubjit_reduce::combine(stubjit_reduce::"
           "combine(stubjit_reduce::combine(stubjit_value, stubjit_e0), stubjit_e1), "
           "stubjit_e2), stubjit_e3);");
  out.line(indent, "}");
  out.line(indent, "for (; stubjit_k < stubjit_hi; stubjit_k += stubjit_threads)");
  out.line(indent + 1,
           "stubjit_value = stubjit_reduce::combine(stubjit_value, stubjit_element(stubjit_k));");
}

}  // namespace

void emit_gpu_reduce_entry(const StubContext& context, const std::string& bounds) {
  SourceWriter& out = context.out();
  const std::string I = context.index_type();
  const int rank = context.rank();
  const Param& result = result_of(context);
  // The group's tree shuffles within warps (reduce.h, warp_reduce).
  emit_warp_width_check(context);
  emit_gpu_entry_head(context, bounds);
  out.line(1, "const stubjit::ReduceParams& stubjit_rp = stubjit_args.stubjit_reduce;");
  out.line(1,
           "stubjit_reduce::value_t* const stubjit_partials = "
           "reinterpret_cast<stubjit_reduce::value_t*>(stubjit_rp.partials);");
  out.line(1, "// Group memory: the last-arrival flag, then one value per warp.");
  out.line(1, "STUBJIT_GROUP_MEMORY(stubjit_group_memory);");
  out.line(1,
           "stubjit::u32* const stubjit_last = "
           "reinterpret_cast<stubjit::u32*>(stubjit_group_memory);");
  out.line(1,
           "stubjit_reduce::value_t* const stubjit_scratch = "
           "reinterpret_cast<stubjit_reduce::value_t*>(stubjit_group_memory + 16);");
  emit_length(context, 1);
  emit_part(context, 1);
  const int along = context.request().reduce_dimension;
  if (along >= 0) {
    emit_kept_positions(context, 1);
    emit_element(context, 1, [&](int indent) { emit_along_positions(context, indent); });
  } else {
    // Each position raised with the host's divisors (index.h, fast_divmod).
    emit_element(context, 1, [&](int indent) {
      out.line(indent, "stubjit::u64 stubjit_rest = stubjit_k;");
      for (int d = rank - 1; d > 0; --d) {
        const std::string n = std::to_string(d);
        out.line(indent, "const " + I + " stubjit_p" + n + " = " + I +
                             "(stubjit::fast_divmod<stubjit::u64>(stubjit_rest, "
                             "stubjit::u64(stubjit_count" +
                             n + "), stubjit_lp.divisor[" + n +
                             "].multiplier64, stubjit_lp.divisor[" + n + "].shift64));");
      }
      out.line(indent, "const " + I + " stubjit_p0 = " + I + "(stubjit_rest);");
    });
  }
  emit_thread_fold(context, 1);
  out.line(1,
           "stubjit_value = stubjit::group_reduce(stubjit_value, stubjit_scratch, stubjit_rank, "
           "stubjit_threads, STUBJIT_WARP_SIZE, stubjit_reduce::combiner());");
  emit_result_pointer(context, 1, result);
  out.line(1, "if (stubjit_rp.parts == 1) {");
  out.line(2, "// An empty segment leaves a combined result as it was.");
  out.line(2, "if (stubjit_rank == 0 && stubjit_rp.assign) *stubjit_out = stubjit_value;");
  out.line(2, "else if (stubjit_rank == 0 && stubjit_length > 0)");
  out.line(3, "*stubjit_out = stubjit_reduce::combine(*stubjit_out, stubjit_value);");
  out.line(2, "return;");
  out.line(1, "}");
  out.line(1, "if (stubjit_rank == 0) {");
  out.line(2, "stubjit_partials[stubjit_gid] = stubjit_value;");
  out.line(2,
           "*stubjit_last = stubjit::reduce_arrive(stubjit_rp.arrivals, stubjit_segment) == "
           "stubjit::u32(stubjit_rp.parts - 1) ? 1u : 0u;");
  out.line(1, "}");
  out.line(1, "STUBJIT_GROUP_BARRIER();");
  out.line(1, "if (*stubjit_last == 0) return;  // the same for every thread of the group");
  out.line(1, "__threadfence();");
  out.line(1, "// The segment's last group: its parts, each thread a fixed stride, then the tree.");
  out.line(1, "stubjit_reduce::value_t stubjit_total = stubjit_reduce::identity();");
  out.line(1,
           "for (stubjit::u64 stubjit_p = stubjit_rank; stubjit_p < stubjit_rp.parts; "
           "stubjit_p += stubjit_threads)");
  out.line(2,
           "stubjit_total = stubjit_reduce::combine(stubjit_total, stubjit::reduce_load("
           "stubjit_partials + stubjit_segment * stubjit_rp.parts + stubjit_p));");
  out.line(1,
           "stubjit_total = stubjit::group_reduce(stubjit_total, stubjit_scratch, stubjit_rank, "
           "stubjit_threads, STUBJIT_WARP_SIZE, stubjit_reduce::combiner());");
  out.line(1, "if (stubjit_rank == 0) {");
  out.line(2,
           "*stubjit_out = stubjit_rp.assign ? stubjit_total : "
           "stubjit_reduce::combine(*stubjit_out, stubjit_total);");
  out.line(2, "reinterpret_cast<stubjit::u32*>(stubjit_rp.arrivals)[stubjit_segment] = 0;");
  out.line(1, "}");
  out.line(0, "}");
}

}  // namespace stubjit::detail
