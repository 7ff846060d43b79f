// The public face of the stub writer (stubjit/stub.hpp): checks what a caller may
// get wrong, then asks generate_stub, the same function a runtime uses.
#include "codegen/dialect.hpp"
#include "codegen/identifier.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"
#include "stubjit/runtime.hpp"
#include "stubjit/stub.hpp"
#include "support/enums.hpp"

namespace stubjit {
namespace {

const detail::DialectEmitter& dialect_named(const std::string& name) {
  if (const detail::DialectEmitter* emitter = detail::find_emitter(name)) return *emitter;
  std::string known;
  for (const detail::DialectEmitter* emitter : detail::emitters())
    known += (known.empty() ? "" : ", ") + std::string(emitter->name());
  throw Error("unknown dialect '" + name + "' (" + known + ")");
}

void check_binding(const Param& param, Binding binding, int domain_rank) {
  const std::string where = "parameter '" + param.name + "'";
  switch (param.kind) {
    case ParamKind::scalar:
      if (binding != Binding::scalar) throw Error(where + " is a scalar: its binding is scalar");
      return;
    case ParamKind::index:
    case ParamKind::tile_index:
    case ParamKind::local_index:
    case ParamKind::group:
    case ParamKind::shared:
      if (binding != Binding::index)
        throw Error(where + " takes no argument (" + to_string(param) + "): its binding is index");
      return;
    case ParamKind::field:
      if (binding != Binding::projection && binding != Binding::broadcast) {
        throw Error(where + " is a field: its binding is projection or broadcast");
      }
      if (param.mask && binding != Binding::projection)
        throw Error(where + " is a mask: its binding is projection");
      if (binding == Binding::projection && param.rank + domain_rank > max_field_rank) {
        throw Error(where + " projected over rank " + std::to_string(domain_rank) +
                    " needs a field of rank " + std::to_string(param.rank + domain_rank) +
                    " (at most " + std::to_string(max_field_rank) + ")");
      }
      return;
  }
}

// The dimension a reduce or scan stub combines along, in the stub's numbering: -1 for
// a result of rank 0 (the whole domain). Checked by check_pattern_options.
int pattern_dimension(const Param& result, const StubOptions& options) {
  if (!result.is_scan() && !result.is_sort() && result.rank == 0) return -1;
  return options.reduce_dimension < 0 ? options.rank - 1 : options.reduce_dimension;
}

// The options of a reduce or scan kernel's stub, and none of them elsewhere.
void check_pattern_options(const KernelSource& kernel, const StubOptions& options,
                           const detail::DialectEmitter& dialect) {
  const Param* result = detail::result_param(kernel);
  if (!result) {
    if (options.scan_partials)
      throw Error("kernel '" + kernel.name + "' is no scan kernel: it has no partials stage");
    if (options.sort_merge)
      throw Error("kernel '" + kernel.name + "' is no sort kernel: it has no merge stage");
    if (options.reduce_dimension != -1)
      throw Error("kernel '" + kernel.name +
                  "' is no reduce, scan or sort kernel: it works along no dimension");
    return;
  }
  const std::string what = result->is_sort() ? "sort" : result->is_scan() ? "scan" : "reduce";
  if (options.scan_partials && !result->is_scan())
    throw Error("kernel '" + kernel.name + "' is a " + what + " kernel: it has no partials stage");
  if (options.sort_merge && !result->is_sort())
    throw Error("kernel '" + kernel.name + "' is a " + what + " kernel: it has no merge stage");
  if (options.scan_partials && dialect.takes_group_constants())
    throw Error("a scan of the " + std::string(dialect.name()) +
                " dialect runs in one pass: it has no partials stage (kernel '" + kernel.name +
                "')");
  if (options.tile.rank > 0 || options.rows != 0 || options.dense || options.view_stride != 1)
    throw Error("tiles, rows, view strides and the dense variant are not for " + what +
                " stubs (kernel '" + kernel.name + "')");
  if (dialect.takes_group_constants() && options.warp_size == 0)
    throw Error("a " + what + " stub of the " + std::string(dialect.name()) +
                " dialect needs a warp size");
  // A result of rank 0 takes the whole domain whatever the dimension says (as a launch).
  const bool along = result->is_scan() || result->is_sort() || result->rank > 0;
  if (along && (options.reduce_dimension < -1 || options.reduce_dimension >= options.rank)) {
    throw Error("a " + what + " stub along dimension " + std::to_string(options.reduce_dimension) +
                " of a rank-" + std::to_string(options.rank) + " domain (0 to " +
                std::to_string(options.rank - 1) + ", or -1 for the last)");
  }
  for (std::size_t i = 0; i < kernel.signature.size() && i < options.bindings.size(); ++i) {
    const Param& param = kernel.signature[i];
    if (&param != result && !param.payload) continue;
    const Binding needed =
        result->is_scan() || result->is_sort() ? Binding::projection : Binding::broadcast;
    if (options.bindings[i] != needed)
      throw Error(std::string(param.payload ? "payload" : what.c_str()) + " parameter '" +
                  param.name + "' must be bound as " + name_of(needed) + " (got " +
                  name_of(options.bindings[i]) + ")");
  }
  if (!result->is_scan() && !result->is_sort() && result->rank > 0 &&
      result->rank != options.rank - 1) {
    throw Error("result '" + result->name + "' of kernel '" + kernel.name + "' has rank " +
                std::to_string(result->rank) + "; over a rank-" + std::to_string(options.rank) +
                " domain a result has rank 0 or " + std::to_string(options.rank - 1));
  }
}

void check_options(const KernelSource& kernel, const StubOptions& options,
                   const detail::DialectEmitter& dialect) {
  if (!detail::is_valid(options.mode)) {
    throw Error("mode " + detail::number_of(options.mode) +
                " is no Mode (direct, spread or multi)");
  }
  if (options.rank < 1 || options.rank > max_field_rank) {
    throw Error("rank " + std::to_string(options.rank) + ": a compute domain has rank 1 to " +
                std::to_string(max_field_rank));
  }
  // Group, reduce and scan stubs number their groups whatever the mode says.
  const bool takes_mode = !detail::is_group_kernel(kernel) && !detail::result_param(kernel);
  if (takes_mode && options.mode == Mode::direct && options.rank > 3) {
    throw Error("mode direct covers rank 1 to 3; use spread or multi for rank " +
                std::to_string(options.rank));
  }
  if (options.index_bits != 32 && options.index_bits != 64) {
    throw Error("index width " + std::to_string(options.index_bits) + ": 32 or 64");
  }
  if (!dialect.takes_group_constants() && (options.launch_bounds != 0 || options.warp_size != 0)) {
    throw Error(std::string("launch bounds and warp size are for the GPU dialects, not ") +
                dialect.name());
  }
  if (options.rows != 0) {
    if (!dialect.takes_short_rows()) {
      throw Error(std::string("rows of a given length are for the cpp dialect, not ") +
                  dialect.name());
    }
    if (options.rank < 2) {
      throw Error("rows of a given length need a domain of rank 2 or more (this one: " +
                  std::to_string(options.rank) + ")");
    }
    if (options.rows < 1 || options.rows > max_short_row) {
      throw Error("rows of " + std::to_string(options.rows) +
                  ": a CPU runtime compiles in lengths 1 to " + std::to_string(max_short_row));
    }
  }
  if (options.view_stride != 1 && !dialect.takes_short_rows()) {
    throw Error(std::string("a view stride is compiled in by the cpp dialect, not ") +
                dialect.name());
  }
  if (options.view_stride < 1 || options.view_stride > max_view_stride) {
    throw Error("view stride " + std::to_string(options.view_stride) +
                ": a CPU runtime compiles in strides 2 to " + std::to_string(max_view_stride) +
                " (1: none)");
  }
  if (options.dense && !dialect.takes_group_constants()) {
    throw Error(std::string("the dense variant is for the GPU dialects, not ") + dialect.name());
  }
  const bool group = detail::is_group_kernel(kernel);
  check_pattern_options(kernel, options, dialect);
  if (options.tile.rank > 0 || group) {
    if (options.rows != 0 || options.dense || options.view_stride != 1) {
      throw Error("rows, view strides and the dense variant are for per-element stubs, not " +
                  std::string(group ? "group" : "tiled") + " ones");
    }
    if (dialect.takes_group_constants() && options.warp_size == 0) {
      throw Error(std::string("a ") + (group ? "group" : "tiled") + " stub of the " +
                  dialect.name() + " dialect needs a warp size");
    }
  }
  if (options.tile.rank > 0) {
    if (group) throw Error("kernel '" + kernel.name + "' is a group kernel: it takes no tile");
    if (options.tile.rank > options.rank) {
      throw Error("a tile of rank " + std::to_string(options.tile.rank) +
                  " over a domain of rank " + std::to_string(options.rank) +
                  "; a tile's rank is at most the domain's");
    }
    unsigned long long elements = 1;
    for (int d = 0; d < options.tile.rank; ++d) {
      const unsigned long long extent = options.tile.extents[static_cast<std::size_t>(d)];
      if (extent == 0) throw Error("tile extent " + std::to_string(d) + " is 0");
      elements = elements > (1ULL << 31) ? elements : elements * extent;
    }
    if (elements > (1ULL << 31))
      throw Error("a tile of more than 2^31 elements (a GPU stub counts them in 32 bits)");
  } else {
    for (const Param& param : kernel.signature) {
      if (param.kind == ParamKind::tile_index || param.kind == ParamKind::local_index) {
        throw Error("parameter '" + param.name + "' is a " + to_string(param) +
                    " token: its stub needs a tile (StubOptions::tile)");
      }
    }
  }
  if (options.bindings.size() != kernel.signature.size()) {
    throw Error("kernel '" + kernel.name + "' has " + std::to_string(kernel.signature.size()) +
                " parameters but " + std::to_string(options.bindings.size()) +
                " bindings were given");
  }
  for (std::size_t i = 0; i < options.bindings.size(); ++i)
    check_binding(kernel.signature[i], options.bindings[i], options.rank);
  if (options.view_stride != 1) {
    bool has_view = false;
    for (std::size_t i = 0; i < options.bindings.size(); ++i)
      has_view |= options.bindings[i] == Binding::broadcast && kernel.signature[i].rank > 0;
    if (!has_view) {
      throw Error("a view stride is compiled in for broadcast views of rank 1 or more; kernel '" +
                  kernel.name + "' has none");
    }
  }
}

}  // namespace

StubSource generate_stub_source(const KernelSource& kernel, const StubOptions& options) {
  detail::validate_kernel_source(kernel);
  const detail::DialectEmitter& dialect = dialect_named(options.dialect);
  check_options(kernel, options, dialect);
  detail::StubRequest request;
  request.emitter = dialect.name();
  request.mode = options.mode;
  request.rank = options.rank;
  request.index_bits = options.index_bits;
  request.kernel = &kernel;
  request.bindings = options.bindings;
  request.max_threads_per_group = options.launch_bounds;
  request.warp_size = options.warp_size;
  request.quoted_includes = options.quoted_includes;
  request.inner_count = options.rows;
  request.view_stride = options.view_stride;
  request.dense = options.dense;
  if (const Param* result = detail::result_param(kernel)) {
    // As a reduce or scan launch asks for it (runtime/reduce_launch.cpp).
    request.mode = Mode::spread;
    request.reduce_dimension = static_cast<std::int8_t>(pattern_dimension(*result, options));
    if (result->is_sort()) {
      request.pattern =
          options.sort_merge ? detail::Pattern::sort_merge : detail::Pattern::sort_runs;
    } else {
      request.pattern = !result->is_scan()      ? detail::Pattern::reduce
                        : options.scan_partials ? detail::Pattern::scan_partials
                                                : detail::Pattern::scan;
    }
  } else if (detail::is_group_kernel(kernel)) {
    request.pattern = detail::Pattern::group;
  } else if (options.tile.rank > 0) {
    request.pattern = detail::Pattern::tiled;
    request.tile_rank = options.tile.rank;
    request.tile = options.tile.extents;
  }
  detail::GeneratedStub stub = detail::generate_stub(request);
  return {std::move(stub.source), std::move(stub.entry), std::move(stub.file_name),
          stub.stub_offset};
}

std::vector<StubDialect> stub_dialects() {
  std::vector<StubDialect> dialects;
  for (const detail::DialectEmitter* emitter : detail::emitters())
    dialects.push_back(
        {emitter->name(), emitter->takes_group_constants(), emitter->default_warp_size()});
  return dialects;
}

}  // namespace stubjit
