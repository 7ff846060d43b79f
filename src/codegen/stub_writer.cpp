// The dialect-independent part of every stub: prelude, user code with #line mapping,
// the packed-argument struct, and the projection + call of one activity.
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bind/arg_layout.hpp"
#include "codegen/dialect.hpp"
#include "codegen/prelude.hpp"
#include "codegen/reduce_entries.hpp"
#include "codegen/scalar_literal.hpp"
#include "codegen/stub_request.hpp"
#include "codegen/user_code_check.hpp"
#include "stubjit/error.hpp"
#include "stubjit/launch.h"
#include "stubjit/types.hpp"
#include "support/hash.hpp"
#include "support/scalar_words.hpp"

namespace stubjit::detail {
namespace {

std::string element_type(const Param& param) {
  return std::string(param.access == Access::read_only ? "const " : "") + c_type(param.type);
}

// The packed-argument struct's members: a scalar is the parameter's name; a field is
// its name (the data pointer), then its extents and strides (user names cannot begin
// with "stubjit", so these cannot meet another parameter's).
std::string extent_member(const Param& param) { return "stubjit_" + param.name + "_extent"; }
std::string stride_member(const Param& param) { return "stubjit_" + param.name + "_stride"; }

bool has_index_param(const Signature& signature) {
  for (const Param& p : signature)
    if (p.kind == ParamKind::index) return true;
  return false;
}

}  // namespace

const char* c_type(ElementType type) {
  switch (type) {
    case ElementType::f32:
      return "float";
    case ElementType::f64:
      return "double";
    case ElementType::i32:
      return "stubjit::i32";
    case ElementType::i64:
      return "stubjit::i64";
    case ElementType::u32:
      return "stubjit::u32";
    case ElementType::i8:
      return "stubjit::i8";
    case ElementType::u8:
      return "stubjit::u8";
    case ElementType::i16:
      return "stubjit::i16";
    case ElementType::u16:
      return "stubjit::u16";
    case ElementType::u64:
      return "stubjit::u64";
    case ElementType::boolean:
      return "bool";
    case ElementType::float16:
      return "stubjit::float16";
    case ElementType::bfloat16:
      return "stubjit::bfloat16";
    case ElementType::complex_f32:
      return "stubjit::complex<float>";
    case ElementType::complex_f64:
      return "stubjit::complex<double>";
  }
  return "void";
}

const std::vector<const DialectEmitter*>& emitters() {
  static const std::vector<const DialectEmitter*> all = {&cpp_dialect(), &cuda_dialect(),
                                                         &hip_dialect()};
  return all;
}

const DialectEmitter* find_emitter(const std::string& name) {
  for (const DialectEmitter* emitter : emitters())
    if (name == emitter->name()) return emitter;
  return nullptr;
}

const std::string& generator_fingerprint() {
  static const std::string fingerprint =
      std::to_string(generator_version) + " " + hex64(hash64(prelude_fingerprint_text()));
  return fingerprint;
}

std::string argument_local(const Param& param) {
  return "stubjit_a" + std::to_string(param.name.size()) + "_" + param.name;
}

std::string entry_name(const std::string& kernel, Mode mode, int rank) {
  return "stubjit_" + kernel + "_" + name_of(mode) + "_r" + std::to_string(rank);
}

std::string entry_name(const StubRequest& request) {
  if (request.pattern == Pattern::forall)
    return entry_name(request.kernel->name, request.mode, request.rank);
  return "stubjit_" + request.kernel->name + "_" + name_of(request.pattern) + "_r" +
         std::to_string(request.rank);
}

StubContext::StubContext(const StubRequest& request, SourceWriter& out)
    : request_(request), out_(out), entry_(entry_name(request)) {}

const char* StubContext::index_type() const {
  return request_.index_bits == 32 ? "stubjit::i32" : "stubjit::i64";
}

std::string StubContext::value(const std::string& member, const std::string& parameter,
                               const std::string& type, EntryParameter where) const {
  const bool launch = where.source == EntryParameter::Source::launch;
  if (!one_by_one_) return (launch ? "stubjit_lp." : "stubjit_args.") + member;
  // The bytes already taken: the parameter declared for them.
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i] == where) return names_[i];
  declarations_.push_back(type + " " + parameter);
  names_.push_back(parameter);
  parameters_.push_back(where);
  return parameter;
}

std::string StubContext::launch_value(LaunchValue which, int index) const {
  struct Row {
    const char* member;  // in LaunchParams; "divisor" members are of divisor[index]
    const char* type;
    std::size_t offset;  // of the member (of divisor[0]'s, for a divisor member)
    std::size_t stride;  // bytes between the members of consecutive indices; 0: one
    std::size_t size;
  };
  constexpr std::size_t divisor_at = offsetof(LaunchParams, divisor);
  constexpr std::size_t divisor_size = sizeof(FastDivisor);
  static const Row rows[] = {
      {"first", "stubjit::i64", offsetof(LaunchParams, first), 8, 8},
      {"count", "stubjit::i64", offsetof(LaunchParams, count), 8, 8},
      {"step", "stubjit::i64", offsetof(LaunchParams, step), 8, 8},
      {"origin", "stubjit::i64", offsetof(LaunchParams, origin), 8, 8},
      {"grid", "stubjit::u64", offsetof(LaunchParams, grid), 8, 8},
      {"block", "stubjit::u32", offsetof(LaunchParams, block), 4, 4},
      {"linear_begin", "stubjit::i64", offsetof(LaunchParams, linear_begin), 0, 8},
      {"linear_end", "stubjit::i64", offsetof(LaunchParams, linear_end), 0, 8},
      {"multiplier32", "stubjit::u32", divisor_at + offsetof(FastDivisor, multiplier32),
       divisor_size, 4},
      {"shift32", "stubjit::u32", divisor_at + offsetof(FastDivisor, shift32), divisor_size, 4},
      {"multiplier64", "stubjit::u64", divisor_at + offsetof(FastDivisor, multiplier64),
       divisor_size, 8},
      {"shift64", "stubjit::u32", divisor_at + offsetof(FastDivisor, shift64), divisor_size, 4},
  };
  const Row& row = rows[static_cast<int>(which)];
  const bool divisor = which >= LaunchValue::divisor_multiplier32;
  const std::string n = std::to_string(index);
  std::string member = row.member;
  std::string parameter = "stubjit_lp_" + member;
  if (divisor) {
    member = "divisor[" + n + "]." + member;
    parameter = "stubjit_lp_divisor" + n + "_" + row.member;
  } else if (row.stride != 0) {
    member += "[" + n + "]";
    parameter += n;
  }
  const std::size_t offset = row.offset + row.stride * static_cast<std::size_t>(index);
  return value(member, parameter, row.type,
               {EntryParameter::Source::launch, static_cast<std::uint32_t>(offset),
                static_cast<std::uint32_t>(row.size)});
}

std::string StubContext::argument_value(const std::string& member, const std::string& parameter,
                                        const std::string& type, std::size_t offset,
                                        std::size_t size) const {
  return value(member, parameter, type,
               {EntryParameter::Source::arguments, static_cast<std::uint32_t>(offset),
                static_cast<std::uint32_t>(size)});
}

std::string StubContext::parameter_list() const {
  std::string list;
  for (const std::string& declaration : declarations_)
    list += (list.empty() ? "" : ", ") + declaration;
  return list;
}

void StubContext::emit_domain_locals(int indent, CountLocals counts) const {
  const std::string I = index_type();
  for (int d = 0; d < rank(); ++d) {
    const std::string n = std::to_string(d);
    if (!request_.dense) {  // dense: every dimension starts at 0 with step 1
      out_.line(indent, "const " + I + " stubjit_first" + n + " = " + I + "(" +
                            launch_value(LaunchValue::first, d) + ");");
      out_.line(indent, "const " + I + " stubjit_step" + n + " = " + I + "(" +
                            launch_value(LaunchValue::step, d) + ");");
    }
    if (counts == CountLocals::none || (counts == CountLocals::all_but_first && d == 0)) continue;
    out_.line(indent, "const " + I + " stubjit_count" + n + " = " + I + "(" +
                          launch_value(LaunchValue::count, d) + ");");
  }
}

void StubContext::emit_argument_locals(int indent,
                                       const std::function<bool(const Param&)>& only) const {
  const std::string I = index_type();
  const Signature& signature = request_.kernel->signature;
  const ArgLayout layout = arg_layout(signature, request_.bindings, request_.rank);
  std::size_t specialized = 0;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const Binding binding = request_.bindings[i];
    const std::string local = argument_local(p);
    const std::size_t offset = layout.offset[i];
    if (binding == Binding::index) continue;
    if (binding == Binding::scalar) {
      // A specialized value is a constant of the stub (its member is still there, so
      // the argument layout is every stub's), unless it has no literal.
      std::optional<std::string> constant;
      const std::vector<std::uint64_t>& words = request_.specialized_values;
      if (p.specialized && specialized + scalar_words(p.type) <= words.size()) {
        const std::uint64_t high = scalar_words(p.type) == 2 ? words[specialized + 1] : 0;
        constant = scalar_literal(p.type, words[specialized], high);
        specialized += scalar_words(p.type);
      }
      if (only && !only(p)) continue;
      const std::string type = std::string("const ") + c_type(p.type);
      if (one_by_one_ && !constant) {
        // The entry's parameter is the local itself.
        argument_value(p.name, local, type, offset, size_of(p.type));
        continue;
      }
      const std::string value =
          constant ? *constant : argument_value(p.name, local, type, offset, size_of(p.type));
      out_.line(indent, type + " " + local + " = " + value + ";");
      continue;
    }
    if (only && !only(p)) continue;
    const std::string pointer_type = element_type(p) + "* STUBJIT_RESTRICT";
    if (one_by_one_) {
      argument_value(p.name, local, pointer_type, offset, 8);  // the local itself
    } else {
      out_.line(indent, pointer_type + " " + local + " = " +
                            argument_value(p.name, local, pointer_type, offset, 8) + ";");
    }
    // A field's extents, then its strides, 8 bytes each (bind/arg_layout.hpp).
    const int field_rank = actual_rank(p, binding, rank());
    const auto extent = [&](int d) {
      return argument_value(extent_member(p) + "[" + std::to_string(d) + "]",
                            local + "_e" + std::to_string(d), "stubjit::i64",
                            offset + 8 + 8 * static_cast<std::size_t>(d), 8);
    };
    const auto stride = [&](int d) {
      return argument_value(stride_member(p) + "[" + std::to_string(d) + "]",
                            local + "_t" + std::to_string(d), "stubjit::i64",
                            offset + 8 + 8 * static_cast<std::size_t>(field_rank + d), 8);
    };
    if (binding == Binding::projection) {
      // Dense: the innermost stride is 1.
      const int strided = request_.dense ? rank() - 1 : rank();
      for (int d = 0; d < strided; ++d) {
        out_.line(indent, "const " + I + " " + local + "_s" + std::to_string(d) + " = " + I + "(" +
                              stride(d) + ");");
      }
    }
    if (p.rank > 0) {
      // The view's extents and strides: the field's trailing p.rank, from the whole
      // arrays in the packed arguments, or as arrays of the parameters that hold them.
      std::string extents = "stubjit_args." + extent_member(p);
      std::string strides = "stubjit_args." + stride_member(p);
      if (one_by_one_) {
        std::string extent_values, stride_values;
        for (int d = field_rank - p.rank; d < field_rank; ++d) {
          const std::string separator = extent_values.empty() ? "" : ", ";
          extent_values += separator + extent(d);
          stride_values += separator + stride(d);
        }
        const std::string R = std::to_string(p.rank);
        extents = local + "_extent";
        strides = local + "_stride";
        out_.line(indent,
                  "const stubjit::i64 " + extents + "[" + R + "] = {" + extent_values + "};");
        out_.line(indent,
                  "const stubjit::i64 " + strides + "[" + R + "] = {" + stride_values + "};");
      }
      const std::string view = binding == Binding::projection ? "_tview" : "_view";
      out_.line(indent, "const stubjit::View<" + element_type(p) + ", " + std::to_string(p.rank) +
                            ", " + I + "> " + local + view + " = stubjit::trailing_view<" +
                            element_type(p) + ", " + std::to_string(p.rank) + ", " + I + ">(" +
                            local + ", " + extents + ", " + strides + ");");
    }
  }
}

// A filter reads the index too (KernelSource::filter).
bool StubContext::uses_index() const {
  return has_index_param(request_.kernel->signature) || !request_.kernel->filter.empty();
}

bool StubContext::reads_logical_indices() const {
  if (uses_index()) return true;
  for (const Binding binding : request_.bindings)
    if (binding == Binding::projection) return true;
  return false;
}

void StubContext::emit_logical_index(int indent, int d) const {
  const std::string n = std::to_string(d);
  const std::string I = index_type();
  if (request_.dense) {
    out_.line(indent, "const " + I + " stubjit_i" + n + " = stubjit_p" + n + ";");
    return;
  }
  out_.line(indent, "const " + I + " stubjit_i" + n + " = stubjit::logical_index<" + I +
                        ">(stubjit_first" + n + ", stubjit_step" + n + ", stubjit_p" + n + ");");
}

bool StubContext::has_param(ParamKind kind) const {
  for (const Param& p : request_.kernel->signature)
    if (p.kind == kind) return true;
  return false;
}

// What the kernel gets for a parameter that takes no argument.
std::string StubContext::no_argument_expression(const Param& param) const {
  switch (param.kind) {
    case ParamKind::tile_index:
      return "stubjit_tile_index";
    case ParamKind::local_index:
      return "stubjit_local_index";
    case ParamKind::group:
      return "stubjit_group";
    case ParamKind::shared:
      return argument_local(param) + "_view";
    default:
      return "stubjit_index";
  }
}

void StubContext::emit_shared_locals(int indent, const std::string& memory) const {
  const std::string I = index_type();
  const Signature& signature = request_.kernel->signature;
  bool any = false;
  for (const Param& p : signature) any = any || p.kind == ParamKind::shared;
  if (!any) return;
  out_.line(indent, "stubjit::u64 stubjit_shared_at = 0;");
  for (const Param& p : signature) {
    if (p.kind != ParamKind::shared) continue;
    const std::string local = argument_local(p);
    // Each extent a literal or an integer scalar parameter (validated with the kernel).
    std::string extents;
    for (const std::string& extent : p.extents) {
      // A literal as the decimal it is (a leading 0 would make C++ read octal), with
      // the unsigned suffix; a name is the scalar's local.
      std::string value;
      for (const Param& q : signature)
        if (q.kind == ParamKind::scalar && q.name == extent) value = argument_local(q);
      if (value.empty()) value = std::to_string(std::stoull(extent)) + "u";
      extents += (extents.empty() ? "" : ", ") + I + "(" + value + ")";
    }
    const std::string R = std::to_string(p.extents.size());
    const std::string T = c_type(p.type);
    out_.line(indent, "const " + I + " " + local + "_extent[" + R + "] = {" + extents + "};");
    out_.line(indent, "const stubjit::View<" + T + ", " + R + ", " + I + "> " + local +
                          "_view = stubjit::shared_view<" + T + ", " + R + ", " + I + ">(" +
                          memory + ", stubjit_shared_at, " + local + "_extent);");
  }
}

std::string StubContext::projection_offset(const std::string& local) const {
  std::string offset;
  for (int d = 0; d < rank(); ++d) {
    const std::string n = std::to_string(d);
    offset += (d ? " + stubjit_i" : "stubjit_i") + n;
    if (!(request_.dense && d == rank() - 1)) offset += " * " + local + "_s" + n;
  }
  return offset;
}

void StubContext::emit_visit(int indent, VisitStyle style) const {
  const std::string I = index_type();
  const KernelSource& kernel = *request_.kernel;
  // The token's dimension d is the stub's dimension index_order[d] (a launch may run
  // the domain's dimensions in another order, fusion.hpp).
  const auto token = [&](const char* name, const char* local) {
    std::string values;
    for (int d = 0; d < rank(); ++d) {
      values += std::string(d ? ", " : "") + local +
                std::to_string(request_.index_order[static_cast<std::size_t>(d)]);
    }
    out_.line(indent, "const stubjit::Index<" + std::to_string(rank()) + ", " + I + "> " + name +
                          " = {{" + values + "}};");
  };
  if (uses_index()) token("stubjit_index", "stubjit_i");
  if (has_param(ParamKind::tile_index)) token("stubjit_tile_index", "stubjit_t");
  if (has_param(ParamKind::local_index)) token("stubjit_local_index", "stubjit_l");
  std::string call = "stubjit_user::" + kernel.name + "(";
  // The filters a point must pass (a non-rectangular domain): the kernel's predicate,
  // then each mask's element.
  std::string passes;
  if (!kernel.filter.empty()) passes = "stubjit_user::stubjit_filter(stubjit_index)";
  for (std::size_t i = 0; i < kernel.signature.size(); ++i) {
    const Param& p = kernel.signature[i];
    const std::string local = argument_local(p);
    if (i) call += ", ";
    const std::size_t argument_at = call.size();
    switch (request_.bindings[i]) {
      case Binding::index:
        call += no_argument_expression(p);
        break;
      case Binding::scalar:
        call += local;
        break;
      case Binding::broadcast:
        if (p.is_result()) {
          call += "stubjit_value";  // a reduce stub's element value (reduce_entries.cpp)
          break;
        }
        call += p.rank == 0 ? local + "[0]" : local + "_view";
        break;
      case Binding::projection: {
        if (p.is_result() || p.is_sort()) {
          // A scan stub's element value (scan_entries.cpp), a sort stub's key
          // (sort_entries.cpp).
          call += "stubjit_value";
          break;
        }
        const std::string offset =
            style == VisitStyle::row ? "stubjit_k * " + local + "_step" : projection_offset(local);
        call += p.rank == 0
                    ? local + "[" + offset + "]"
                    : "stubjit::offset_view<" + element_type(p) + ", " + std::to_string(p.rank) +
                          ", " + I + ">(" + local + "_tview, " + offset + ")";
        break;
      }
    }
    if (p.mask) {
      passes +=
          std::string(passes.empty() ? "" : " && ") + "(" + call.substr(argument_at) + ") != 0";
    }
  }
  if (passes.empty()) {
    out_.line(indent, call + ");");
  } else {
    out_.line(indent, "if (" + passes + ") " + call + ");");
  }
}

namespace {

std::string kernel_param_decl(const Param& p, const StubContext& context) {
  const std::string I = context.index_type();
  switch (p.kind) {
    case ParamKind::scalar:
      return std::string(c_type(p.type)) + " " + p.name;
    case ParamKind::index:
    case ParamKind::tile_index:
    case ParamKind::local_index:
      return "stubjit::Index<" + std::to_string(context.rank()) + ", " + I + "> " + p.name;
    case ParamKind::group:
      return "const stubjit::Group& " + p.name;
    case ParamKind::shared:
      return "stubjit::View<" + std::string(c_type(p.type)) + ", " +
             std::to_string(p.extents.size()) + ", " + I + "> " + p.name;
    case ParamKind::field:
      if (p.is_result()) return std::string(c_type(p.type)) + "& " + p.name;
      if (p.rank == 0) {
        return std::string(c_type(p.type)) + (p.access == Access::read_write ? "& " : " ") + p.name;
      }
      return "stubjit::View<" + element_type(p) + ", " + std::to_string(p.rank) + ", " + I + "> " +
             p.name;
  }
  return p.name;
}

// Back to the stub's own numbering after user code.
void emit_line_reset(SourceWriter& out, const std::string& file_name) {
  // The directive names the line after it.
  out.raw("#line " + std::to_string(out.next_line() + 1) + " \"" + file_name + "\"\n");
}

// The kernel's filter as a function of the point's index, `i`.
std::string filter_function(const StubContext& context, const DialectEmitter& dialect) {
  return std::string(dialect.function_qualifiers()) + " bool stubjit_filter(stubjit::Index<" +
         std::to_string(context.rank()) + ", " + context.index_type() + "> i)";
}

// A reduce stub's result with a custom combiner, or nullptr.
const Param* custom_result(const StubContext& context) {
  if (!combines_values(context.request().pattern)) return nullptr;
  for (const Param& p : context.request().kernel->signature)
    if (p.is_result() && p.combiner == Combiner::custom) return &p;
  return nullptr;
}

// The user's combiner as functions: combine(a, b) and the identity.
std::string combine_function(const Param& result, const DialectEmitter& dialect) {
  const std::string T = c_type(result.type);
  return std::string(dialect.function_qualifiers()) + " " + T + " stubjit_combine(" + T + " a, " +
         T + " b)";
}
std::string identity_function(const Param& result, const DialectEmitter& dialect) {
  return std::string(dialect.function_qualifiers()) + " " + c_type(result.type) +
         " stubjit_identity()";
}

// A sort stub's keys with a custom order, or nullptr.
const Param* custom_sort(const StubContext& context) {
  if (!sorts_values(context.request().pattern)) return nullptr;
  for (const Param& p : context.request().kernel->signature)
    if (p.sort == SortOrder::custom) return &p;
  return nullptr;
}

// The user's order as a function: less(a, b).
std::string less_function(const Param& keys, const DialectEmitter& dialect) {
  const std::string T = c_type(keys.type);
  return std::string(dialect.function_qualifiers()) + " bool stubjit_less(" + T + " a, " + T +
         " b)";
}

std::string user_function(const StubContext& context, const DialectEmitter& dialect) {
  const KernelSource& kernel = *context.request().kernel;
  std::string params;
  for (std::size_t i = 0; i < kernel.signature.size(); ++i)
    params += (i ? ", " : "") + kernel_param_decl(kernel.signature[i], context);
  // A sort's merge passes move what the first stage evaluated: they never call it, and
  // say so (NVRTC warns about an unused static function).
  const char* unused = context.request().pattern == Pattern::sort_merge ? "[[maybe_unused]] " : "";
  return unused + std::string(dialect.function_qualifiers()) + " void " + kernel.name + "(" +
         params + ")";
}

// The kernel's function, declared before the stub's own code so that the entry can
// call it while the user's code comes after the entry.
void emit_user_declaration(const StubContext& context, const DialectEmitter& dialect) {
  SourceWriter& out = context.out();
  out.line(0, "namespace stubjit_user {");
  out.line(0, user_function(context, dialect) + ";");
  if (!context.request().kernel->filter.empty())
    out.line(0, filter_function(context, dialect) + ";");
  if (const Param* result = custom_result(context)) {
    out.line(0, combine_function(*result, dialect) + ";");
    out.line(0, identity_function(*result, dialect) + ";");
  }
  if (const Param* keys = custom_sort(context)) out.line(0, less_function(*keys, dialect) + ";");
  out.line(0, "}  // namespace stubjit_user");
  out.raw("\n");
}

// The helpers and the kernel's function with its body: the last thing in the stub.
// Whatever the user's code defines or #defines comes after the entry, the argument
// struct and every use of the prelude, so it cannot replace or rename them (a second
// entry is a redefinition, a specialization of a prelude template one after its use:
// compile errors).
void emit_user_code(const StubContext& context, const DialectEmitter& dialect,
                    const std::string& file_name) {
  SourceWriter& out = context.out();
  const KernelSource& kernel = *context.request().kernel;
  out.raw("\n");
  if (!kernel.helpers.empty()) {
    out.raw("#line 1 \"" + kernel.name + ".helpers\"\n");
    out.block(kernel.helpers);
    emit_line_reset(out, file_name);
  }
  out.line(0, "namespace stubjit_user {");
  if (!kernel.filter.empty()) {
    out.line(0, filter_function(context, dialect));
    out.line(0, "{");
    out.line(0, "  return (");
    out.raw("#line 1 \"" + kernel.name + ".filter\"\n");
    out.block(kernel.filter);
    emit_line_reset(out, file_name);
    out.line(0, "  );");
    out.line(0, "}");
  }
  if (const Param* result = custom_result(context)) {
    // Each expression in parentheses of its own, converted to the result's type.
    const std::string T = c_type(result->type);
    for (const auto& [function, part, text] :
         {std::tuple<std::string, const char*, const std::string*>{
              combine_function(*result, dialect), "combine", &result->combine},
          {identity_function(*result, dialect), "identity", &result->identity}}) {
      out.line(0, function);
      out.line(0, "{");
      out.line(0, "  return " + T + "((");
      out.raw("#line 1 \"" + kernel.name + "." + part + "\"\n");
      out.block(*text);
      emit_line_reset(out, file_name);
      out.line(0, "  ));");
      out.line(0, "}");
    }
  }
  if (const Param* keys = custom_sort(context)) {
    out.line(0, less_function(*keys, dialect));
    out.line(0, "{");
    out.line(0, "  return bool((");
    out.raw("#line 1 \"" + kernel.name + ".less\"\n");
    out.block(keys->less);
    emit_line_reset(out, file_name);
    out.line(0, "  ));");
    out.line(0, "}");
  }
  out.line(0, user_function(context, dialect));
  out.line(0, "{");
  out.raw("#line 1 \"" + kernel.name + ".body\"\n");
  out.block(kernel.body);
  emit_line_reset(out, file_name);
  out.line(0, "}");
  out.line(0, "}  // namespace stubjit_user");
}

// The packed arguments (bind/arg_layout.hpp): per parameter an 8-byte scalar slot (16
// for a complex<double>)
// (the value, alignas(8) so that each scalar has a slot of its own) or a field's data
// pointer, extents and strides, as plain members rather than a template per slot (a
// template instantiated per parameter is compile time a GPU stub pays on every cold
// compile). Every member is checked against the host's offsets and sizes.
void emit_args_struct(const StubContext& context) {
  SourceWriter& out = context.out();
  const StubRequest& request = context.request();
  const Signature& signature = request.kernel->signature;
  const ArgLayout layout = arg_layout(signature, request.bindings, request.rank);
  out.line(0, "// The packed arguments; the host computes the same layout.");
  out.line(0, "struct stubjit_args_t {");
  std::vector<std::string> checks;
  const auto check = [&](const std::string& member, std::size_t offset, std::size_t size) {
    checks.push_back("STUBJIT_CHECK_MEMBER(stubjit_args_t, " + member + ", " +
                     std::to_string(offset) + ", " + std::to_string(size) + ");");
  };
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const std::size_t offset = layout.offset[i];
    switch (request.bindings[i]) {
      case Binding::index:
        continue;
      case Binding::scalar:
        out.line(1, std::string("alignas(8) ") + c_type(p.type) + " " + p.name + ";");
        check(p.name, offset, size_of(p.type));
        break;
      case Binding::broadcast:
      case Binding::projection: {
        const int rank = actual_rank(p, request.bindings[i], request.rank);
        out.line(1, element_type(p) + "* " + p.name + ";");
        check(p.name, offset, 8);
        if (rank > 0) {
          const std::string r = std::to_string(rank);
          out.line(1, "stubjit::i64 " + extent_member(p) + "[" + r + "];");
          out.line(1, "stubjit::i64 " + stride_member(p) + "[" + r + "];");
          const std::size_t bytes = 8 * static_cast<std::size_t>(rank);
          check(extent_member(p), offset + 8, bytes);
          check(stride_member(p), offset + 8 + bytes, bytes);
        }
        break;
      }
    }
  }
  if (checks.empty()) out.line(1, "stubjit::i64 stubjit_unused;");
  std::size_t size = layout.size;
  if (combines_values(request.pattern)) {
    // After the arguments: the launch's reduce state (reduce.h).
    out.line(1, "stubjit::ReduceParams stubjit_reduce;");
    check("stubjit_reduce", layout.size, reduce_params_size);
    size += reduce_params_size;
  }
  if (sorts_values(request.pattern)) {
    // After the arguments: the launch's sort state (sort.h).
    out.line(1, "stubjit::SortParams stubjit_sort;");
    check("stubjit_sort", layout.size, sort_params_size);
    size += sort_params_size;
  }
  out.line(0, "};");
  out.line(0, "static_assert(sizeof(stubjit_args_t) == " + std::to_string(size) +
                  ", \"stubjit: argument layout mismatch\");");
  for (const std::string& line : checks) out.line(0, line);
  out.raw("\n");
}

// " tile 8x32" for a tiled stub.
std::string describe_tile(const StubRequest& request) {
  if (request.tile_rank == 0) return "";
  std::string text = " tile ";
  for (std::size_t d = 0; d < request.tile_rank && d < request.tile.size(); ++d)
    text += (d ? "x" : "") + std::to_string(request.tile[d]);
  return text;
}

// " of the whole domain", " along dimension 2" for a reduce or scan stub.
std::string describe_reduction(const StubRequest& request) {
  if (!works_along(request.pattern)) return "";
  return request.reduce_dimension < 0
             ? " of the whole domain"
             : " along dimension " + std::to_string(request.reduce_dimension);
}

std::string describe_bindings(const StubRequest& request) {
  std::string text;
  const Signature& signature = request.kernel->signature;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    text += (i ? " " : "") + signature[i].name + "=" + name_of(request.bindings[i]);
  }
  return text.empty() ? "(none)" : text;
}

}  // namespace

GeneratedStub generate_stub(const StubRequest& request) {
  if (request.index_bits != 32 && request.index_bits != 64) {
    throw Error("stub index width must be 32 or 64 bits, got " +
                std::to_string(request.index_bits));
  }
  const DialectEmitter* found = find_emitter(request.emitter);
  if (!found) throw Error("no stub emitter named '" + request.emitter + "'");
  const DialectEmitter& dialect = *found;
  if (request.index_bits != 64 && !dialect.supports_index32()) {
    throw Error(std::string("the ") + dialect.name() + " dialect generates 64-bit indices only");
  }
  GeneratedStub stub;
  stub.entry = entry_name(request);
  stub.file_name = stub.entry + dialect.file_extension();

  // The stub's own code first, after the three lines of its header comment (whose
  // last line names the prelude): the prelude is chosen by what this code names.
  constexpr std::size_t header_lines = 3;
  SourceWriter code(header_lines);
  StubContext context(request, code);
  dialect.emit_preamble(context);
  emit_user_declaration(context, dialect);
  if (!dialect.takes_values_one_by_one(request)) emit_args_struct(context);
  if (combines_values(request.pattern)) emit_reduce_functions(context, dialect);
  if (sorts_values(request.pattern)) emit_sort_functions(context, dialect);
  dialect.emit_entry(context);
  stub.parameters = context.entry_parameters();
  const std::vector<PreludeHeader> prelude = prelude_for(request, code.text());
  emit_user_code(context, dialect, stub.file_name);

  // Diagnostics name the prelude "stubjit_prelude.h" and count the stub's lines from
  // its own first line, whatever the prelude's length.
  SourceWriter out;
  out.restart_numbering("stubjit_prelude.h");
  std::string prelude_names;
  for (const PreludeHeader& header : prelude) {
    out.block(header.text);
    prelude_names += " " + std::string(header.name);
  }
  stub.stub_offset = out.size();
  out.restart_numbering(stub.file_name);
  out.line(0,
           "// stubjit stub for kernel '" + request.kernel->name + "': dialect " + dialect.name() +
               (request.pattern == Pattern::forall
                    ? ", mode " + std::string(name_of(request.mode))
                    : ", " + std::string(name_of(request.pattern)) + describe_tile(request) +
                          describe_reduction(request)) +
               ", rank " + std::to_string(request.rank) + ", index i" +
               std::to_string(request.index_bits) +
               (request.inner_count > 0 ? ", rows of " + std::to_string(request.inner_count)
                                        : std::string()) +
               (request.view_stride != 1 ? ", views' stride " + std::to_string(request.view_stride)
                                         : std::string()) +
               (request.dense ? ", dense" : ""));
  out.line(0, "// bindings: " + describe_bindings(request));
  out.line(0, "// prelude:" + prelude_names);
  out.raw(code.take());
  stub.source = out.take();
  check_user_code(*request.kernel, UserCodeRules{request.quoted_includes}, stub.source);
  return stub;
}

}  // namespace stubjit::detail
