#include "runtime/reduce_launch.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bind/arg_layout.hpp"
#include "bind/domain_order.hpp"
#include "codegen/identifier.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/launch_params.hpp"
#include "stubjit/error.hpp"
#include "stubjit/reduce.h"
#include "support/enums.hpp"

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

static_assert(sizeof(ReduceParams) == reduce_params_size, "ReduceParams and the writer disagree");

u64 saturating_mul(u64 a, u64 b) {
  if (a != 0 && b > std::numeric_limits<u64>::max() / a) return std::numeric_limits<u64>::max();
  return a * b;
}

std::string kernel_name(const KernelState& kernel) { return "kernel '" + kernel.source.name + "'"; }

// The dimension a launch reduces, in the caller's numbering (-1: the whole domain);
// ArgumentError unless the result's rank and extents fit the domain. Allocates only to
// say why not.
int reduced_dimension(const KernelState& kernel, const Param& result, const Field& field,
                      const Domain& domain, const LaunchOptions& options) {
  if (result.rank == 0) return -1;
  const int rank = domain.rank();
  if (result.rank != rank - 1) {
    throw ArgumentError(result.name, "result '" + result.name + "' of " + kernel_name(kernel) +
                                         " has rank " + std::to_string(result.rank) +
                                         "; over a rank-" + std::to_string(rank) +
                                         " domain a result has rank 0 (the whole domain) or " +
                                         std::to_string(rank - 1) + " (one dimension reduced)");
  }
  const int along = options.reduce_dimension < 0 ? rank - 1 : options.reduce_dimension;
  if (options.reduce_dimension < -1 || along >= rank) {
    throw ArgumentError(result.name, "a launch of " + kernel_name(kernel) + " reduces dimension " +
                                         std::to_string(options.reduce_dimension) + " of a rank-" +
                                         std::to_string(rank) +
                                         " domain (LaunchOptions::reduce_dimension: 0 to " +
                                         std::to_string(rank - 1) + ", or -1 for the last)");
  }
  int j = 0;
  for (int d = 0; d < rank; ++d) {
    if (d == along) continue;
    if (field.extent(j) != domain[d].count) {
      throw ArgumentError(
          result.name, "result '" + result.name + "' of " + kernel_name(kernel) + ": its extent " +
                           std::to_string(j) + " is " + std::to_string(field.extent(j)) +
                           ", and the domain's dimension " + std::to_string(d) +
                           " (kept when dimension " + std::to_string(along) + " is reduced) has " +
                           std::to_string(domain[d].count) + " indices");
    }
    ++j;
  }
  return along;
}

// The dimension a scan or sort launch runs along, in the caller's numbering;
// ArgumentError outside the domain.
int scanned_dimension(const KernelState& kernel, const Param& scan, const Domain& domain,
                      const LaunchOptions& options) {
  const int rank = domain.rank();
  const int along = options.reduce_dimension < 0 ? rank - 1 : options.reduce_dimension;
  if (options.reduce_dimension < -1 || along >= rank) {
    throw ArgumentError(
        scan.name, "a launch of " + kernel_name(kernel) + (scan.is_sort() ? " sorts" : " scans") +
                       " dimension " + std::to_string(options.reduce_dimension) + " of a rank-" +
                       std::to_string(rank) + " domain (LaunchOptions::reduce_dimension: 0 to " +
                       std::to_string(rank - 1) + ", or -1 for the last)");
  }
  return along;
}

// The result's field among the launch's arguments (bind checked it is one).
const Field& result_field(const KernelState& kernel, const Param& result, const Arg* args) {
  std::size_t next = 0;
  for (const Param& p : kernel.source.signature) {
    if (&p == &result) break;
    if (takes_argument(p)) ++next;
  }
  return *args[next].field();
}

// A Fortran-order launch runs its dimensions reversed: the result's kept dimensions,
// which the stub walks in the run's order, are reversed in its slot too.
void reverse_result_slot(const KernelState& kernel, const Param& result, int rank,
                         BoundArgs& bound) {
  std::size_t offset = 0;
  const Signature& signature = kernel.source.signature;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (&signature[i] == &result) break;
    offset += slot_size(signature[i], bound.bindings[i], rank);
  }
  const auto reverse = [&](std::size_t at) {
    std::int64_t words[max_field_rank];
    std::memcpy(words, bound.packed.data() + at, 8 * static_cast<std::size_t>(result.rank));
    std::reverse(words, words + result.rank);
    std::memcpy(bound.packed.data() + at, words, 8 * static_cast<std::size_t>(result.rank));
  };
  reverse(offset + 8);                                              // extents
  reverse(offset + 8 + 8 * static_cast<std::size_t>(result.rank));  // strides
}

// The threads of a GPU group: what the launch asks for, else enough for the
// segment's values up to 256, in whole warps (a sort's: one per thread run of
// device_sort_thread_run values).
std::uint32_t reduce_threads(const KernelState& kernel, const LaunchOptions& options, u64 length,
                             bool sort) {
  const DeviceLimits& limits = kernel.runtime->limits;
  const u64 warp = std::max<u64>(limits.warp_size, 1);
  const u64 per_thread = sort ? device_sort_thread_run : 1;
  const u64 threads = (length + per_thread - 1) / per_thread;
  const u64 wanted = std::min<u64>(256, std::max<u64>(warp, (threads + warp - 1) / warp * warp));
  return group_threads(options.group_size, static_cast<std::uint32_t>(wanted), kernel.source.block,
                       limits);
}

// The layout, the group memory and the plan for `threads` per GPU group (ignored on
// the CPU).
void plan_groups(const KernelState& kernel, const LaunchOptions& options, std::uint32_t threads,
                 ReduceLaunch& out) {
  const RuntimeState& runtime = *kernel.runtime;
  const u64 segments = out.layout.segments;
  const u64 length = out.layout.length;
  const std::uint32_t device_threads = out.device_threads ? threads : 0;
  const unsigned workers = runtime.device ? runtime.device->host_workers() : 0;
  out.layout = out.sort   ? sort_layout(segments, length, device_threads, workers)
               : out.scan ? scan_layout(segments, length, device_threads)
                          : reduce_layout(segments, length, device_threads);
  Extent3 shape{runtime.limits.max_threads_per_block, 1, 1};  // the CPU: group_launch.cpp
  out.shared_bytes = 0;
  if (out.device_threads) shape = {threads, 1, 1};
  // A sort's stages use no group memory (their merges go through the launch's buffers).
  if (out.device_threads && !out.sort) {
    // The last-arrival flag (16 bytes, keeping the values aligned), then a value per
    // warp for the tree (reduce.h, group_reduce), and for a scan one more
    // (warps_scan's total).
    const u64 warp = std::max<u64>(runtime.limits.warp_size, 1);
    const u64 values = (u64(threads) + warp - 1) / warp + (out.scan ? 1 : 0);
    const u64 bytes = 16 + (values * out.value_bytes + 15) / 16 * 16;
    std::uint32_t limit = runtime.limits.max_shared_bytes;
    if (runtime.limits_overridden) limit = std::min(limit, runtime.device_limits.max_shared_bytes);
    if (bytes > limit) {
      throw PlanError("max_shared_bytes", limit,
                      std::string(out.scan ? "a scan launch of " : "a reduce launch of ") +
                          kernel_name(kernel) + " needs " + std::to_string(bytes) +
                          " bytes of group memory for groups of " + std::to_string(threads) +
                          " threads; the device allows " + std::to_string(limit) +
                          " (ask for a smaller LaunchOptions::group_size)");
    }
    out.shared_bytes = static_cast<std::uint32_t>(bytes);
  }
  // A one-pass GPU scan numbers its groups with a u32 ticket (reduce.h, scan_ticket).
  if (out.scan && out.device_threads && out.layout.parts > 1 &&
      out.layout.groups() > std::numeric_limits<std::uint32_t>::max()) {
    throw PlanError("scan_groups", std::numeric_limits<std::uint32_t>::max(),
                    "a scan launch of " + kernel_name(kernel) + " needs " +
                        std::to_string(out.layout.groups()) +
                        " groups; a GPU scan numbers its groups in 32 bits (at most " +
                        std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
  }
  // A scan or sort of empty pencils writes nothing: no group to run (an empty
  // reduction still writes its identity).
  const u64 groups = (out.scan || out.sort) && length == 0 ? 0 : out.layout.groups();
  if (groups == 0) {
    out.plan = Plan{};
    out.plan.mode = Mode::spread;
    out.plan.rank = 1;
    out.plan.block = shape;
    return;
  }
  out.plan = make_group_plan(groups, shape, runtime.limits, runtime.options.policy, options.mode);
  if (runtime.limits_overridden) check_plan_within(out.plan, runtime.device_limits);
}

u64 product(const Extent3& e) { return u64(e[0]) * e[1] * e[2]; }

}  // namespace

LaunchSummary summary_of(const ReduceLaunch& planned) {
  LaunchSummary summary{planned.plan.mode, planned.run->rank(), planned.plan.dispatches.size(),
                        false};
  summary.group_size =
      planned.device_threads ? static_cast<std::uint32_t>(product(planned.plan.block)) : 1;
  summary.shared_bytes = planned.shared_bytes;
  summary.reduce_parts = static_cast<std::uint32_t>(planned.layout.parts);
  return summary;
}

void refit(LaunchSummary& summary, const ReduceLaunch& planned) {
  const LaunchSummary fitted = summary_of(planned);
  summary.group_size = fitted.group_size;
  summary.shared_bytes = fitted.shared_bytes;
  summary.reduce_parts = fitted.reduce_parts;
  summary.dispatches = fitted.dispatches;
}

void fit_to_module(const KernelState& kernel, const Module& module, const LaunchOptions& options,
                   ReduceLaunch& planned) {
  const std::uint32_t most = module.max_group_threads();
  const u64 threads = product(planned.plan.block);
  if (!planned.device_threads || most == 0 || threads <= most) return;
  if (kernel.source.block.fixed()) {
    throw PlanError("max_group_threads", most,
                    kernel_name(kernel) + " fixes its groups at " + std::to_string(threads) +
                        " threads; its compiled " +
                        std::string(planned.sort   ? "sort"
                                    : planned.scan ? "scan"
                                                   : "reduce") +
                        " stub runs at most " + std::to_string(most) + " (its registers)");
  }
  const std::uint32_t warp = kernel.runtime->limits.warp_size;
  plan_groups(kernel, options, warp > 1 && most > warp ? most / warp * warp : most, planned);
}

namespace {

void issue(KernelState& kernel, const LoadedStub& stub, const ReduceLaunch& planned,
           const LaunchOptions& options, StreamState* stream) {
  Device& device = kernel.runtime->device_for("launch a kernel");
  device.check_plan(*stub.module, planned.plan);  // before any memory is taken
  const ReduceLayout& layout = planned.layout;
  // Partials (aligned to 16), then one arrival counter per segment, zeroed.
  std::optional<ReduceScratch::Lease> scratch;
  ReduceParams params{layout.parts,
                      layout.part_length,
                      0,
                      0,
                      options.reduce_update == ReduceUpdate::assign ? 1u : 0u,
                      0};
  if (layout.parts > 1) {
    const u64 partial_bytes = (layout.groups() * planned.value_bytes + 15) / 16 * 16;
    const u64 arrival_bytes = layout.segments * sizeof(std::uint32_t);
    scratch.emplace(kernel.reduce_scratch.acquire(
        device, static_cast<std::size_t>(partial_bytes + arrival_bytes),
        static_cast<std::size_t>(layout.segments)));
    auto* base = static_cast<unsigned char*>(scratch->data());
    device.copy_to_device(base + partial_bytes, scratch->zeros(),
                          static_cast<std::size_t>(arrival_bytes), stream);
    params.partials = reinterpret_cast<u64>(base);
    params.arrivals = reinterpret_cast<u64>(base + partial_bytes);
  }
  issue_stage(kernel, stub, planned, &params, sizeof(params), scratch.has_value(), stream);
  // The partials are the next launch's (or freed): wait for this one to finish first.
  if (scratch) stream->synchronize();
}

}  // namespace

StubIdentity stage_identity(const KernelState& kernel, const StubVariant& variant) {
  return StubIdentity::of(*kernel.identity, *kernel.runtime->toolchain_identity, variant);
}

StagePair find_stage_pair(KernelState& kernel, const LaunchOptions& options, ReduceLaunch& planned,
                          LaunchSummary& summary, bool launching, bool fit, bool any_machine,
                          Pattern second, StagePrefetch::Start when, SecondaryNeeded needed) {
  StagePair stubs;
  StubVariant other = planned.variant;
  other.pattern = second;
  const StubIdentity primary =
      identity_to_run(kernel, stage_identity(kernel, planned.variant), launching, summary);
  std::optional<StubIdentity> secondary;
  StagePrefetch prefetch;
  if (needed(planned, fit, any_machine)) {
    secondary = identity_to_run(kernel, stage_identity(kernel, other), launching, summary);
    prefetch.start(kernel, primary, *secondary, when);
  }
  stubs.primary = &stub_found(kernel, primary, summary, stubs.hold_primary);
  if (fit) fit_to_module(kernel, *stubs.primary->module, options, planned);
  if (needed(planned, fit, any_machine)) {
    if (!secondary)
      secondary = identity_to_run(kernel, stage_identity(kernel, other), launching, summary);
    stubs.secondary = &prefetch.get(kernel, *secondary, summary, stubs.hold_secondary);
    if (fit) fit_to_module(kernel, *stubs.secondary->module, options, planned);
  }
  refit(summary, planned);
  return stubs;
}

void issue_stage(KernelState& kernel, const LoadedStub& stub, const ReduceLaunch& planned,
                 const void* params, std::size_t params_size, bool uses_scratch,
                 StreamState* stream) {
  Device& device = kernel.runtime->device_for("launch a kernel");
  PackedArgs packed;
  const std::size_t size = planned.bound.packed.size();
  packed.reset(size + params_size);
  std::memcpy(packed.data(), planned.bound.packed.data(), size);
  std::memcpy(packed.data() + size, params, params_size);

  LaunchParams lp;
  fill_domain(lp, *planned.run);
  lp.shared_bytes = planned.shared_bytes;
  const std::size_t n = planned.plan.dispatches.size();
  for (std::size_t i = 0; i < n; ++i) {
    fill_dispatch(lp, planned.plan, planned.plan.dispatches[i]);
    // A whole-domain GPU stub raises each position over the domain's counts.
    for (int d = 1; d < planned.run->rank(); ++d)
      lp.divisor[d] = make_fast_divisor(static_cast<u64>(lp.count[d]));
    try {
      device.launch(*stub.module, stub.parameters, lp, packed.data(), packed.size(), stream);
    } catch (...) {
      // What was issued before (this stage's dispatches, an earlier stage, the counters'
      // clearing) may still use the partials: wait for it before the memory is released
      // (or given to the next launch).
      if (uses_scratch) {
        try {
          stream->synchronize();
        } catch (const std::exception&) {  // the launch's own error is the one to report
        }
      }
      if (i == 0) throw;
      try {
        throw;
      } catch (const BackendError& error) {
        throw LaunchError(i, n,
                          "dispatch " + std::to_string(i + 1) + " of " + std::to_string(n) +
                              " of " + stub.entry + " failed after the first " + std::to_string(i) +
                              " were issued (they ran or will run): " + error.what());
      }
    }
  }
}

void plan_reduce_launch(const KernelState& kernel, const Domain& domain, const Arg* args,
                        std::size_t count, const LaunchOptions& options, ReduceLaunch& out) {
  const RuntimeState& runtime = *kernel.runtime;
  const TargetTraits& traits = runtime.toolchain->traits();
  const Param& result = *kernel.result;
  if (!is_valid(options.reduce_update)) {
    throw ArgumentError(result.name, "a launch of " + kernel_name(kernel) + " with reduce_update " +
                                         number_of(options.reduce_update) +
                                         ", which is no ReduceUpdate");
  }
  if (options.tile.rank != 0) {
    const char* what = result.is_sort() ? "sort" : result.is_scan() ? "scan" : "reduce";
    throw ArgumentError("", kernel_name(kernel) + " is a " + what +
                                " kernel: it runs once per index, and takes no tile");
  }
  bind(kernel, domain, args, count, out.bound);
  out.scan = result.is_scan();
  out.sort = result.is_sort();
  const int along =
      out.scan || out.sort
          ? scanned_dimension(kernel, result, domain, options)
          : reduced_dimension(kernel, result, result_field(kernel, result, args), domain, options);
  out.run = &domain;
  out.along = along;
  if (domain.order() == Order::fortran) {
    out.made.c_order = to_c_order(kernel.source.signature, domain, out.bound);
    if (out.made.c_order) {
      out.run = &*out.made.c_order;
      if (along >= 0) {
        out.along = domain.rank() - 1 - along;
        // A scan's field and a sort's are projected: to_c_order reversed their slots
        // with the others'.
        if (!out.scan && !out.sort) reverse_result_slot(kernel, result, domain.rank(), out.bound);
      }
    }
  }
  out.device_threads = traits.warp_constant;
  out.value_bytes = size_of(result.type);
  u64 segments = 1;
  u64 length = static_cast<u64>(domain.size());
  if (along >= 0) {
    for (int d = 0; d < domain.rank(); ++d)
      if (d != along) segments = saturating_mul(segments, static_cast<u64>(domain[d].count));
    length = static_cast<u64>(domain[along].count);
  }
  out.layout.segments = segments;
  out.layout.length = length;
  const std::uint32_t threads = reduce_threads(kernel, options, length, out.sort);
  plan_groups(kernel, options, threads, out);

  StubVariant& v = out.variant;
  v.pattern = out.sort ? Pattern::sort_runs : out.scan ? Pattern::scan : Pattern::reduce;
  v.mode = Mode::spread;
  v.rank = static_cast<std::uint8_t>(out.run->rank());
  v.index_bits = traits.index32 && out.bound.fits_int32 ? 32 : 64;
  v.bindings = out.bound.bindings;
  v.index_order = out.bound.index_order;
  v.reduce_dimension = static_cast<std::int8_t>(out.along);
  if (traits.launch_bounds)
    v.launch_bounds = max_group_launch_threads(kernel.source.block, runtime.limits);
  if (traits.warp_constant) v.warp_size = runtime.limits.warp_size;
  v.specialized.scalar_count = out.bound.specialized_count;
  for (std::size_t i = 0; i < out.bound.specialized_count; ++i)
    v.specialized.scalars[i] = out.bound.specialized[i];
}

Plan reduce_kernel_plan(const KernelState& kernel, const Domain& domain,
                        std::optional<Mode> forced) {
  ReduceLaunch planned;
  planned.run = &domain;
  planned.device_threads = kernel.runtime->toolchain->traits().warp_constant;
  planned.value_bytes = size_of(kernel.result->type);
  planned.scan = kernel.result->is_scan();
  planned.sort = kernel.result->is_sort();
  u64 segments = 1;
  u64 length = static_cast<u64>(domain.size());
  if ((kernel.result->rank > 0 || planned.scan || planned.sort) && domain.rank() > 1) {
    const int along = domain.rank() - 1;
    for (int d = 0; d < along; ++d) segments = saturating_mul(segments, u64(domain[d].count));
    length = static_cast<u64>(domain[along].count);
  }
  planned.layout.segments = segments;
  planned.layout.length = length;
  LaunchOptions options;
  options.mode = forced;
  plan_groups(kernel, options, reduce_threads(kernel, options, length, planned.sort), planned);
  return planned.plan;
}

LaunchSummary launch_reduce(KernelState& kernel, const Domain& domain, const Arg* args,
                            std::size_t count, const LaunchOptions& options, StreamState* stream) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  const StubIdentity identity =
      StubIdentity::of(*kernel.identity, *runtime.toolchain_identity, planned.variant);
  std::shared_ptr<const LoadedStub> hold;
  const LoadedStub& stub = stub_to_run(kernel, identity, true, summary, hold);
  runtime.device_for("launch a kernel");
  fit_to_module(kernel, *stub.module, options, planned);
  refit(summary, planned);
  issue(kernel, stub, planned, options, stream);
  runtime.launches.add();
  return summary;
}

LaunchSummary prepare_reduce(KernelState& kernel, const Domain& domain, const Arg* args,
                             std::size_t count, const LaunchOptions& options,
                             std::optional<StubIdentity>& identity, bool launching) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  identity = StubIdentity::of(*kernel.identity, *runtime.toolchain_identity, planned.variant);
  std::shared_ptr<const LoadedStub> hold;
  const LoadedStub& stub = stub_to_run(kernel, *identity, launching, summary, hold);
  if (runtime.device) {
    fit_to_module(kernel, *stub.module, options, planned);
    refit(summary, planned);
    runtime.device->check_plan(*stub.module, planned.plan);
  }
  return summary;
}

}  // namespace stubjit::detail
