// One emitter per target dialect (Halide's one-codegen-per-target). The shared stub
// writer produces everything but the entry point; a dialect writes the entry: how
// physical ids become positions, how out-of-domain threads are masked, and its
// qualifiers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/source_writer.hpp"
#include "codegen/stub_request.hpp"

namespace stubjit::detail {

// What a dialect can ask the shared writer for while it writes an entry.
class StubContext {
 public:
  StubContext(const StubRequest& request, SourceWriter& out);

  const StubRequest& request() const { return request_; }
  SourceWriter& out() const { return out_; }
  int rank() const { return request_.rank; }
  const std::string& entry() const { return entry_; }
  // "stubjit::i32" or "stubjit::i64": the type positions and logical indices use.
  const char* index_type() const;

  // Which stubjit_count<d> locals emit_domain_locals declares. An entry declares only
  // the locals it reads: NVRTC warns about any other, on every compile of the stub.
  enum class CountLocals {
    every,
    all_but_first,  // positions raised from a group number (dimension 0 takes the rest)
    none,           // the entry names the launch value where it reads a count
  };
  // const stubjit_first<d>, stubjit_step<d> and the `counts` of stubjit_count<d>, from
  // the launch values (launch_value).
  void emit_domain_locals(int indent, CountLocals counts = CountLocals::every) const;
  // Per-parameter locals read once per entry from the packed arguments (argument_value;
  // an entry that takes its values one by one takes a scalar or a field pointer as the
  // local itself): scalar values,
  // field pointers (restrict), strides of projected dimensions (stubjit_<x>_s<d>),
  // views of broadcast fields (stubjit_<x>_view) and the trailing view of partially
  // projected ones (stubjit_<x>_tview, based at the field's origin). With `only`, those
  // of the parameters it accepts alone (an entry that does not run the body).
  void emit_argument_locals(int indent,
                            const std::function<bool(const Param&)>& only = nullptr) const;
  // const stubjit_i<d> = first + step * stubjit_p<d> (wrapping: logical_index), for
  // one dimension.
  void emit_logical_index(int indent, int d) const;

  enum class VisitStyle {
    // Projected elements addressed from the field base with every index:
    // needs stubjit_i0..stubjit_i<N-1> and the stride locals.
    full_offsets,
    // Projected elements addressed as stubjit_<x>[stubjit_k * stubjit_<x>_step]
    // from a row pointer: the innermost run of a CPU stub. The index token, if
    // any, needs stubjit_i0..stubjit_i<N-1>.
    row,
  };
  // Emits the kernel call of one activity. Tiled stubs have stubjit_t<d> and
  // stubjit_l<d> (the tile's position and the activity's in the tile) in scope, group
  // stubs stubjit_group and the shared views (emit_shared_locals).
  void emit_visit(int indent, VisitStyle style) const;
  // The offset of a rank-0 projected parameter's element (its pointer local `local`)
  // at the index stubjit_i0..stubjit_i<N-1>, as the full_offsets visit addresses it.
  std::string projection_offset(const std::string& local) const;
  bool uses_index() const;
  // Whether the visit reads the logical indices stubjit_i<d>: for an index token, a
  // filter or a projected field. A stub that reads none needs its positions for the
  // domain's bounds alone.
  bool reads_logical_indices() const;
  bool has_param(ParamKind kind) const;
  // The views of the kernel's shared arrays (stubjit_a<..>_view), laid out from
  // `memory` (a stubjit::u8*) as the host sized it (shared_view in view.h); needs the
  // argument locals (an extent may be a scalar).
  void emit_shared_locals(int indent, const std::string& memory) const;
  // The expression passed for a parameter that takes no argument.
  std::string no_argument_expression(const Param& param) const;

  // The values an entry reads from the launch parameters (kernels/stubjit/launch.h):
  // `first`, `count`, `step`, `origin`, `grid` and `block` per dimension, the others
  // once (their index is ignored), and the divisor of dimension `index`.
  enum class LaunchValue {
    first,
    count,
    step,
    origin,
    grid,
    block,
    linear_begin,
    linear_end,
    divisor_multiplier32,
    divisor_shift32,
    divisor_multiplier64,
    divisor_shift64,
  };
  // What the entry names to read a launch value or a member of the packed arguments
  // (`member` of stubjit_args_t: `size` bytes at `offset`, of C type `type`; an array
  // member's element as "name[i]"). By default a member of the entry's two structs
  // (stubjit_lp, stubjit_args); after take_values_one_by_one(), a parameter of the
  // entry named `parameter`, declared the first time it is named.
  std::string launch_value(LaunchValue value, int index = 0) const;
  std::string argument_value(const std::string& member, const std::string& parameter,
                             const std::string& type, std::size_t offset, std::size_t size) const;
  void take_values_one_by_one() { one_by_one_ = true; }
  // The entry's parameter list ("stubjit::i64 stubjit_lp_count0, ..."), and where the
  // host finds each (GeneratedStub::parameters), in the order first named.
  std::string parameter_list() const;
  const EntryParameters& entry_parameters() const { return parameters_; }
  // Takes over what `other` (the context the entry's body was written with) declared.
  void adopt_parameters(const StubContext& other) const {
    declarations_ = other.declarations_;
    names_ = other.names_;
    parameters_ = other.parameters_;
  }

 private:
  std::string value(const std::string& member, const std::string& parameter,
                    const std::string& type, EntryParameter where) const;

  const StubRequest& request_;
  SourceWriter& out_;
  std::string entry_;
  bool one_by_one_ = false;
  mutable std::vector<std::string> declarations_;  // "type name", per parameter
  mutable std::vector<std::string> names_;         // the name, per parameter
  mutable EntryParameters parameters_;
};

// Name of the stub's local for a parameter: "stubjit_a<length>_<name>". The length
// prefix makes it unique whatever the name (a parameter "k" cannot meet the loop
// counter stubjit_k, nor "x_s0" the stride local of "x"), and no name stubjit
// generates for itself starts with "stubjit_a" and a digit.
std::string argument_local(const Param& param);

class DialectEmitter {
 public:
  virtual ~DialectEmitter() = default;
  // The family's name, as toolchain traits and StubOptions::dialect spell it.
  virtual const char* name() const = 0;
  // Whether it can write the 32-bit index variant.
  virtual bool supports_index32() const = 0;
  // Whether its stubs take launch bounds and a warp width (GPU dialects).
  virtual bool takes_group_constants() const = 0;
  // Whether it can compile a short innermost count, and the broadcast views' stride,
  // into its loops (StubRequest::inner_count, view_stride).
  virtual bool takes_short_rows() const { return false; }
  // The warp width a stub is written for when a caller gives none (dump-stub).
  virtual std::uint32_t default_warp_size() const = 0;
  // Qualifiers of the kernel's own function, e.g. "static __device__ __forceinline__".
  virtual const char* function_qualifiers() const = 0;
  // Extension of the file the stub is compiled as.
  virtual const char* file_extension() const = 0;
  // Whether the entry of a stub of `request` takes its values one by one
  // (StubContext::take_values_one_by_one) rather than the packed arguments and the
  // launch parameters as two structs; such a stub has no stubjit_args_t.
  virtual bool takes_values_one_by_one(const StubRequest&) const { return false; }
  // Written before the user's code, so the body may use it (e.g. the constants the
  // host planned with); nothing by default.
  virtual void emit_preamble(const StubContext&) const {}
  virtual void emit_entry(const StubContext& context) const = 0;
};

const DialectEmitter& cpp_dialect();
const DialectEmitter& cuda_dialect();
const DialectEmitter& hip_dialect();

// Every emitter family, and the one named `name` (nullptr when there is none).
// How every dialect spells an element type: "float", "stubjit::i32", "bool", ...
const char* c_type(ElementType type);

const std::vector<const DialectEmitter*>& emitters();
const DialectEmitter* find_emitter(const std::string& name);

}  // namespace stubjit::detail
