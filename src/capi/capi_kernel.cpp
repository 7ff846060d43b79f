// The C API's kernels: a KernelSource from C structs, and launches, prepares and plans
// from C arguments.
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/capi_handles.hpp"
#include "stubjit/error.hpp"
#include "stubjit/half.hpp"

using namespace stubjit::capi;

namespace {

using stubjit::Arg;
using stubjit::ElementType;

stubjit::ParamKind param_kind(stubjit_param_kind kind) {
  switch (static_cast<int>(kind)) {
    case STUBJIT_PARAM_SCALAR:
      return stubjit::ParamKind::scalar;
    case STUBJIT_PARAM_FIELD:
      return stubjit::ParamKind::field;
    case STUBJIT_PARAM_INDEX:
      return stubjit::ParamKind::index;
    case STUBJIT_PARAM_TILE_INDEX:
      return stubjit::ParamKind::tile_index;
    case STUBJIT_PARAM_LOCAL_INDEX:
      return stubjit::ParamKind::local_index;
    case STUBJIT_PARAM_GROUP:
      return stubjit::ParamKind::group;
    case STUBJIT_PARAM_SHARED:
      return stubjit::ParamKind::shared;
  }
  throw InvalidArgument{"unknown stubjit_param_kind " + std::to_string(static_cast<int>(kind))};
}

stubjit::Combiner combiner(stubjit_combiner c) {
  if (static_cast<int>(c) < STUBJIT_COMBINE_NONE || static_cast<int>(c) > STUBJIT_COMBINE_CUSTOM)
    throw InvalidArgument{"unknown stubjit_combiner " + std::to_string(static_cast<int>(c))};
  // The C values follow stubjit::Combiner's order (none, sum, ..., custom).
  return static_cast<stubjit::Combiner>(static_cast<int>(c));
}

stubjit::Param param(const stubjit_param& c, std::size_t position) {
  if (c.name == nullptr)
    throw InvalidArgument{"parameter " + std::to_string(position) + " has a NULL name"};
  stubjit::Param p;
  p.kind = param_kind(c.kind);
  p.name = c.name;
  p.type = element_type(c.type);
  p.rank = c.rank;
  if (static_cast<int>(c.access) != STUBJIT_READ_ONLY &&
      static_cast<int>(c.access) != STUBJIT_READ_WRITE)
    throw InvalidArgument{"parameter " + p.name + ": unknown stubjit_access"};
  p.access =
      c.access == STUBJIT_READ_WRITE ? stubjit::Access::read_write : stubjit::Access::read_only;
  p.specialized = c.specialized != 0;
  p.mask = c.mask != 0;
  if (c.extent_count > 0 && c.extents == nullptr)
    throw InvalidArgument{"parameter " + p.name + ": extents is NULL"};
  for (std::size_t e = 0; e < c.extent_count; ++e) {
    if (c.extents[e] == nullptr) throw InvalidArgument{"parameter " + p.name + ": a NULL extent"};
    p.extents.emplace_back(c.extents[e]);
  }
  if (p.kind == stubjit::ParamKind::shared) p.rank = static_cast<int>(p.extents.size());
  p.combiner = combiner(c.combiner);
  p.combine = text(c.combine);
  p.identity = text(c.identity);
  switch (static_cast<int>(c.scan)) {
    case STUBJIT_SCAN_NONE:
      p.scan = stubjit::ScanKind::none;
      break;
    case STUBJIT_SCAN_INCLUSIVE:
      p.scan = stubjit::ScanKind::inclusive;
      break;
    case STUBJIT_SCAN_EXCLUSIVE:
      p.scan = stubjit::ScanKind::exclusive;
      break;
    default:
      throw InvalidArgument{"parameter " + p.name + ": unknown stubjit_scan_kind"};
  }
  switch (static_cast<int>(c.sort)) {
    case STUBJIT_SORT_NONE:
      p.sort = stubjit::SortOrder::none;
      break;
    case STUBJIT_SORT_ASCENDING:
      p.sort = stubjit::SortOrder::ascending;
      break;
    case STUBJIT_SORT_DESCENDING:
      p.sort = stubjit::SortOrder::descending;
      break;
    case STUBJIT_SORT_CUSTOM:
      p.sort = stubjit::SortOrder::custom;
      break;
    default:
      throw InvalidArgument{"parameter " + p.name + ": unknown stubjit_sort_order"};
  }
  p.less = text(c.less);
  p.payload = c.payload != 0;
  return p;
}

stubjit::KernelSource kernel_source(const stubjit_kernel_source& c) {
  if (c.struct_size < offsetof(stubjit_kernel_source, body) + sizeof(c.body) ||
      c.param_size < offsetof(stubjit_param, rank) + sizeof(int))
    throw InvalidArgument{
        "stubjit_kernel_source.struct_size or param_size is too small: call "
        "stubjit_kernel_source_init first"};
  if (c.name == nullptr) throw InvalidArgument{"the kernel's name is NULL"};
  if (c.body == nullptr) throw InvalidArgument{"the kernel's body is NULL"};
  if (c.param_count > 0 && c.params == nullptr) throw InvalidArgument{"params is NULL"};
  stubjit::KernelSource source;
  source.name = c.name;
  source.body = c.body;
  // The caller's stride: a build of the header whose stubjit_param is shorter than
  // this library's leaves the later members zero (their defaults).
  const auto* bytes = reinterpret_cast<const unsigned char*>(c.params);
  for (std::size_t i = 0; i < c.param_count; ++i) {
    stubjit_param one{};
    std::memcpy(&one, bytes + i * c.param_size, std::min(c.param_size, sizeof(stubjit_param)));
    source.signature.push_back(param(one, i));
  }
  if (has_member(c, c.helpers)) source.helpers = text(c.helpers);
  if (has_member(c, c.filter)) source.filter = text(c.filter);
  if (has_member(c, c.max_threads)) source.block.max_threads = c.max_threads;
  if (has_member(c, c.block_shape))
    for (int d = 0; d < 3; ++d) source.block.shape[static_cast<std::size_t>(d)] = c.block_shape[d];
  if (has_member(c, c.specialize)) {
    if (static_cast<int>(c.specialize) != STUBJIT_SPECIALIZE_AT_LAUNCH &&
        static_cast<int>(c.specialize) != STUBJIT_SPECIALIZE_BACKGROUND)
      throw InvalidArgument{"unknown stubjit_specialize"};
    source.specialize = c.specialize == STUBJIT_SPECIALIZE_BACKGROUND
                            ? stubjit::Specialize::background
                            : stubjit::Specialize::at_launch;
  }
  return source;
}

Arg scalar_arg(const stubjit_arg& c) {
  const auto& v = c.value;
  switch (element_type(c.type)) {
    case ElementType::f32:
      return Arg(v.f32);
    case ElementType::f64:
      return Arg(v.f64);
    case ElementType::i32:
      return Arg(v.i32);
    case ElementType::i64:
      return Arg(v.i64);
    case ElementType::u32:
      return Arg(v.u32);
    case ElementType::i8:
      return Arg(v.i8);
    case ElementType::u8:
      return Arg(v.u8);
    case ElementType::i16:
      return Arg(v.i16);
    case ElementType::u16:
      return Arg(v.u16);
    case ElementType::u64:
      return Arg(v.u64);
    case ElementType::boolean:
      return Arg(v.boolean != 0);
    case ElementType::float16:
      return Arg(stubjit::float16::from_bits(v.u16));
    case ElementType::bfloat16:
      return Arg(stubjit::bfloat16::from_bits(v.u16));
    case ElementType::complex_f32:
      return Arg(std::complex<float>(v.complex_f32[0], v.complex_f32[1]));
    case ElementType::complex_f64:
      return Arg(std::complex<double>(v.complex_f64[0], v.complex_f64[1]));
  }
  throw InvalidArgument{"unknown stubjit_type"};
}

std::vector<Arg> args_of(const stubjit_arg* args, std::size_t count) {
  if (count > 0 && args == nullptr) throw InvalidArgument{"args is NULL"};
  std::vector<Arg> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (static_cast<int>(args[i].kind) == STUBJIT_ARG_FIELD) {
      if (args[i].field == nullptr)
        throw InvalidArgument{"argument " + std::to_string(i) + " is a NULL field"};
      out.emplace_back(args[i].field->field);
    } else if (static_cast<int>(args[i].kind) == STUBJIT_ARG_SCALAR) {
      out.push_back(scalar_arg(args[i]));
    } else {
      throw InvalidArgument{"argument " + std::to_string(i) + ": unknown stubjit_arg_kind"};
    }
  }
  return out;
}

stubjit::LaunchOptions launch_options(const stubjit_launch_options* c) {
  stubjit::LaunchOptions o;
  if (c == nullptr) return o;
  if (c->struct_size < offsetof(stubjit_launch_options, mode) + sizeof(c->mode))
    throw InvalidArgument{
        "stubjit_launch_options.struct_size is too small: call "
        "stubjit_launch_options_init first"};
  o.mode = forced_mode(c->mode);
  if (has_member(*c, c->stream) && c->stream != nullptr) o.stream = &c->stream->stream;
  if (has_member(*c, c->group_size)) o.group_size = c->group_size;
  if (has_member(*c, c->tile_extents) && c->tile_rank != 0) {
    if (c->tile_rank < 0 || c->tile_rank > 8)
      throw InvalidArgument{"tile_rank is 0 to 8, not " + std::to_string(c->tile_rank)};
    o.tile.rank = static_cast<std::uint8_t>(c->tile_rank);
    for (int d = 0; d < c->tile_rank; ++d)
      o.tile.extents[static_cast<std::size_t>(d)] = c->tile_extents[d];
  }
  if (has_member(*c, c->reduce_dimension)) o.reduce_dimension = c->reduce_dimension;
  if (has_member(*c, c->reduce_assign))
    o.reduce_update =
        c->reduce_assign != 0 ? stubjit::ReduceUpdate::assign : stubjit::ReduceUpdate::combine;
  return o;
}

// The summary structs the library fills: only as much as the caller's holds.
template <class Summary>
void write_back(const Summary& full, Summary* out) {
  std::memcpy(out, &full, std::min(out->struct_size, sizeof full));
}

void write_summary(const stubjit::LaunchSummary& s, stubjit_launch_summary* out) {
  if (out == nullptr) return;
  stubjit_launch_summary full{};
  full.struct_size = out->struct_size;
  full.mode = c_mode(s.mode);
  full.rank = s.rank;
  full.dispatches = s.dispatches;
  full.compiled = s.compiled ? 1 : 0;
  full.generic = s.generic ? 1 : 0;
  full.group_size = s.group_size;
  full.shared_bytes = s.shared_bytes;
  full.reduce_parts = s.reduce_parts;
  write_back(full, out);
}

template <class Summary>
void check_summary(const Summary* summary, const char* what) {
  if (summary != nullptr && summary->struct_size < sizeof(std::size_t))
    throw InvalidArgument{std::string(what) + ".struct_size is not set (sizeof)"};
}

// What every launch-like call resolves first: the kernel, the domain, the options and the
// arguments, each checked.
struct Call {
  stubjit::Kernel& kernel;
  const stubjit::Domain& domain;
  stubjit::LaunchOptions options;
  std::vector<Arg> args;
};

Call call_of(stubjit_kernel kernel, const stubjit_launch_options* options, stubjit_domain domain,
             const stubjit_arg* args, std::size_t count) {
  return Call{require(kernel, "kernel").kernel, require(domain, "domain").domain,
              launch_options(options), args_of(args, count)};
}

}  // namespace

extern "C" {

void stubjit_kernel_source_init_sized(stubjit_kernel_source* source, size_t size,
                                      size_t param_size) {
  stubjit_kernel_source defaults{};
  defaults.param_size = param_size;
  init_prefix(source, size, defaults);
}

void stubjit_repeat_options_init_sized(stubjit_repeat_options* options, size_t size) {
  stubjit_repeat_options defaults{};
  defaults.max_iterations = stubjit::RepeatOptions{}.max_iterations;
  init_prefix(options, size, defaults);
}

void stubjit_launch_options_init_sized(stubjit_launch_options* options, size_t size) {
  stubjit_launch_options defaults{};
  defaults.mode = STUBJIT_MODE_AUTO;
  defaults.reduce_dimension = -1;
  init_prefix(options, size, defaults);
}

stubjit_status stubjit_kernel_create(stubjit_runtime runtime, const stubjit_kernel_source* source,
                                     stubjit_kernel* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    stubjit_runtime_s& owner = require(runtime, "runtime");
    stubjit::Kernel kernel = owner.runtime.kernel(kernel_source(require(source, "source")));
    *out = std::make_unique<stubjit_kernel_s>(stubjit_kernel_s{std::move(kernel)}).release();
  });
}

void stubjit_kernel_destroy(stubjit_kernel kernel) { release(kernel); }

const char* stubjit_kernel_name(stubjit_kernel kernel) {
  try {
    return kernel == nullptr ? "" : kernel->kernel.name().c_str();
  } catch (...) {  // a handle with no kernel behind it
    return "";
  }
}

stubjit_status stubjit_kernel_launch(stubjit_kernel kernel, const stubjit_launch_options* options,
                                     stubjit_domain domain, const stubjit_arg* args,
                                     size_t arg_count, stubjit_launch_summary* summary) {
  return guarded([&] {
    check_summary(summary, "stubjit_launch_summary");
    Call c = call_of(kernel, options, domain, args, arg_count);
    write_summary(c.kernel.launch_args(c.domain, c.args.data(), c.args.size(), c.options), summary);
  });
}

stubjit_status stubjit_kernel_prepare(stubjit_kernel kernel, const stubjit_launch_options* options,
                                      stubjit_domain domain, const stubjit_arg* args,
                                      size_t arg_count, stubjit_launch_summary* summary) {
  return guarded([&] {
    check_summary(summary, "stubjit_launch_summary");
    Call c = call_of(kernel, options, domain, args, arg_count);
    write_summary(c.kernel.prepare_args(c.domain, c.args.data(), c.args.size(), c.options),
                  summary);
  });
}

stubjit_status stubjit_kernel_plan(stubjit_kernel kernel, stubjit_domain domain,
                                   stubjit_mode forced, stubjit_plan_summary* out) {
  return guarded([&] {
    require_out(out, "out");
    check_summary(out, "stubjit_plan_summary");
    const stubjit::Plan plan =
        require(kernel, "kernel")
            .kernel.plan(require(domain, "domain").domain, forced_mode(forced));
    stubjit_plan_summary full{};
    full.struct_size = out->struct_size;
    full.mode = c_mode(plan.mode);
    full.rank = plan.rank;
    for (int d = 0; d < 3; ++d) full.block[d] = plan.block[static_cast<std::size_t>(d)];
    full.dispatches = plan.dispatches.size();
    write_back(full, out);
  });
}

stubjit_status stubjit_kernel_stub_source(stubjit_kernel kernel,
                                          const stubjit_launch_options* options,
                                          stubjit_domain domain, const stubjit_arg* args,
                                          size_t arg_count, char* buffer, size_t buffer_size,
                                          size_t* length) {
  return guarded([&] {
    require_out(length, "length");
    const Call c = call_of(kernel, options, domain, args, arg_count);
    const std::string source = c.kernel.stub_source(c.domain, c.args, c.options);
    *length = source.size();
    if (buffer != nullptr && buffer_size > 0) {
      const std::size_t n = std::min(buffer_size - 1, source.size());
      std::memcpy(buffer, source.data(), n);
      buffer[n] = '\0';
    }
  });
}

stubjit_status stubjit_kernel_reduce(stubjit_kernel kernel, const stubjit_launch_options* options,
                                     stubjit_domain domain, const stubjit_arg* args,
                                     size_t arg_count, stubjit_type type, void* value,
                                     stubjit_launch_summary* summary) {
  return guarded([&] {
    check_summary(summary, "stubjit_launch_summary");
    require_out(value, "value");
    Call c = call_of(kernel, options, domain, args, arg_count);
    write_summary(c.kernel.reduce_args(c.domain, c.args.data(), c.args.size(), c.options,
                                       element_type(type), value),
                  summary);
  });
}

stubjit_status stubjit_kernel_repeat(stubjit_kernel kernel, const stubjit_repeat_options* options,
                                     stubjit_domain domain, const stubjit_arg* args,
                                     size_t arg_count, stubjit_repeat_summary* summary) {
  return guarded([&] {
    check_summary(summary, "stubjit_repeat_summary");
    stubjit::Kernel& k = require(kernel, "kernel").kernel;
    const stubjit::Domain& d = require(domain, "domain").domain;
    stubjit::RepeatOptions o;
    if (options != nullptr) {
      if (options->struct_size < offsetof(stubjit_repeat_options, swap_count) + sizeof(size_t))
        throw InvalidArgument{
            "stubjit_repeat_options.struct_size is too small: call "
            "stubjit_repeat_options_init first"};
      o.launch = launch_options(options->launch);
      o.max_iterations = options->max_iterations;
      if (options->swap_count > 0 && options->swaps == nullptr)
        throw InvalidArgument{"swaps is NULL"};
      for (std::size_t i = 0; i < options->swap_count; ++i)
        o.swaps.emplace_back(require(options->swaps[i].first, "a swap's first field").field,
                             require(options->swaps[i].second, "a swap's second field").field);
    }
    const std::vector<Arg> packed = args_of(args, arg_count);
    const stubjit::RepeatSummary r = k.repeat_args(d, packed.data(), packed.size(), o);
    if (summary == nullptr) return;
    stubjit_repeat_summary full{};
    full.struct_size = summary->struct_size;
    full.iterations = r.iterations;
    full.converged = r.converged ? 1 : 0;
    full.swapped = r.swapped ? 1 : 0;
    full.compiled = r.compiled ? 1 : 0;
    write_back(full, summary);
  });
}

stubjit_status stubjit_kernel_binary(stubjit_kernel kernel, const stubjit_launch_options* options,
                                     stubjit_domain domain, const stubjit_arg* args,
                                     size_t arg_count, stubjit_binary* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    Call c = call_of(kernel, options, domain, args, arg_count);
    stubjit::StubBinary binary = c.kernel.binary(c.domain, c.args, c.options);
    *out = std::make_unique<stubjit_binary_s>(stubjit_binary_s{std::move(binary)}).release();
  });
}

void stubjit_binary_destroy(stubjit_binary binary) { release(binary); }

const void* stubjit_binary_bytes(stubjit_binary binary, size_t* size) {
  if (size != nullptr) *size = binary == nullptr ? 0 : binary->binary.bytes.size();
  return binary == nullptr ? nullptr : binary->binary.bytes.data();
}
const char* stubjit_binary_format(stubjit_binary binary) {
  return binary == nullptr ? "" : binary->binary.format.c_str();
}
const char* stubjit_binary_target(stubjit_binary binary) {
  return binary == nullptr ? "" : binary->binary.target.c_str();
}
const char* stubjit_binary_entry(stubjit_binary binary) {
  return binary == nullptr ? "" : binary->binary.entry.c_str();
}
const char* stubjit_binary_cache_name(stubjit_binary binary) {
  return binary == nullptr ? "" : binary->binary.cache_name.c_str();
}

}  // extern "C"
