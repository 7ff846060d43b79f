#include "runtime/scan_launch.hpp"

#include <memory>
#include <optional>
#include <string>

#include "runtime/reduce_launch.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

// A scan's partials stage: only on a host, where a segment has several parts (a GPU
// scans them in one pass). Its compile, as short as the scan stage's, goes beside that
// one only where two compilers are ready (StagePrefetch::Start::short_later).
bool partials_needed(const ReduceLaunch& planned, bool, bool) {
  return planned.layout.parts > 1 && !planned.device_threads;
}

StagePair find_stubs(KernelState& kernel, const LaunchOptions& options, ReduceLaunch& planned,
                     LaunchSummary& summary, bool launching, bool fit) {
  return find_stage_pair(kernel, options, planned, summary, launching, fit, false,
                         Pattern::scan_partials, StagePrefetch::Start::short_later,
                         partials_needed);
}

}  // namespace

LaunchSummary launch_scan(KernelState& kernel, const Domain& domain, const Arg* args,
                          std::size_t count, const LaunchOptions& options, StreamState* stream) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  Device& device = runtime.device_for("launch a kernel");
  const StagePair stubs = find_stubs(kernel, options, planned, summary, true, true);
  const LoadedStub& scan = *stubs.primary;
  const LoadedStub* partials = stubs.secondary;  // null where one stage runs
  // Both stages' plans checked before any memory is taken or anything issued.
  device.check_plan(*scan.module, planned.plan);
  if (partials) device.check_plan(*partials->module, planned.plan);
  const ReduceLayout& layout = planned.layout;
  ReduceParams params{layout.parts, layout.part_length, 0, 0, 1u, 0};
  if (layout.parts == 1) {
    issue_stage(kernel, scan, planned, &params, sizeof(params), false, stream);
  } else if (planned.device_threads) {
    // The stub looks back once per part, at its first tile: a part must be one tile.
    const u64 threads = u64(planned.plan.block[0]) * planned.plan.block[1] * planned.plan.block[2];
    if (layout.part_length != threads * device_scan_thread_values)
      throw Error("stubjit internal error: a one-pass scan's parts of " +
                  std::to_string(layout.part_length) + " values are not one tile of " +
                  std::to_string(threads) + " threads");
    // One pass (reduce.h, scan_part_prefix): two values per group, and the ticket and
    // flags, cleared as they must be before the stage runs (scan_status.hpp). The plan
    // has fewer groups than a u32 counts (plan_groups).
    const u64 value_bytes = 2 * layout.groups() * planned.value_bytes;
    const ReduceScratch::Lease values =
        kernel.reduce_scratch.acquire(device, static_cast<std::size_t>(value_bytes), 0);
    const ScanStatus::Lease status = kernel.scan_status.acquire(device, layout.groups(), stream);
    params.partials = reinterpret_cast<u64>(values.data());
    params.arrivals = reinterpret_cast<u64>(status.data());
    params.epoch = status.epoch();
    issue_stage(kernel, scan, planned, &params, sizeof(params), true, stream);
    // The values and flags are the next launch's (or freed): wait for this one first.
    stream->synchronize();
  } else {
    // The partials of every group, written by the first stage and read by the second
    // (the stream runs them in order); no arrival counters.
    const u64 partial_bytes = (layout.groups() * planned.value_bytes + 15) / 16 * 16;
    const ReduceScratch::Lease scratch =
        kernel.reduce_scratch.acquire(device, static_cast<std::size_t>(partial_bytes), 0);
    params.partials = reinterpret_cast<u64>(scratch.data());
    issue_stage(kernel, *partials, planned, &params, sizeof(params), true, stream);
    issue_stage(kernel, scan, planned, &params, sizeof(params), true, stream);
    // The partials are the next launch's (or freed): wait for this one to finish first.
    stream->synchronize();
  }
  runtime.launches.add();
  return summary;
}

LaunchSummary prepare_scan(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options,
                           std::optional<StubIdentity>& identity, bool launching) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  const StagePair stubs =
      find_stubs(kernel, options, planned, summary, launching, runtime.device != nullptr);
  identity = stage_identity(kernel, planned.variant);
  if (runtime.device) {
    runtime.device->check_plan(*stubs.primary->module, planned.plan);
    if (stubs.secondary) runtime.device->check_plan(*stubs.secondary->module, planned.plan);
  }
  return summary;
}

}  // namespace stubjit::detail
