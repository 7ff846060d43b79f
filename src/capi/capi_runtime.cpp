// The C API's runtimes, domains, fields and streams: each a C++ object behind a handle.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/capi_handles.hpp"
#include "stubjit/error.hpp"

using namespace stubjit::capi;
using stubjit::Field;

namespace {

std::vector<std::string> strings(const char* const* list, std::size_t count, const char* what) {
  if (count > 0 && list == nullptr) throw InvalidArgument{std::string(what) + " is NULL"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (list[i] == nullptr) throw InvalidArgument{std::string(what) + " holds a NULL string"};
    out.emplace_back(list[i]);
  }
  return out;
}

stubjit::RuntimeOptions runtime_options(const stubjit_runtime_options& c) {
  if (c.struct_size < offsetof(stubjit_runtime_options, device) + sizeof(int))
    throw InvalidArgument{"stubjit_runtime_options.struct_size is " +
                          std::to_string(c.struct_size) +
                          ": call stubjit_runtime_options_init first"};
  stubjit::RuntimeOptions o;
  o.backend = text(c.backend);
  o.target = text(c.target);
  o.device = c.device;
  if (has_member(c, c.cache_dir)) o.cache_dir = text(c.cache_dir);
  if (has_member(c, c.disk_cache)) o.disk_cache = c.disk_cache != 0;
  if (has_member(c, c.cache_max_bytes)) o.cache_max_bytes = c.cache_max_bytes;
  if (has_member(c, c.compile_timeout_ms) && c.compile_timeout_ms >= 0)
    o.compile_timeout = std::chrono::milliseconds(c.compile_timeout_ms);
  if (has_member(c, c.memory_cache_stubs) && c.memory_cache_stubs >= 0)
    o.memory_cache_stubs = static_cast<std::size_t>(c.memory_cache_stubs);
  if (has_member(c, c.cpu_threads)) o.cpu_threads = c.cpu_threads;
  if (has_member(c, c.fuse_dimensions)) o.fuse_dimensions = c.fuse_dimensions != 0;
  if (has_member(c, c.specialize_short_rows))
    o.specialize_short_rows = c.specialize_short_rows != 0;
  if (has_member(c, c.dump_dir)) o.dump_dir = text(c.dump_dir);
  if (has_member(c, c.compiler_option_count))
    o.compiler_options = strings(c.compiler_options, c.compiler_option_count, "compiler_options");
  if (has_member(c, c.include_directory_count))
    o.include_directories =
        strings(c.include_directories, c.include_directory_count, "include_directories");
  if (has_member(c, c.max_direct_pieces) && c.max_direct_pieces != 0)
    o.policy.max_direct_pieces = c.max_direct_pieces;
  if (has_member(c, c.max_dispatches) && c.max_dispatches != 0)
    o.policy.max_dispatches = c.max_dispatches;
  if (has_member(c, c.limits) && c.limits != nullptr) {
    stubjit::DeviceLimits l;
    for (std::size_t d = 0; d < 3; ++d) {
      l.max_grid[d] = c.limits->max_grid[d];
      l.max_block[d] = c.limits->max_block[d];
    }
    l.max_threads_per_block = c.limits->max_threads_per_block;
    l.max_threads_per_dim = c.limits->max_threads_per_dim;
    l.warp_size = c.limits->warp_size;
    l.max_shared_bytes = c.limits->max_shared_bytes;
    o.limits = l;
  }
  if (has_member(c, c.cache_layer_count))
    o.cache_layers = strings(c.cache_layers, c.cache_layer_count, "cache_layers");
  return o;
}

std::vector<std::int64_t> extents_of(int rank, const std::int64_t* extents) {
  if (rank < 0 || rank > stubjit::max_field_rank)
    throw InvalidArgument{"a field's rank is 0 to " + std::to_string(stubjit::max_field_rank) +
                          ", not " + std::to_string(rank)};
  if (rank > 0 && extents == nullptr) throw InvalidArgument{"extents is NULL"};
  return std::vector<std::int64_t>(extents, extents + rank);
}

// Dense strides, in elements, of `extents` in `layout`.
std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& extents,
                                        stubjit::Layout layout) {
  std::vector<std::int64_t> strides(extents.size(), 1);
  std::int64_t step = 1;
  const auto n = static_cast<int>(extents.size());
  for (int k = 0; k < n; ++k) {
    const int d = layout == stubjit::Layout::row_major ? n - 1 - k : k;
    strides[static_cast<std::size_t>(d)] = step;
    step *= std::max<std::int64_t>(extents[static_cast<std::size_t>(d)], 1);
  }
  return strides;
}

void check_domain_rank(int rank) {
  if (rank < 0 || rank > stubjit::Domain::max_rank)
    throw stubjit::DomainError(-1, "a domain's rank is 0 to " +
                                       std::to_string(stubjit::Domain::max_rank) + ", not " +
                                       std::to_string(rank));
}

template <class Make>
stubjit_status new_field(stubjit_field* out, Make&& make) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    *out = std::make_unique<stubjit_field_s>(stubjit_field_s{make()}).release();
  });
}

}  // namespace

extern "C" {

void stubjit_runtime_options_init_sized(stubjit_runtime_options* options, size_t size) {
  stubjit_runtime_options defaults{};
  defaults.disk_cache = 1;
  defaults.compile_timeout_ms = -1;
  defaults.memory_cache_stubs = -1;
  defaults.fuse_dimensions = 1;
  defaults.specialize_short_rows = 1;
  init_prefix(options, size, defaults);
}

stubjit_status stubjit_runtime_create(const stubjit_runtime_options* options,
                                      stubjit_runtime* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    stubjit_runtime_options defaults;
    stubjit_runtime_options_init(&defaults);
    auto handle = std::make_unique<stubjit_runtime_s>(
        stubjit::Runtime(runtime_options(options != nullptr ? *options : defaults)));
    handle->backend = handle->runtime.backend_name();
    handle->target = handle->runtime.target_id();
    handle->compiler = handle->runtime.compiler_id();
    *out = handle.release();
  });
}

void stubjit_runtime_destroy(stubjit_runtime runtime) { release(runtime); }

const char* stubjit_runtime_backend(stubjit_runtime runtime) {
  return runtime == nullptr ? "" : runtime->backend.c_str();
}
const char* stubjit_runtime_target(stubjit_runtime runtime) {
  return runtime == nullptr ? "" : runtime->target.c_str();
}
const char* stubjit_runtime_compiler(stubjit_runtime runtime) {
  return runtime == nullptr ? "" : runtime->compiler.c_str();
}
const char* stubjit_runtime_cache_dir(stubjit_runtime runtime) {
  if (runtime == nullptr) return "";
  try {
    std::call_once(runtime->cache_dir_once,
                   [&] { runtime->cache_dir = runtime->runtime.cache_dir(); });
  } catch (...) {  // the flag stays unset: a later call asks again
    return "";
  }
  return runtime->cache_dir.c_str();
}

stubjit_status stubjit_runtime_synchronize(stubjit_runtime runtime) {
  return guarded([&] { require(runtime, "runtime").runtime.synchronize(); });
}

stubjit_status stubjit_runtime_limits(stubjit_runtime runtime, stubjit_device_limits* out) {
  return guarded([&] {
    require_out(out, "out");
    const stubjit::DeviceLimits& l = require(runtime, "runtime").runtime.limits();
    *out = stubjit_device_limits{};
    for (int d = 0; d < 3; ++d) {
      out->max_grid[d] = l.max_grid[static_cast<std::size_t>(d)];
      out->max_block[d] = l.max_block[static_cast<std::size_t>(d)];
    }
    out->max_threads_per_block = l.max_threads_per_block;
    out->max_threads_per_dim = l.max_threads_per_dim;
    out->warp_size = l.warp_size;
    out->max_shared_bytes = l.max_shared_bytes;
  });
}

stubjit_status stubjit_runtime_counters(stubjit_runtime runtime, stubjit_cache_counters* out) {
  return guarded([&] {
    require_out(out, "out");
    if (out->struct_size < sizeof(std::size_t))
      throw InvalidArgument{"stubjit_cache_counters.struct_size is not set (sizeof)"};
    const stubjit::CacheCounters c = require(runtime, "runtime").runtime.counters();
    stubjit_cache_counters full{};
    full.struct_size = out->struct_size;
    full.compiles = c.compiles;
    full.compile_failures = c.compile_failures;
    full.memory_hits = c.memory_hits;
    full.launches = c.launches;
    full.disk_hits = c.disk_hits;
    full.disk_writes = c.disk_writes;
    full.disk_rejected = c.disk_rejected;
    full.layer_hits = c.layer_hits;
    std::memcpy(static_cast<void*>(out), &full, std::min(out->struct_size, sizeof full));
  });
}

stubjit_status stubjit_backend_status(const char* backend, int* available, char* detail,
                                      size_t detail_size) {
  return guarded([&] {
    if (backend == nullptr) throw InvalidArgument{"backend is NULL"};
    require_out(available, "available");
    for (const stubjit::BackendStatus& status : stubjit::Runtime::probe_backends()) {
      if (status.name != backend) continue;
      *available = status.available ? 1 : 0;
      if (detail != nullptr && detail_size > 0) {
        const std::size_t n = std::min(detail_size - 1, status.detail.size());
        std::memcpy(detail, status.detail.data(), n);
        detail[n] = '\0';
      }
      return;
    }
    throw InvalidArgument{"no backend is named \"" + std::string(backend) +
                          "\" (cpu, cuda or hip)"};
  });
}

stubjit_status stubjit_domain_create(int rank, const stubjit_dim* dims, stubjit_order order,
                                     stubjit_domain* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    check_domain_rank(rank);
    if (rank > 0 && dims == nullptr) throw InvalidArgument{"dims is NULL"};
    std::vector<stubjit::Dim> converted;
    for (int d = 0; d < rank; ++d)
      converted.push_back({dims[d].first, dims[d].count, dims[d].step});
    *out = std::make_unique<stubjit_domain_s>(
               stubjit_domain_s{stubjit::Domain(converted, stubjit::capi::order(order))})
               .release();
  });
}

stubjit_status stubjit_domain_from_loops(int rank, const stubjit_loop* loops, stubjit_order order,
                                         stubjit_domain* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    check_domain_rank(rank);
    if (rank > 0 && loops == nullptr) throw InvalidArgument{"loops is NULL"};
    std::vector<stubjit::Loop> converted;
    for (int d = 0; d < rank; ++d)
      converted.push_back({loops[d].first, loops[d].last, loops[d].step});
    *out = std::make_unique<stubjit_domain_s>(
               stubjit_domain_s{stubjit::Domain::loops(converted, stubjit::capi::order(order))})
               .release();
  });
}

void stubjit_domain_destroy(stubjit_domain domain) { release(domain); }
int stubjit_domain_rank(stubjit_domain domain) {
  return domain == nullptr ? 0 : domain->domain.rank();
}
int64_t stubjit_domain_size(stubjit_domain domain) {
  return domain == nullptr ? 0 : domain->domain.size();
}

stubjit_status stubjit_field_allocate(stubjit_runtime runtime, stubjit_type type, int rank,
                                      const int64_t* extents, stubjit_layout layout,
                                      stubjit_field* out) {
  return new_field(out, [&] {
    return require(runtime, "runtime")
        .runtime.allocate(element_type(type), extents_of(rank, extents),
                          stubjit::capi::layout(layout));
  });
}

stubjit_status stubjit_field_wrap(stubjit_runtime runtime, void* data, stubjit_type type, int rank,
                                  const int64_t* extents, const int64_t* strides,
                                  stubjit_layout layout, int writable, stubjit_field* out) {
  return new_field(out, [&] {
    stubjit_runtime_s& owner = require(runtime, "runtime");
    const std::vector<std::int64_t> shape = extents_of(rank, extents);
    const std::vector<std::int64_t> steps =
        strides != nullptr ? std::vector<std::int64_t>(strides, strides + rank)
                           : dense_strides(shape, stubjit::capi::layout(layout));
    return owner.runtime.wrap_memory(data, element_type(type), shape, steps, writable != 0);
  });
}

void stubjit_field_destroy(stubjit_field field) { release(field); }

void* stubjit_field_data(stubjit_field field) {
  return field == nullptr ? nullptr : field->field.data();
}
stubjit_type stubjit_field_type(stubjit_field field) {
  try {
    return field == nullptr ? STUBJIT_F32 : c_type(field->field.type());
  } catch (...) {
    return STUBJIT_F32;
  }
}
int stubjit_field_rank(stubjit_field field) { return field == nullptr ? 0 : field->field.rank(); }
int64_t stubjit_field_size(stubjit_field field) {
  return field == nullptr ? 0 : field->field.size();
}
int64_t stubjit_field_extent(stubjit_field field, int d) {
  if (field == nullptr || d < 0 || d >= field->field.rank()) return -1;
  return field->field.extent(d);
}
int64_t stubjit_field_stride(stubjit_field field, int d) {
  if (field == nullptr || d < 0 || d >= field->field.rank()) return -1;
  return field->field.stride(d);
}

stubjit_status stubjit_field_copy_from_host(stubjit_field field, const void* host, size_t bytes) {
  return guarded([&] {
    if (host == nullptr && bytes > 0) throw InvalidArgument{"host is NULL"};
    require(field, "field").field.copy_from_bytes(host, bytes);
  });
}

stubjit_status stubjit_field_copy_to_host(stubjit_field field, void* host, size_t bytes) {
  return guarded([&] {
    if (host == nullptr && bytes > 0) throw InvalidArgument{"host is NULL"};
    require(field, "field").field.copy_to_bytes(host, bytes);
  });
}

stubjit_status stubjit_field_transpose(stubjit_field field, int d1, int d2, stubjit_field* out) {
  return new_field(out, [&] { return require(field, "field").field.transpose(d1, d2); });
}

stubjit_status stubjit_field_permute(stubjit_field field, const int* order, int count,
                                     stubjit_field* out) {
  return new_field(out, [&] {
    if (count < 0 || (count > 0 && order == nullptr))
      throw InvalidArgument{"order is NULL or count negative"};
    return require(field, "field").field.permute(std::vector<int>(order, order + count));
  });
}

stubjit_status stubjit_field_section(stubjit_field field, int dim, int64_t first, int64_t last,
                                     int64_t step, stubjit_field* out) {
  return new_field(out,
                   [&] { return require(field, "field").field.section(dim, first, last, step); });
}

stubjit_status stubjit_field_slice(stubjit_field field, int dim, int64_t index,
                                   stubjit_field* out) {
  return new_field(out, [&] { return require(field, "field").field.slice(dim, index); });
}

stubjit_status stubjit_field_spread(stubjit_field field, int dim, int64_t extent,
                                    stubjit_field* out) {
  return new_field(out, [&] { return require(field, "field").field.spread(dim, extent); });
}

stubjit_status stubjit_stream_create(stubjit_runtime runtime, stubjit_stream* out) {
  return guarded([&] {
    require_out(out, "out");
    *out = nullptr;
    stubjit::Stream stream = require(runtime, "runtime").runtime.create_stream();
    *out = std::make_unique<stubjit_stream_s>(stubjit_stream_s{std::move(stream)}).release();
  });
}

void stubjit_stream_destroy(stubjit_stream stream) { release(stream); }

stubjit_status stubjit_field_copy_from_host_async(stubjit_field field, const void* host,
                                                  size_t bytes, stubjit_stream stream) {
  return guarded([&] {
    if (host == nullptr && bytes > 0) throw InvalidArgument{"host is NULL"};
    require(field, "field")
        .field.copy_from_bytes_async(host, bytes, require(stream, "stream").stream);
  });
}

stubjit_status stubjit_field_copy_to_host_async(stubjit_field field, void* host, size_t bytes,
                                                stubjit_stream stream) {
  return guarded([&] {
    if (host == nullptr && bytes > 0) throw InvalidArgument{"host is NULL"};
    require(field, "field")
        .field.copy_to_bytes_async(host, bytes, require(stream, "stream").stream);
  });
}

stubjit_status stubjit_stream_synchronize(stubjit_stream stream) {
  return guarded([&] { require(stream, "stream").stream.synchronize(); });
}

}  // extern "C"
