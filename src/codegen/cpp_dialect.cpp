// The C++ dialect, for the CPU backend. A CPU "group" is a run of iterations for one
// worker: the entry takes a range of group ids and walks the positions of each
// group (the same mapping a GPU stub uses: group ids flatten x-fastest, direct
// indexing maps logical dimension N-1 to x, spread indexing walks flat positions).
//
// The two innermost dimensions run in stubjit_run, a separate function whose field
// pointers are __restrict parameters and whose strides are single values: that is
// what lets LLVM vectorize the innermost loop (restrict is sound because binding
// refuses a read-write field that aliases another argument) and version it for
// stride 1. Inlined, the strides become products LLVM cannot version, and it gives
// up. It takes a block of rows, not one: a row of 5 elements per call spent more on
// the call and the row's offsets than on the elements. A short-row stub of rank 3 or
// more takes a block of planes (whole blocks of rows along the third-innermost
// dimension) for the same reason: a block of 5 rows of 5 per call spent a quarter of
// the stub's time on the call (bench/results/shapes.md).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bind/view_stride.hpp"
#include "codegen/dialect.hpp"
#include "codegen/group_entries.hpp"
#include "codegen/reduce_entries.hpp"

namespace stubjit::detail {
namespace {

const char* axis[3] = {"x", "y", "z"};

std::string c_elem(const Param& p) {
  return std::string(p.access == Access::read_only ? "const " : "") + c_type(p.type);
}

std::string scalar_type(const Param& p) { return c_type(p.type); }

std::string view_type(const Param& p, const std::string& I) {
  return "stubjit::View<" + c_elem(p) + ", " + std::to_string(p.rank) + ", " + I + ">";
}

class CppDialect final : public DialectEmitter {
 public:
  const char* name() const override { return "cpp"; }
  // Its group arithmetic is written for 64-bit positions.
  bool supports_index32() const override { return false; }
  bool takes_group_constants() const override { return false; }
  bool takes_short_rows() const override { return true; }
  std::uint32_t default_warp_size() const override { return 0; }
  const char* function_qualifiers() const override {
    return "static inline __attribute__((always_inline))";
  }
  const char* file_extension() const override { return ".cpp"; }

  void emit_entry(const StubContext& context) const override {
    if (context.request().pattern == Pattern::reduce ||
        context.request().pattern == Pattern::scan_partials) {
      emit_cpp_reduce_entry(context);
      return;
    }
    if (context.request().pattern == Pattern::scan) {
      emit_cpp_scan_entry(context);
      return;
    }
    if (sorts_values(context.request().pattern)) {
      emit_cpp_sort_entry(context);
      return;
    }
    if (context.request().pattern != Pattern::forall) {
      emit_cpp_group_entry(context);
      return;
    }
    emit_run_function(context);
    SourceWriter& out = context.out();
    emit_cpp_entry_head(context);
    emit_step_locals(context);
    out.line(1,
             "for (stubjit::u64 stubjit_g = stubjit_group_begin; stubjit_g < stubjit_group_end; "
             "++stubjit_g) {");
    const Mode mode = context.request().mode;
    if (mode == Mode::spread || (mode == Mode::multi && context.rank() > 3)) {
      emit_spread_group(context);
    } else {
      emit_direct_group(context, mode == Mode::multi);
    }
    out.line(1, "}");
    out.line(0, "}");
  }

 private:
  static std::string last(const StubContext& context) { return std::to_string(context.rank() - 1); }

  // Whether stubjit_run takes a block of planes: a short-row stub (its rows too short
  // to pay for a call each block) of rank 3 or more.
  static bool takes_planes(const StubContext& context) {
    return context.rank() >= 3 && context.request().inner_count > 0;
  }

  // How many innermost dimensions one call of stubjit_run covers (at most the rank):
  // rows and runs, and with planes the planes too.
  static int run_dims(const StubContext& context) { return takes_planes(context) ? 3 : 2; }

  // stubjit_run([planes,] rows, n, [i0..i(N-3 or N-4), [pbegin, pstep,] jbegin, jstep,
  // ibegin, istep,] per-parameter values...): `rows` runs of `n` positions, along the
  // second-innermost and the innermost dimension (rank 1: one run; rows is 1), and with
  // planes (takes_planes), `planes` such blocks along the third-innermost. A projected
  // field comes as the first run's pointer (or trailing view), its innermost step, its
  // step per row and, with planes, its step per plane.
  static void emit_run_function(const StubContext& context) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const KernelSource& kernel = *context.request().kernel;
    const bool two_d = context.rank() >= 2;
    const bool planes = takes_planes(context);
    std::string params = "const " + I + " stubjit_rows, const " + I + " stubjit_n";
    if (planes) params = "const " + I + " stubjit_planes, " + params;
    if (context.uses_index()) {
      for (int d = 0; d + run_dims(context) < context.rank(); ++d)
        params += ", const " + I + " stubjit_i" + std::to_string(d);
      if (planes) params += ", const " + I + " stubjit_pbegin, const " + I + " stubjit_pstep";
      if (two_d) params += ", const " + I + " stubjit_jbegin, const " + I + " stubjit_jstep";
      params += ", const " + I + " stubjit_ibegin, const " + I + " stubjit_istep_in";
    }
    std::vector<const Param*> views;  // broadcast fields of rank >= 1
    for (std::size_t i = 0; i < kernel.signature.size(); ++i) {
      const Param& p = kernel.signature[i];
      const std::string local = argument_local(p);
      switch (context.request().bindings[i]) {
        case Binding::index:
          break;
        case Binding::scalar:
          params += ", const " + scalar_type(p) + " " + local;
          break;
        case Binding::broadcast:
          params += p.rank == 0 ? ", " + c_elem(p) + "* STUBJIT_RESTRICT " + local
                                : ", const " + view_type(p, I) + " " + local + "_in";
          if (p.rank > 0) views.push_back(&p);
          break;
        case Binding::projection:
          params += p.rank == 0 ? ", " + c_elem(p) + "* STUBJIT_RESTRICT " + local + "_first"
                                : ", const " + view_type(p, I) + " " + local + "_tfirst";
          params += ", const " + I + " " + local + "_step, const " + I + " " + local + "_row";
          if (planes) params += ", const " + I + " " + local + "_plane";
          break;
      }
    }
    out.line(0,
             "// The innermost runs of positions; see the C++ dialect for why it is not inlined.");
    out.line(0, "static __attribute__((noinline)) void stubjit_run(" + params + ")");
    out.line(0, "{");
    if (views.empty()) {
      emit_rows(context, 1, views, false);
    } else {
      // Broadcast views are read at indices the body computes: with a stride known to
      // be 1 along the dimension the innermost loop follows (unit_dim) and a domain
      // step of 1, an access that follows the innermost index is contiguous and the
      // loop vectorizes. A copy of the loops where both are constants 1 gives LLVM
      // that, whatever the body. A stub may have another stride in place of 1
      // (StubRequest::view_stride): each read is then one pointer and a constant
      // displacement, where a stride known at run time only left LLVM, with the rows'
      // constant trip count, one hoisted offset per read and element of the unrolled
      // loop (49 for a 7-point stencil over rows of 7), which spilled; and in long rows
      // kept the general copy's loop rolled.
      const std::string stride = std::to_string(context.request().view_stride);
      std::string unit;
      for (const Param* p : views) {
        unit += (unit.empty() ? "" : " && ") + argument_local(*p) + "_in.stride_[" +
                std::to_string(unit_dim(context, *p)) + "] == " + stride;
      }
      if (context.uses_index()) unit += " && stubjit_istep_in == 1";
      out.line(1, "if (" + unit + ") {");
      emit_rows(context, 2, views, true);
      out.line(1, "} else {");
      emit_rows(context, 2, views, false);
      out.line(1, "}");
    }
    out.line(0, "}");
    out.raw("\n");
  }

  // The dimension of a broadcast view that most likely follows the innermost loop
  // (view_stride.hpp: the runtime reads the views' stride along the same one).
  static int unit_dim(const StubContext& context, const Param& view) {
    return view_inner_dim(view, context.rank(), context.request().index_order);
  }

  // The loops of stubjit_run over its planes (takes_planes), rows and runs, at
  // `indent`; `unit`: with the broadcast views' stride along the innermost loop as the
  // constant StubRequest::view_stride and the innermost step as the constant 1.
  static void emit_rows(const StubContext& context, int indent,
                        const std::vector<const Param*>& views, bool unit) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const KernelSource& kernel = *context.request().kernel;
    const bool two_d = context.rank() >= 2;
    for (const Param* p : views) {
      const std::string local = argument_local(*p);
      out.line(indent, (unit ? "" : "const ") + view_type(*p, I) + " " + local +
                           "_view = " + local + "_in;");
      if (unit) {
        out.line(indent, local + "_view.stride_[" + std::to_string(unit_dim(context, *p)) +
                             "] = " + std::to_string(context.request().view_stride) + ";");
      }
    }
    if (context.uses_index()) {
      out.line(indent,
               "const " + I + " stubjit_istep = " + (unit ? I + "(1)" : "stubjit_istep_in") + ";");
    }
    int at = indent - 1;  // the loops below were written for indent 1
    const bool planes = takes_planes(context);
    // Each projected field's base for the loop inside: the base named local + `from`
    // advanced by `counter` times its `step`, named local + `to`; `from` and `to` are
    // {pointer suffix, trailing view suffix}, for fields of rank 0 and above.
    using Names = std::pair<std::string, std::string>;
    const auto field_bases = [&](int in, const std::string& counter, const std::string& step,
                                 const Names& from, const Names& to) {
      for (std::size_t i = 0; i < kernel.signature.size(); ++i) {
        const Param& p = kernel.signature[i];
        if (context.request().bindings[i] != Binding::projection) continue;
        const std::string local = argument_local(p);
        const std::string offset =
            "stubjit::wrapping_product<" + I + ">(" + counter + ", " + local + step + ")";
        if (p.rank == 0) {
          out.line(in, c_elem(p) + "* STUBJIT_RESTRICT " + local + to.first + " = " + local +
                           from.first + " + " + offset + ";");
        } else {
          out.line(in, "const " + view_type(p, I) + " " + local + to.second +
                           " = stubjit::offset_view<" + c_elem(p) + ", " + std::to_string(p.rank) +
                           ", " + I + ">(" + local + from.second + ", " + offset + ");");
        }
      }
    };
    // Each projected field's first run of the block of rows: its first run, or with
    // planes its first run of the plane.
    Names first = {"_first", "_tfirst"};
    if (planes) {
      out.line(at + 1, "for (" + I + " stubjit_s = 0; stubjit_s < stubjit_planes; ++stubjit_s) {");
      if (context.uses_index()) {
        out.line(at + 2, "const " + I + " stubjit_i" + std::to_string(context.rank() - 3) +
                             " = stubjit::logical_index<" + I +
                             ">(stubjit_pbegin, stubjit_pstep, stubjit_s);");
      }
      first = {"_pfirst", "_ptfirst"};
      field_bases(at + 2, "stubjit_s", "_plane", {"_first", "_tfirst"}, first);
      ++at;
      // Rolled: LLVM unrolls the row loop (its trip count known at run time only), and
      // inside the plane loop the unrolled rows reloaded their pointers from the stack
      // at every row: a rank-8 stencil over strided rows of 3 ran at 0.75 to 0.85 of the
      // hand loop unrolled, 1.14 to 1.26 rolled (bench/results/shapes.md).
      out.line(at + 1, "#pragma clang loop unroll(disable)");
    }
    out.line(at + 1, "for (" + I + " stubjit_r = 0; stubjit_r < stubjit_rows; ++stubjit_r) {");
    if (context.uses_index() && two_d) {
      out.line(at + 2, "const " + I + " stubjit_i" + std::to_string(context.rank() - 2) +
                           " = stubjit::logical_index<" + I +
                           ">(stubjit_jbegin, stubjit_jstep, stubjit_r);");
    }
    field_bases(at + 2, "stubjit_r", "_row", first, {"", "_tview"});
    const auto run_loop = [&](int in, const std::string& trip, bool constant) {
      if (!unit && !views.empty() && !constant) {
        // The general copy, where each read of a view has a stride known at run time
        // only, keeps its loop over a run rolled: on a Zen 3 host (-march=native:
        // znver3) LLVM unrolled it and gave each read of each unrolled element an
        // offset of its own, kept on the stack and updated there; a rank-3 stencil over
        // strided rows of 37 ran at 0.51 of the hand loop unrolled, 1.01 to 1.06
        // rolled (bench/results/shapes.md). The pragma also keeps the vectorizer from
        // interleaving the loop; that cost on other hosts is not measured.
        out.line(in, "#pragma clang loop unroll(disable)");
      }
      out.line(in, "for (" + I + " stubjit_k = 0; stubjit_k < " + trip + "; ++stubjit_k) {");
      if (context.uses_index()) {
        out.line(in + 1, "const " + I + " stubjit_i" + last(context) +
                             " = stubjit::logical_index<" + I +
                             ">(stubjit_ibegin, stubjit_istep, stubjit_k);");
      }
      context.emit_visit(in + 1, StubContext::VisitStyle::row);
      out.line(in, "}");
    };
    const std::int64_t inner = context.request().inner_count;
    if (inner > 0) {
      // Whole rows have the domain's innermost count: a constant trip count, which
      // LLVM unrolls (rows cut by a group's edge take the general loop).
      const std::string count = I + "(" + std::to_string(inner) + ")";
      out.line(at + 2, "if (stubjit_n == " + count + ") {");
      if (unit && context.request().view_stride != 1) {
        // Except in the copy with a view stride other than 1: there the rolled loop
        // (each read a constant displacement from one moving pointer) ran a rank-2
        // stencil over rows of 7 at 1.0 of the hand loop where the unrolled one ran it
        // at 0.57 to 0.65, and ran from 0.06 below to 0.17 above it at ranks 3 to 8
        // (bench/results/shapes.md).
        out.line(at + 3, "#pragma clang loop unroll(disable)");
      }
      run_loop(at + 3, count, true);
      out.line(at + 2, "} else {");
      run_loop(at + 3, "stubjit_n", false);
      out.line(at + 2, "}");
    } else {
      run_loop(at + 2, "stubjit_n", false);
    }
    out.line(at + 1, "}");
    if (planes) out.line(at, "}");
  }

  // Element step along the innermost logical dimension, per projected field.
  static void emit_step_locals(const StubContext& context) {
    const std::string I = context.index_type();
    const KernelSource& kernel = *context.request().kernel;
    for (std::size_t i = 0; i < kernel.signature.size(); ++i) {
      if (context.request().bindings[i] != Binding::projection) continue;
      const std::string local = argument_local(kernel.signature[i]);
      // Wrapping: with one position along the dimension, a huge step times the stride
      // may overflow, and is never used.
      context.out().line(1, "const " + I + " " + local + "_step = stubjit::wrapping_product<" + I +
                                ">(stubjit_step" + last(context) + ", " + local + "_s" +
                                last(context) + ");");
      const std::string outer = context.rank() >= 2 ? std::to_string(context.rank() - 2) : "";
      context.out().line(
          1, "const " + I + " " + local + "_row = " +
                 (outer.empty() ? I + "(0)"
                                : "stubjit::wrapping_product<" + I + ">(stubjit_step" + outer +
                                      ", " + local + "_s" + outer + ")") +
                 ";");
      if (takes_planes(context)) {
        const std::string plane = std::to_string(context.rank() - 3);
        context.out().line(1, "const " + I + " " + local + "_plane = stubjit::wrapping_product<" +
                                  I + ">(stubjit_step" + plane + ", " + local + "_s" + plane +
                                  ");");
      }
    }
  }

  // The planes of one call of stubjit_run (takes_planes): `count` from position `begin`
  // of the third-innermost dimension.
  struct PlaneBlock {
    std::string count;
    std::string begin;
  };

  // Calls stubjit_run for `rows` runs of `count` positions: from position `begin` of
  // the innermost dimension and (rank >= 2) position `row_begin` of the one outside
  // it, and with planes, for `planes.count` such blocks from `planes.begin` of the one
  // outside that; stubjit_i0..stubjit_i(N-3) (with planes, N-4) are in scope.
  static void emit_run_call(const StubContext& context, int indent, const PlaneBlock& planes,
                            const std::string& rows, const std::string& row_begin,
                            const std::string& count, const std::string& begin) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const std::string L = last(context);
    const bool two_d = context.rank() >= 2;
    const bool with_planes = takes_planes(context);
    const std::string J = std::to_string(context.rank() - 2);
    const std::string K = std::to_string(context.rank() - 3);
    const KernelSource& kernel = *context.request().kernel;
    out.line(indent, "const " + I + " stubjit_ibegin = stubjit::logical_index<" + I +
                         ">(stubjit_first" + L + ", stubjit_step" + L + ", " + begin + ");");
    if (two_d) {
      out.line(indent, "const " + I + " stubjit_jbegin = stubjit::logical_index<" + I +
                           ">(stubjit_first" + J + ", stubjit_step" + J + ", " + row_begin + ");");
    }
    if (with_planes) {
      out.line(indent, "const " + I + " stubjit_pbegin = stubjit::logical_index<" + I +
                           ">(stubjit_first" + K + ", stubjit_step" + K + ", " + planes.begin +
                           ");");
    }
    std::string args = rows + ", " + count;
    if (with_planes) args = planes.count + ", " + args;
    if (context.uses_index()) {
      for (int d = 0; d + run_dims(context) < context.rank(); ++d)
        args += ", stubjit_i" + std::to_string(d);
      if (with_planes) args += ", stubjit_pbegin, stubjit_step" + K;
      if (two_d) args += ", stubjit_jbegin, stubjit_step" + J;
      args += ", stubjit_ibegin, stubjit_step" + L;
    }
    for (std::size_t i = 0; i < kernel.signature.size(); ++i) {
      const Param& p = kernel.signature[i];
      const std::string local = argument_local(p);
      switch (context.request().bindings[i]) {
        case Binding::index:
          break;
        case Binding::scalar:
          args += ", " + local;
          break;
        case Binding::broadcast:
          args += ", " + local + (p.rank == 0 ? "" : "_view");
          break;
        case Binding::projection: {
          std::string first;
          for (int d = 0; d + run_dims(context) < context.rank(); ++d) {
            first +=
                "stubjit_i" + std::to_string(d) + " * " + local + "_s" + std::to_string(d) + " + ";
          }
          if (with_planes) first += "stubjit_pbegin * " + local + "_s" + K + " + ";
          if (two_d) first += "stubjit_jbegin * " + local + "_s" + J + " + ";
          first += "stubjit_ibegin * " + local + "_s" + L;
          args += p.rank == 0
                      ? ", " + local + " + (" + first + ")"
                      : ", stubjit::offset_view<" + c_elem(p) + ", " + std::to_string(p.rank) +
                            ", " + I + ">(" + local + "_tview, " + first + ")";
          args += ", " + local + "_step, " + local + "_row";
          if (with_planes) args += ", " + local + "_plane";
          break;
        }
      }
    }
    out.line(indent, "stubjit_run(" + args + ");");
  }

  // One group of a direct dispatch: a box of positions; loops over all but the two
  // innermost dimensions (with planes, the three innermost), one block of rows (of
  // planes) for those.
  static void emit_direct_group(const StubContext& context, bool with_origin) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const int rank = context.rank();
    out.line(2, "const stubjit::u64 stubjit_gx = stubjit_g % stubjit_lp.grid[0];");
    if (rank >= 2)
      out.line(
          2,
          "const stubjit::u64 stubjit_gy = (stubjit_g / stubjit_lp.grid[0]) % stubjit_lp.grid[1];");
    if (rank >= 3)
      out.line(
          2,
          "const stubjit::u64 stubjit_gz = stubjit_g / (stubjit_lp.grid[0] * stubjit_lp.grid[1]);");
    for (int d = 0; d < rank; ++d) {
      const int p = rank - 1 - d;
      const std::string n = std::to_string(d);
      const std::string origin =
          with_origin ? I + "(stubjit_lp.origin[" + std::to_string(p) + "]) + " : "";
      out.line(2, "const " + I + " stubjit_lo" + n + " = " + origin + I + "(stubjit_g" + axis[p] +
                      " * stubjit_lp.block[" + std::to_string(p) + "]);");
      out.line(2, "const " + I + " stubjit_hi" + n + " = stubjit::min_of<" + I + ">(stubjit_lo" +
                      n + " + " + I + "(stubjit_lp.block[" + std::to_string(p) +
                      "]), stubjit_count" + n + ");");
    }
    std::string empty;
    for (int d = 0; d < rank; ++d) {
      const std::string n = std::to_string(d);
      empty += (d ? " || stubjit_lo" : "stubjit_lo") + n + " >= stubjit_hi" + n;
    }
    out.line(2, "if (" + empty + ") continue;");
    // Loops over the dimensions outside the block stubjit_run takes.
    const int loops = std::max(rank - run_dims(context), 0);
    for (int d = 0; d < loops; ++d) {
      const std::string n = std::to_string(d);
      out.line(2 + d, "for (" + I + " stubjit_p" + n + " = stubjit_lo" + n + "; stubjit_p" + n +
                          " < stubjit_hi" + n + "; ++stubjit_p" + n + ") {");
      context.emit_logical_index(3 + d, d);
    }
    const std::string L = last(context);
    const int indent = 2 + loops;
    PlaneBlock planes;
    if (takes_planes(context)) {
      const std::string K = std::to_string(rank - 3);
      planes = {"stubjit_hi" + K + " - stubjit_lo" + K, "stubjit_lo" + K};
    }
    if (rank >= 2) {
      const std::string J = std::to_string(rank - 2);
      emit_run_call(context, indent, planes, "stubjit_hi" + J + " - stubjit_lo" + J,
                    "stubjit_lo" + J, "stubjit_hi" + L + " - stubjit_lo" + L, "stubjit_lo" + L);
    } else {
      emit_run_call(context, indent, planes, I + "(1)", "", "stubjit_hi0 - stubjit_lo0",
                    "stubjit_lo0");
    }
    for (int d = loops - 1; d >= 0; --d) out.line(2 + d, "}");
  }

  // One group of a spread dispatch: a run of flat positions, raised once and then
  // walked as blocks of whole planes where the run holds them (takes_planes), else
  // blocks of whole rows of the innermost dimension where it holds them, else as one
  // row or part of one.
  static void emit_spread_group(const StubContext& context) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const int rank = context.rank();
    const std::string L = last(context);
    std::string counts;
    for (int d = 0; d < rank; ++d)
      counts += (d ? ", stubjit_count" : "stubjit_count") + std::to_string(d);
    out.line(2, "const " + I + " stubjit_group_size = " + I + "(stubjit_lp.block[0]) * " + I +
                    "(stubjit_lp.block[1]) * " + I + "(stubjit_lp.block[2]);");
    out.line(2, I + " stubjit_lin = " + I + "(stubjit_lp.linear_begin) + " + I +
                    "(stubjit_g) * stubjit_group_size;");
    out.line(2, "const " + I + " stubjit_lin_end = stubjit::min_of<" + I +
                    ">(stubjit_lin + stubjit_group_size, " + I + "(stubjit_lp.linear_end));");
    out.line(2, "if (stubjit_lin >= stubjit_lin_end) continue;");
    out.line(2, "const " + I + " stubjit_counts[" + std::to_string(rank) + "] = {" + counts + "};");
    out.line(2, I + " stubjit_pos[" + std::to_string(rank) + "];");
    out.line(2, "stubjit::raise<" + std::to_string(rank) + ", " + I +
                    ">(stubjit_lin, stubjit_counts, stubjit_pos);");
    out.line(2, "while (stubjit_lin < stubjit_lin_end) {");
    out.line(3, "const " + I + " stubjit_left = stubjit_lin_end - stubjit_lin;");
    if (rank == 1) {
      out.line(3, "const " + I + " stubjit_rows = 1;");
      out.line(3, "const " + I + " stubjit_run_length = stubjit::min_of<" + I +
                      ">(stubjit_left, stubjit_count0 - stubjit_pos[0]);");
      emit_run_call(context, 3, {}, "stubjit_rows", "", "stubjit_run_length", "stubjit_pos[0]");
      out.line(3, "stubjit_lin += stubjit_run_length;");
      out.line(3, "stubjit_pos[0] += stubjit_run_length;");
      out.line(2, "}");
      return;
    }
    const std::string J = std::to_string(rank - 2);
    const std::string K = std::to_string(rank - 3);
    const bool planes = takes_planes(context);
    // Whole rows from the start of one: as many as the run and the dimension outside
    // hold (one division per block, not per element).
    out.line(3, "const bool stubjit_whole = stubjit_pos[" + L +
                    "] == 0 && stubjit_left >= stubjit_count" + L + ";");
    const std::string rows = "stubjit_whole ? stubjit::min_of<" + I +
                             ">(stubjit_left / stubjit_count" + L + ", stubjit_count" + J +
                             " - stubjit_pos[" + J + "]) : " + I + "(1)";
    if (planes) {
      // And whole planes from the start of one, likewise.
      out.line(3, "const " + I + " stubjit_plane_size = stubjit_count" + J + " * stubjit_count" +
                      L + ";");
      out.line(3, "const bool stubjit_whole_planes = stubjit_whole && stubjit_pos[" + J +
                      "] == 0 && stubjit_left >= stubjit_plane_size;");
      out.line(3, "const " + I + " stubjit_planes = stubjit_whole_planes ? stubjit::min_of<" + I +
                      ">(stubjit_left / stubjit_plane_size, stubjit_count" + K + " - stubjit_pos[" +
                      K + "]) : " + I + "(1);");
      out.line(3, "const " + I + " stubjit_rows = stubjit_whole_planes ? stubjit_count" + J +
                      " : " + rows + ";");
    } else {
      out.line(3, "const " + I + " stubjit_rows = " + rows + ";");
    }
    out.line(3, "const " + I + " stubjit_run_length = stubjit_whole ? stubjit_count" + L +
                    " : stubjit::min_of<" + I + ">(stubjit_left, stubjit_count" + L +
                    " - stubjit_pos[" + L + "]);");
    for (int d = 0; d + run_dims(context) < rank; ++d) {
      const std::string n = std::to_string(d);
      out.line(3, "const " + I + " stubjit_p" + n + " = stubjit_pos[" + n + "];");
      context.emit_logical_index(3, d);
    }
    emit_run_call(
        context, 3, planes ? PlaneBlock{"stubjit_planes", "stubjit_pos[" + K + "]"} : PlaneBlock{},
        "stubjit_rows", "stubjit_pos[" + J + "]", "stubjit_run_length", "stubjit_pos[" + L + "]");
    out.line(3, std::string("stubjit_lin += ") + (planes ? "stubjit_planes * " : "") +
                    "stubjit_rows * stubjit_run_length;");
    if (planes) {
      out.line(3, "if (stubjit_whole_planes) {");
      out.line(4, "stubjit_pos[" + K + "] += stubjit_planes;");
      out.line(
          3, "} else if (stubjit_pos[" + L + "] + stubjit_run_length == stubjit_count" + L + ") {");
    } else {
      out.line(3, "if (stubjit_pos[" + L + "] + stubjit_run_length == stubjit_count" + L + ") {");
    }
    out.line(4, "stubjit_pos[" + L + "] = 0;");
    out.line(4, "stubjit_pos[" + J + "] += stubjit_rows;");
    out.line(3, "} else {");
    out.line(4, "stubjit_pos[" + L + "] += stubjit_run_length;");
    out.line(3, "}");
    // Carries from the dimension the block ended in.
    const std::string from = planes ? "stubjit_whole_planes ? " + K + " : " + J : J;
    out.line(3, "for (int stubjit_d = " + from +
                    "; stubjit_d > 0 && stubjit_pos[stubjit_d] == stubjit_counts[stubjit_d]; "
                    "--stubjit_d) {");
    out.line(4, "stubjit_pos[stubjit_d] = 0;");
    out.line(4, "++stubjit_pos[stubjit_d - 1];");
    out.line(3, "}");
    out.line(2, "}");
  }
};

}  // namespace

const DialectEmitter& cpp_dialect() {
  static const CppDialect dialect;
  return dialect;
}

}  // namespace stubjit::detail
