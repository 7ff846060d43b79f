#include "runtime/sort_launch.hpp"

#include <memory>
#include <optional>

#include "plan/reduce_plan.hpp"
#include "runtime/reduce_launch.hpp"
#include "stubjit/sort.h"

namespace stubjit::detail {
namespace {

using u64 = std::uint64_t;

static_assert(sizeof(SortParams) == 64, "SortParams and sort.h disagree");

// A sort's merge stage where its plan has several parts (a GPU sort's parts follow its
// groups' threads, so both stages run the same, final, layout). A segment of one part
// is sorted into the fields by the runs stage and no merge pass follows, so the merge
// stage's stub is neither compiled nor loaded: half the compiles of a sort of short
// pencils. Its compile, 2 to 2.7 times the runs stage's, goes beside the runs stage's
// (StagePrefetch::Start::long_later).
//
// `any_machine` (Kernel::prepare, which fills caches that other processes and machines
// read): also the merge stub where this machine needs none but another could: on a
// host a segment longer than a part's least length splits where there are workers
// enough (sort_layout), and a GPU plan not fitted to any registers (a compile-only
// runtime) may split once fitted.
bool merges_needed(const ReduceLaunch& planned, bool fit, bool any_machine) {
  const bool may_split = planned.device_threads ? !fit : planned.layout.length > host_min_part;
  return planned.layout.parts > 1 || (any_machine && may_split);
}

StagePair find_stubs(KernelState& kernel, const LaunchOptions& options, ReduceLaunch& planned,
                     LaunchSummary& summary, bool launching, bool fit, bool any_machine) {
  return find_stage_pair(kernel, options, planned, summary, launching, fit, any_machine,
                         Pattern::sort_merge, StagePrefetch::Start::long_later, merges_needed);
}

// The bytes of one buffer: every segment's keys, then each payload's elements.
u64 buffer_bytes(const KernelState& kernel, u64 total) {
  u64 bytes = 0;
  for (const Param& p : kernel.source.signature)
    if (p.is_sort() || p.payload) bytes += sort_array_bytes(total, size_of(p.type));
  return bytes;
}

}  // namespace

LaunchSummary launch_sort(KernelState& kernel, const Domain& domain, const Arg* args,
                          std::size_t count, const LaunchOptions& options, StreamState* stream) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  Device& device = runtime.device_for("launch a kernel");
  const StagePair stubs = find_stubs(kernel, options, planned, summary, true, true, false);
  const LoadedStub& runs = *stubs.primary;
  const LoadedStub* merge = stubs.secondary;  // null where one stage runs
  // The stages' plans checked before any memory is taken or anything issued.
  device.check_plan(*runs.module, planned.plan);
  if (merge) device.check_plan(*merge->module, planned.plan);
  const ReduceLayout& layout = planned.layout;
  const u64 total = layout.segments * layout.length;
  const u64 bytes = buffer_bytes(kernel, total);
  const ReduceScratch::Lease scratch =
      kernel.reduce_scratch.acquire(device, static_cast<std::size_t>(2 * bytes), 0);
  const u64 buffers[2] = {reinterpret_cast<u64>(scratch.data()),
                          reinterpret_cast<u64>(scratch.data()) + bytes};
  SortParams params{};
  params.parts = layout.parts;
  params.part_length = layout.part_length;
  params.total = total;
  params.thread_run =
      planned.device_threads ? static_cast<std::uint32_t>(device_sort_thread_run) : 0u;
  params.to = buffers[0];
  params.spare = buffers[1];
  // A segment of one part: the first stage sorts it into the fields, and that is all.
  params.into_fields = layout.parts == 1 ? 1u : 0u;
  issue_stage(kernel, runs, planned, &params, sizeof(params), true, stream);
  // Runs of part_length in buffer 0; each pass merges pairs of them into the other
  // buffer, the last (where one run is the whole segment) into the fields.
  int from = 0;
  for (u64 width = layout.part_length; layout.parts > 1; width *= 2) {
    params.width = width;
    params.from = buffers[from];
    params.to = buffers[1 - from];
    params.into_fields = 2 * width >= layout.length ? 1u : 0u;
    issue_stage(kernel, *merge, planned, &params, sizeof(params), true, stream);
    if (params.into_fields) break;
    from = 1 - from;
  }
  // The buffers are the next launch's (or freed): wait for this one to finish first.
  stream->synchronize();
  runtime.launches.add();
  return summary;
}

LaunchSummary prepare_sort(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options,
                           std::optional<StubIdentity>& identity, bool launching) {
  RuntimeState& runtime = *kernel.runtime;
  ReduceLaunch planned;
  plan_reduce_launch(kernel, domain, args, count, options, planned);
  LaunchSummary summary = summary_of(planned);
  if (planned.plan.dispatches.empty()) return summary;
  const StagePair stubs = find_stubs(kernel, options, planned, summary, launching,
                                     runtime.device != nullptr, !launching);
  identity = stage_identity(kernel, planned.variant);
  if (runtime.device) {
    runtime.device->check_plan(*stubs.primary->module, planned.plan);
    if (stubs.secondary) runtime.device->check_plan(*stubs.secondary->module, planned.plan);
  }
  return summary;
}

}  // namespace stubjit::detail
