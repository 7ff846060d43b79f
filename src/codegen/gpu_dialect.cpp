// The CUDA and HIP dialects: one thread per activity. They differ only in spelling,
// so they are one emitter with two names. A forall entry takes the values it reads
// one by one (the packed arguments' members and launch values it uses, each a
// parameter; support/entry_parameters.hpp), maps blockIdx/threadIdx (+ the dispatch origin) to
// positions, masks threads outside the domain, then narrows to the stub's index
// width. Grid and group extents come from the launch parameters, not gridDim and
// blockDim (which an AMD GPU computes from its dispatch packet); spread indexing
// divides by the host's precomputed divisors (index.h: fast_divmod).
#include <string>

#include "codegen/dialect.hpp"
#include "codegen/group_entries.hpp"
#include "codegen/reduce_entries.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

const char* axis[3] = {"x", "y", "z"};

class GpuDialect final : public DialectEmitter {
 public:
  GpuDialect(const char* name, const char* extension, std::uint32_t warp_size)
      : name_(name), extension_(extension), warp_size_(warp_size) {}

  const char* name() const override { return name_; }
  bool supports_index32() const override { return true; }
  bool takes_group_constants() const override { return true; }
  // CUDA's warps are 32 wide; HIP's default is GCN/CDNA's wavefront of 64 (RDNA: 32).
  std::uint32_t default_warp_size() const override { return warp_size_; }
  const char* function_qualifiers() const override { return "static __device__ __forceinline__"; }
  const char* file_extension() const override { return extension_; }

  // The limits the host planned with, as constants the body may use (e.g. to size
  // a __shared__ array per group): the most threads a group of this stub has, which
  // is also its __launch_bounds__, and the warp size. Both are part of the stub's
  // cache key, so a stub never meets a plan made with other numbers.
  void emit_preamble(const StubContext& context) const override {
    SourceWriter& out = context.out();
    const StubRequest& request = context.request();
    if (request.max_threads_per_group != 0) {
      out.line(
          0, "#define STUBJIT_MAX_GROUP_THREADS " + std::to_string(request.max_threads_per_group));
    }
    if (request.warp_size != 0) {
      out.line(0, "#define STUBJIT_WARP_SIZE " + std::to_string(request.warp_size));
    }
  }

  void emit_entry(const StubContext& context) const override {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const std::uint32_t bound = context.request().max_threads_per_group;
    const std::string bounds = bound ? "__launch_bounds__(STUBJIT_MAX_GROUP_THREADS) " : "";
    if (context.request().pattern == Pattern::scan_partials)
      throw Error("a GPU scan runs in one pass: it has no partials stage");
    if (context.request().pattern == Pattern::reduce) {
      emit_gpu_reduce_entry(context, bounds);
      return;
    }
    if (context.request().pattern == Pattern::scan) {
      emit_gpu_scan_entry(context, bounds);
      return;
    }
    if (sorts_values(context.request().pattern)) {
      emit_gpu_sort_entry(context, bounds);
      return;
    }
    if (context.request().pattern != Pattern::forall) {
      emit_gpu_group_entry(context, bounds);
      return;
    }
    // The body first, through a context that declares each value it names as a
    // parameter of the entry; then the entry with those parameters, and the body.
    SourceWriter body_text(out.next_line() + 1);  // after the entry's line and its brace
    StubContext body(context.request(), body_text);
    body.take_values_one_by_one();
    // Positions read each count once, where they need it. A stub whose visit reads no
    // index needs them for the domain's bounds alone: no first, step, position or
    // index locals, which NVRTC would warn about as never read.
    const bool indexed = body.reads_logical_indices();
    if (indexed) body.emit_domain_locals(1, StubContext::CountLocals::none);
    const Mode mode = context.request().mode;
    if (mode == Mode::spread || (mode == Mode::multi && context.rank() > 3)) {
      emit_spread_positions(body, indexed);
    } else {
      emit_direct_positions(body, mode == Mode::multi, indexed);
    }
    if (indexed)
      for (int d = 0; d < context.rank(); ++d) body.emit_logical_index(1, d);
    body.emit_argument_locals(1);
    body.emit_visit(1, StubContext::VisitStyle::full_offsets);
    // Every entry reads the extents of its groups (and the domain's counts, or its
    // flat range), so the list is never empty (empty would mean the two-struct
    // convention).
    if (body.entry_parameters().empty())
      throw Error("stub writer: the entry of " + context.entry() + " takes no values");
    out.line(0, "extern \"C\" __global__ void " + bounds + context.entry() + "(" +
                    body.parameter_list() + ")");
    out.line(0, "{");
    out.raw(body_text.take());
    out.line(0, "}");
    context.adopt_parameters(body);
  }

  // Forall stubs take their values one by one (support/entry_parameters.hpp): NVRTC
  // compiles that measurably faster than two structs by value (docs/performance.md).
  // The other patterns' entries keep the two structs.
  bool takes_values_one_by_one(const StubRequest& request) const override {
    return request.pattern == Pattern::forall;
  }

 private:
  // "stubjit::u32" or "stubjit::u64": the unsigned type positions are computed in.
  static std::string unsigned_type(const StubContext& context) {
    return context.request().index_bits == 32 ? "stubjit::u32" : "stubjit::u64";
  }

  // A thread's position along a physical dimension is origin + group * block + thread,
  // written out (a dense stub needs nothing else from index.h, whose parse is a few
  // percent of its compile). A 32-bit stub computes positions in 32 bits: its domain
  // has fewer than 2^31 positions along each dimension, and a direct dispatch reaches at most one
  // group past its dimension's end (origin + grid * block < count + block), so nothing wraps. A
  // 64-bit stub computes them in 64 bits.
  static void emit_direct_positions(const StubContext& context, bool with_origin, bool indexed) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const std::string U = unsigned_type(context);
    const int rank = context.rank();
    std::string outside;
    using Value = StubContext::LaunchValue;
    for (int d = 0; d < rank; ++d) {
      const int p = rank - 1 - d;
      const std::string n = std::to_string(d);
      const std::string origin =
          with_origin ? U + "(" + context.launch_value(Value::origin, p) + ") + " : "";
      out.line(1, "const " + U + " stubjit_q" + n + " = " + origin + U + "(blockIdx." + axis[p] +
                      ") * " + context.launch_value(Value::block, p) + " + threadIdx." + axis[p] +
                      ";");
      outside += (d ? " || stubjit_q" : "stubjit_q") + n + " >= " + U + "(" +
                 context.launch_value(Value::count, d) + ")";
    }
    // Physical dimensions the domain does not use hold one position: a fixed group
    // shape with threads there must not repeat the domain. A direct plan has one
    // group along them, and one thread unless the kernel fixes its shape (the
    // planner's tests check both), so only such a shape needs a check; the shape is
    // part of the kernel's identity, and so of the stub's.
    const BlockConstraints& block = context.request().kernel->block;
    for (int p = rank; p < 3; ++p) {
      if (block.fixed() && block.shape[static_cast<std::size_t>(p)] > 1)
        outside += std::string(" || threadIdx.") + axis[p] + " != 0";
    }
    out.line(1, "if (" + outside + ") return;");
    if (!indexed) return;
    for (int d = 0; d < rank; ++d) {
      const std::string n = std::to_string(d);
      out.line(1, "const " + I + " stubjit_p" + n + " = " + I + "(stubjit_q" + n + ");");
    }
  }

  // The flat position in 64 bits (threads past the end of the domain must compare
  // correctly), then raised one dimension at a time with the host's divisors, in the
  // stub's width: divisions by constants of the launch, without a divide instruction.
  static void emit_spread_positions(const StubContext& context, bool indexed) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const std::string U = unsigned_type(context);
    const int rank = context.rank();
    using Value = StubContext::LaunchValue;
    const auto lp = [&](Value value, int index) { return context.launch_value(value, index); };
    out.line(1, "const stubjit::u64 stubjit_lin = stubjit::spread_linear(stubjit::u64(" +
                    lp(Value::linear_begin, 0) +
                    "), blockIdx.x, blockIdx.y, blockIdx.z, stubjit::u32(" + lp(Value::grid, 0) +
                    "), stubjit::u32(" + lp(Value::grid, 1) +
                    "), threadIdx.x, threadIdx.y, threadIdx.z, " + lp(Value::block, 0) + ", " +
                    lp(Value::block, 1) + ", " + lp(Value::block, 2) + ");");
    out.line(1, "if (stubjit_lin >= stubjit::u64(" + lp(Value::linear_end, 0) + ")) return;");
    if (!indexed) return;  // the flat range is the domain's bounds
    out.line(1, U + " stubjit_rest = " + U + "(stubjit_lin);");
    const bool wide = context.request().index_bits == 64;
    for (int d = rank - 1; d > 0; --d) {
      const std::string n = std::to_string(d);
      const std::string multiplier =
          lp(wide ? Value::divisor_multiplier64 : Value::divisor_multiplier32, d);
      const std::string shift = lp(wide ? Value::divisor_shift64 : Value::divisor_shift32, d);
      out.line(1, "const " + I + " stubjit_p" + n + " = " + I + "(stubjit::fast_divmod<" + U +
                      ">(stubjit_rest, " + U + "(" + lp(Value::count, d) + "), " + multiplier +
                      ", " + shift + "));");
    }
    out.line(1, "const " + I + " stubjit_p0 = " + I + "(stubjit_rest);");
  }

  const char* name_;
  const char* extension_;
  std::uint32_t warp_size_;
};

}  // namespace

const DialectEmitter& cuda_dialect() {
  static const GpuDialect dialect("cuda", ".cu", 32);
  return dialect;
}

const DialectEmitter& hip_dialect() {
  static const GpuDialect dialect("hip", ".hip", 64);
  return dialect;
}

}  // namespace stubjit::detail
