// The CUDA and HIP dialects: one thread per activity. They differ only in spelling,
// so they are one emitter with two names. The entry takes the packed arguments and
// the launch parameters by value, maps blockIdx/threadIdx (+ the dispatch origin) to
// positions, masks threads outside the domain in 64-bit arithmetic, then narrows to
// the stub's index width.
#include <string>

#include "codegen/dialect.hpp"

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
    out.line(0, "extern \"C\" __global__ void " + bounds + context.entry() +
                    "(const stubjit_args_t stubjit_args, const stubjit::LaunchParams stubjit_lp)");
    out.line(0, "{");
    context.emit_domain_locals(1);
    const Mode mode = context.request().mode;
    if (mode == Mode::spread || (mode == Mode::multi && context.rank() > 3)) {
      emit_spread_positions(context);
    } else {
      emit_direct_positions(context, mode == Mode::multi);
    }
    for (int d = 0; d < context.rank(); ++d) context.emit_logical_index(1, d);
    context.emit_argument_locals(1);
    context.emit_visit(1, StubContext::VisitStyle::full_offsets);
    out.line(0, "}");
  }

 private:
  static void emit_direct_positions(const StubContext& context, bool with_origin) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const int rank = context.rank();
    std::string outside;
    for (int d = 0; d < rank; ++d) {
      const int p = rank - 1 - d;
      const std::string n = std::to_string(d);
      const std::string origin =
          with_origin ? "stubjit::u64(stubjit_lp.origin[" + std::to_string(p) + "])" : "0";
      out.line(1, "const stubjit::u64 stubjit_q" + n + " = stubjit::direct_position(" + origin +
                      ", blockIdx." + axis[p] + ", blockDim." + axis[p] + ", threadIdx." + axis[p] +
                      ");");
      outside +=
          (d ? " || stubjit_q" : "stubjit_q") + n + " >= stubjit::u64(stubjit_lp.count[" + n + "])";
    }
    // Physical dimensions the domain does not use hold one position: a fixed group
    // shape with threads there must not repeat the domain.
    for (int p = rank; p < 3; ++p) {
      outside += std::string(" || stubjit::direct_position(0, blockIdx.") + axis[p] +
                 ", blockDim." + axis[p] + ", threadIdx." + axis[p] + ") != 0";
    }
    out.line(1, "if (" + outside + ") return;");
    for (int d = 0; d < rank; ++d) {
      const std::string n = std::to_string(d);
      out.line(1, "const " + I + " stubjit_p" + n + " = " + I + "(stubjit_q" + n + ");");
    }
  }

  static void emit_spread_positions(const StubContext& context) {
    SourceWriter& out = context.out();
    const std::string I = context.index_type();
    const int rank = context.rank();
    out.line(1,
             "const stubjit::u64 stubjit_lin = stubjit::spread_linear("
             "stubjit::u64(stubjit_lp.linear_begin), blockIdx.x, blockIdx.y, blockIdx.z, "
             "gridDim.x, gridDim.y, threadIdx.x, threadIdx.y, threadIdx.z, "
             "blockDim.x, blockDim.y, blockDim.z);");
    out.line(1, "if (stubjit_lin >= stubjit::u64(stubjit_lp.linear_end)) return;");
    std::string counts;
    for (int d = 0; d < rank; ++d)
      counts += (d ? ", stubjit_count" : "stubjit_count") + std::to_string(d);
    out.line(1, "const " + I + " stubjit_counts[" + std::to_string(rank) + "] = {" + counts + "};");
    out.line(1, I + " stubjit_pos[" + std::to_string(rank) + "];");
    out.line(1, "stubjit::raise<" + std::to_string(rank) + ", " + I + ">(" + I +
                    "(stubjit_lin), stubjit_counts, stubjit_pos);");
    for (int d = 0; d < rank; ++d) {
      const std::string n = std::to_string(d);
      out.line(1, "const " + I + " stubjit_p" + n + " = stubjit_pos[" + n + "];");
    }
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
