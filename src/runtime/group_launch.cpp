#include "runtime/group_launch.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "bind/domain_order.hpp"
#include "runtime/launch_params.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

u64 saturating_mul(u64 a, u64 b) {
  if (a != 0 && b > std::numeric_limits<u64>::max() / a) return std::numeric_limits<u64>::max();
  return a * b;
}

u64 saturating_add(u64 a, u64 b) {
  return b > std::numeric_limits<u64>::max() - a ? std::numeric_limits<u64>::max() : a + b;
}

// An integer scalar argument's value (bind checked its type); an unsigned value above
// INT64_MAX reads as INT64_MAX (more than any extent the device allows).
std::int64_t integer_value(const Arg& arg) {
  const u64 bits = arg.bits();
  switch (arg.type()) {
    case ElementType::i8:
      return static_cast<std::int8_t>(bits);
    case ElementType::i16:
      return static_cast<std::int16_t>(bits);
    case ElementType::i32:
      return static_cast<std::int32_t>(bits);
    case ElementType::i64:
      return static_cast<std::int64_t>(bits);
    case ElementType::u8:
      return static_cast<std::uint8_t>(bits);
    case ElementType::u16:
      return static_cast<std::uint16_t>(bits);
    case ElementType::u32:
      return static_cast<std::uint32_t>(bits);
    default:
      return bits > static_cast<u64>(std::numeric_limits<std::int64_t>::max())
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(bits);
  }
}

// The elements of shared array `p` at this launch (saturating); ArgumentError for a
// negative extent.
u64 shared_elements(const KernelSource& kernel, const Param& p, const Arg* args) {
  u64 elements = 1;
  for (const std::string& extent : p.extents) {
    std::int64_t value = -1;
    bool named = false;
    std::size_t next = 0;
    for (const Param& q : kernel.signature) {
      if (q.name == extent && q.kind == ParamKind::scalar) {
        value = integer_value(args[next]);
        named = true;
      }
      if (takes_argument(q)) ++next;
    }
    if (!named) value = static_cast<std::int64_t>(std::stoull(extent));  // validated digits
    if (value < 0) {
      throw ArgumentError(extent, "shared array '" + p.name + "' of kernel '" + kernel.name +
                                      "' has extent " + extent + " = " + std::to_string(value) +
                                      "; an extent is 0 or more");
    }
    elements = saturating_mul(elements, static_cast<u64>(value));
  }
  return elements;
}

u64 shared_array_bytes(const KernelSource& kernel, const Param& p, const Arg* args) {
  return saturating_mul(shared_elements(kernel, p, args), size_of(p.type));
}

// The bytes of group-shared memory a group needs: each shared array's elements, in
// signature order, rounded up to 16 bytes (shared_view in kernels/stubjit/view.h lays
// them out by the same rule). PlanError above `limit`. Allocates only to say why not.
std::uint32_t shared_bytes_of(const KernelSource& kernel, const Arg* args, std::uint32_t limit) {
  u64 total = 0;
  for (const Param& p : kernel.signature) {
    if (p.kind != ParamKind::shared) continue;
    total =
        saturating_add(total, saturating_add(shared_array_bytes(kernel, p, args), 15) / 16 * 16);
  }
  if (total <= limit) return static_cast<std::uint32_t>(total);
  std::string arrays;
  for (const Param& p : kernel.signature) {
    if (p.kind != ParamKind::shared) continue;
    arrays += (arrays.empty() ? "" : ", ") + p.name + ": " +
              std::to_string(shared_array_bytes(kernel, p, args));
  }
  throw PlanError("max_shared_bytes", limit,
                  "the shared arrays of kernel '" + kernel.name + "' need " +
                      std::to_string(total) + " bytes per group (" + arrays +
                      "); the device allows " + std::to_string(limit));
}

// The tile's extent along dimension d of a domain of `rank` (1 outside the tile).
std::uint32_t tile_extent(const Tile& tile, int rank, int d) {
  const int untiled = rank - tile.rank;
  return d < untiled ? 1u : tile.extents[static_cast<std::size_t>(d - untiled)];
}

// Allocates only to say why not.
void check_tile(const KernelState& kernel, const Domain& domain, const Tile& tile) {
  const auto name = [&] { return "kernel '" + kernel.source.name + "'"; };
  if (tile.rank > domain.rank()) {
    throw PlanError("tile rank", static_cast<u64>(domain.rank()),
                    "a tile of rank " + std::to_string(tile.rank) + " for " + name() +
                        " over a domain of rank " + std::to_string(domain.rank()) +
                        "; a tile's rank is at most the domain's");
  }
  for (int d = 0; d < tile.rank; ++d) {
    if (tile.extents[static_cast<std::size_t>(d)] == 0) {
      throw PlanError("tile extent", 1,
                      "tile extent " + std::to_string(d) + " of a launch of " + name() + " is 0");
    }
  }
  // A tile's positions are counted in 32 bits in a GPU stub.
  constexpr u64 most_elements = u64(1) << 31;
  u64 elements = 1;
  for (int d = 0; d < tile.rank; ++d)
    elements = saturating_mul(elements, tile.extents[static_cast<std::size_t>(d)]);
  if (elements > most_elements) {
    throw PlanError("tile elements", most_elements,
                    "a tile of " + std::to_string(elements) + " elements for " + name() +
                        "; a tile has at most 2^31");
  }
  if (domain.order() == Order::fortran && domain.rank() > 1) {
    throw PlanError("order", 0,
                    "a tiled launch of " + name() +
                        " over a Fortran-order domain; tiles are given over a C-order domain's "
                        "last dimensions");
  }
}

// Each position of the tiled domain (tile index * extent + position in the tile, up to
// one tile past the end) fits in 32 bits.
bool tiles_fit_int32(const Domain& domain, const Tile& tile) {
  for (int d = 0; d < domain.rank(); ++d) {
    const u64 reach = static_cast<u64>(domain[d].count) + tile_extent(tile, domain.rank(), d);
    if (reach > static_cast<u64>(std::numeric_limits<std::int32_t>::max())) return false;
  }
  return true;
}

u64 product(const Extent3& e) { return u64(e[0]) * e[1] * e[2]; }

// The number of groups: the domain's indices, or its tiles.
u64 group_count(const Domain& run, const Tile& tile, bool group) {
  if (group) return static_cast<u64>(run.size());
  u64 groups = 1;
  for (int d = 0; d < run.rank(); ++d) {
    const u64 count = static_cast<u64>(run[d].count);
    const u64 extent = tile_extent(tile, run.rank(), d);
    groups *= (count + extent - 1) / extent;
  }
  return groups;
}

// A group's threads as a shape: a tile of rank 1 to 3 with one thread per element
// where the device takes it (its last dimension along x), else a row of threads.
Extent3 group_shape(const Tile& tile, std::uint32_t threads, const DeviceLimits& limits) {
  if (tile.rank >= 1 && tile.rank <= 3 && tile.elements() == threads) {
    Extent3 shape{1, 1, 1};
    bool fits = true;
    for (int p = 0; p < tile.rank; ++p) {
      shape[static_cast<std::size_t>(p)] =
          tile.extents[static_cast<std::size_t>(tile.rank - 1 - p)];
      fits = fits &&
             shape[static_cast<std::size_t>(p)] <= limits.max_block[static_cast<std::size_t>(p)];
    }
    if (fits) return shape;
  }
  return {threads, 1, 1};
}

// Where one host thread runs a group (the CPU), the plan's group is the largest the
// device allows: the runner weighs a dispatch by its groups' threads, and a group of a
// group kernel is a whole loop nest, so any two groups are worth spreading over its
// threads (a group of the requested size weighed as a few elements, and launches of a
// hundred groups ran on one core).
Extent3 host_group(const RuntimeState& runtime) {
  return {runtime.limits.max_threads_per_block, 1, 1};
}

void plan_groups(const KernelState& kernel, const LaunchOptions& options, std::uint32_t threads,
                 GroupLaunch& out) {
  const RuntimeState& runtime = *kernel.runtime;
  const bool group = out.variant.pattern == Pattern::group;
  const Extent3 shape = !out.device_threads ? host_group(runtime)
                        : group             ? Extent3{threads, 1, 1}
                                            : group_shape(options.tile, threads, runtime.limits);
  const u64 groups = group_count(*out.run, options.tile, group);
  if (groups == 0) {
    out.plan = Plan{};
    out.plan.mode = Mode::spread;
    out.plan.rank = out.run->rank();
    out.plan.block = shape;
    return;
  }
  out.plan = make_group_plan(groups, shape, runtime.limits, runtime.options.policy, options.mode);
  if (runtime.limits_overridden) check_plan_within(out.plan, runtime.device_limits);
}

// A stub whose registers allow fewer threads per group than planned: a fixed size is
// refused; another shrinks to it (whole warps) and is planned again.
void fit_to_module(const KernelState& kernel, const Module& module, const LaunchOptions& options,
                   GroupLaunch& planned) {
  const std::uint32_t most = module.max_group_threads();
  const u64 threads = product(planned.plan.block);
  if (!planned.device_threads || most == 0 || threads <= most) return;
  if (kernel.source.block.fixed()) {
    throw PlanError("max_group_threads", most,
                    "kernel '" + kernel.source.name + "' fixes its groups at " +
                        std::to_string(threads) + " threads; its compiled stub runs at most " +
                        std::to_string(most) + " (its registers)");
  }
  const std::uint32_t warp = kernel.runtime->limits.warp_size;
  const std::uint32_t fitted = warp > 1 && most > warp ? most / warp * warp : most;
  plan_groups(kernel, options, fitted, planned);
}

void issue(RuntimeState& runtime, const LoadedStub& stub, const GroupLaunch& planned,
           StreamState* stream) {
  Device& device = runtime.device_for("launch a kernel");
  device.check_plan(*stub.module, planned.plan);
  LaunchParams lp;
  fill_domain(lp, *planned.run);
  lp.shared_bytes = planned.shared_bytes;
  const std::size_t n = planned.plan.dispatches.size();
  for (std::size_t i = 0; i < n; ++i) {
    fill_dispatch(lp, planned.plan, planned.plan.dispatches[i]);
    try {
      device.launch(*stub.module, stub.parameters, lp, planned.bound.packed.data(),
                    planned.bound.packed.size(), stream);
    } catch (const BackendError& error) {
      if (i == 0) throw;
      throw LaunchError(i, n,
                        "dispatch " + std::to_string(i + 1) + " of " + std::to_string(n) + " of " +
                            stub.entry + " failed after the first " + std::to_string(i) +
                            " were issued (they ran or will run): " + error.what());
    }
  }
}

}  // namespace

bool is_group_launch(const KernelState& kernel, const LaunchOptions& options) {
  if (kernel.group_kernel) {
    if (options.tile.rank != 0) {
      throw ArgumentError("", "kernel '" + kernel.source.name +
                                  "' is a group kernel: its groups are its domain's indices, "
                                  "and it takes no tile");
    }
    return true;
  }
  if (options.tile.rank != 0) return true;
  if (kernel.tile_token) {
    throw ArgumentError(kernel.tile_token->name,
                        "kernel '" + kernel.source.name + "' takes " +
                            to_string(*kernel.tile_token) +
                            ": launch it with a tile (LaunchOptions::tile)");
  }
  if (options.group_size != 0) {
    throw ArgumentError("", "a group size (LaunchOptions::group_size) for kernel '" +
                                kernel.source.name +
                                "', which runs per element: group sizes are for group kernels "
                                "and tiled launches");
  }
  return false;
}

void plan_group_launch(const KernelState& kernel, const Domain& domain, const Arg* args,
                       std::size_t count, const LaunchOptions& options, GroupLaunch& out) {
  const RuntimeState& runtime = *kernel.runtime;
  const TargetTraits& traits = runtime.toolchain->traits();
  const bool group = kernel.group_kernel;
  bind(kernel, domain, args, count, out.bound);
  if (!group) check_tile(kernel, domain, options.tile);
  out.run = &domain;
  if (group) {
    out.made.c_order = to_c_order(kernel.source.signature, domain, out.bound);
    if (out.made.c_order) out.run = &*out.made.c_order;
  }
  // The CPU runs a group on one host thread; a GPU on a block of its threads.
  out.device_threads = traits.warp_constant;
  std::uint32_t limit = runtime.limits.max_shared_bytes;
  if (runtime.limits_overridden) limit = std::min(limit, runtime.device_limits.max_shared_bytes);
  out.shared_bytes = shared_bytes_of(kernel.source, args, limit);

  StubVariant& v = out.variant;
  v.pattern = group ? Pattern::group : Pattern::tiled;
  v.mode = Mode::spread;
  v.rank = static_cast<std::uint8_t>(out.run->rank());
  const bool narrow = out.bound.fits_int32 && (group || tiles_fit_int32(*out.run, options.tile));
  v.index_bits = traits.index32 && narrow ? 32 : 64;
  v.bindings = out.bound.bindings;
  v.index_order = out.bound.index_order;
  if (traits.launch_bounds)
    v.launch_bounds = max_group_launch_threads(kernel.source.block, runtime.limits);
  if (traits.warp_constant) v.warp_size = runtime.limits.warp_size;
  v.specialized.scalar_count = out.bound.specialized_count;
  for (std::size_t i = 0; i < out.bound.specialized_count; ++i)
    v.specialized.scalars[i] = out.bound.specialized[i];
  if (!group) {
    v.tile_rank = options.tile.rank;
    v.tile = options.tile.extents;
  }

  const u64 elements = options.tile.elements();
  const std::uint32_t preferred =
      group ? 0 : static_cast<std::uint32_t>(std::min<u64>(elements, 1u << 31));
  const std::uint32_t threads =
      group_threads(options.group_size, preferred, kernel.source.block, runtime.limits);
  plan_groups(kernel, options, threads, out);
}

Plan group_kernel_plan(const KernelState& kernel, const Domain& domain,
                       std::optional<Mode> forced) {
  const RuntimeState& runtime = *kernel.runtime;
  const std::uint32_t threads = group_threads(0, 0, kernel.source.block, runtime.limits);
  const Extent3 shape =
      runtime.toolchain->traits().warp_constant ? Extent3{threads, 1, 1} : host_group(runtime);
  if (domain.empty()) {
    Plan plan;
    plan.mode = Mode::spread;
    plan.rank = domain.rank();
    plan.block = shape;
    return plan;
  }
  Plan plan = make_group_plan(static_cast<u64>(domain.size()), shape, runtime.limits,
                              runtime.options.policy, forced);
  if (runtime.limits_overridden) check_plan_within(plan, runtime.device_limits);
  return plan;
}

LaunchSummary group_summary(const GroupLaunch& planned) {
  // The rank the stub runs at: the domain's (the plan numbers the groups in one
  // dimension).
  LaunchSummary summary{planned.plan.mode, planned.run->rank(), planned.plan.dispatches.size(),
                        false};
  summary.group_size =
      planned.device_threads ? static_cast<std::uint32_t>(product(planned.plan.block)) : 1;
  summary.shared_bytes = planned.shared_bytes;
  return summary;
}

LaunchSummary launch_group(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options, StreamState* stream) {
  RuntimeState& runtime = *kernel.runtime;
  GroupLaunch planned;
  plan_group_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = group_summary(planned);
  if (planned.plan.dispatches.empty()) return summary;
  const StubIdentity identity =
      StubIdentity::of(*kernel.identity, *runtime.toolchain_identity, planned.variant);
  std::shared_ptr<const LoadedStub> hold;
  const LoadedStub& stub = stub_to_run(kernel, identity, true, summary, hold);
  runtime.device_for("launch a kernel");
  fit_to_module(kernel, *stub.module, options, planned);
  summary.group_size = group_summary(planned).group_size;
  summary.dispatches = planned.plan.dispatches.size();
  issue(runtime, stub, planned, stream);
  runtime.launches.add();
  return summary;
}

LaunchSummary prepare_group(KernelState& kernel, const Domain& domain, const Arg* args,
                            std::size_t count, const LaunchOptions& options,
                            std::optional<StubIdentity>& identity, bool launching) {
  RuntimeState& runtime = *kernel.runtime;
  GroupLaunch planned;
  plan_group_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = group_summary(planned);
  if (planned.plan.dispatches.empty()) return summary;
  identity = StubIdentity::of(*kernel.identity, *runtime.toolchain_identity, planned.variant);
  std::shared_ptr<const LoadedStub> hold;
  const LoadedStub& stub = stub_to_run(kernel, *identity, launching, summary, hold);
  if (runtime.device) {
    fit_to_module(kernel, *stub.module, options, planned);
    summary.group_size = group_summary(planned).group_size;
    runtime.device->check_plan(*stub.module, planned.plan);
  }
  return summary;
}

}  // namespace stubjit::detail
