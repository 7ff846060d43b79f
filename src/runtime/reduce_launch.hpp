// Reduce launches: a kernel with a result parameter (result<T>). They bind like any
// launch, check the result against the domain and the dimension reduced, share the
// values among groups (plan/reduce_plan.hpp), and run a reduce stub
// (codegen/reduce_entries.cpp) with the launch's reduce state after the arguments.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "plan/reduce_plan.hpp"
#include "runtime/kernel_state.hpp"
#include "runtime/launch_steps.hpp"
#include "runtime/stage_prefetch.hpp"
#include "stubjit/reduce.h"

namespace stubjit::detail {

// A reduce launch planned, before its stub is found.
struct ReduceLaunch {
  BoundArgs bound;
  RunDomains made;              // made.c_order: a Fortran-order domain in C order
  const Domain* run = nullptr;  // the domain the stub runs over (C order)
  int along = -1;               // the run's dimension reduced; -1: the whole domain
  ReduceLayout layout;
  Plan plan;  // the groups over the grid; plan.block: threads per group
  StubVariant variant;
  std::uint32_t shared_bytes = 0;
  bool device_threads = false;  // a GPU's threads run each group (the CPU: one host thread)
  bool scan = false;            // a scan kernel's launch (its stages' layout and plan)
  bool sort = false;            // a sort kernel's launch (likewise)
  std::size_t value_bytes = 0;  // the result's element size
};

// Binds, checks and plans a reduce launch or a scan's; throws (ArgumentError, AliasError,
// PlanError) before anything runs. `domain` must outlive `out`.
void plan_reduce_launch(const KernelState& kernel, const Domain& domain, const Arg* args,
                        std::size_t count, const LaunchOptions& options, ReduceLaunch& out);

// Kernel::plan of a reduce, scan or sort kernel: its groups for a whole-domain
// reduction (a result of rank 0) or one along the last dimension (a scan's and a
// sort's too).
Plan reduce_kernel_plan(const KernelState& kernel, const Domain& domain,
                        std::optional<Mode> forced);

// Kernel::reduce and repeat, for a kernel with a result (kernel.result set):
// ArgumentError unless `count` is the number of the kernel's arguments but its
// result's (`call` names the caller in the message).
void check_arguments_but_result(const KernelState& kernel, std::size_t count, const char* call);
// The `count` arguments with `result` where the signature has the result.
std::vector<Arg> arguments_with_result(const KernelState& kernel, const Arg* args,
                                       std::size_t count, const Field& result);

// Kernel::launch, prepare and reduce for reduce kernels.
LaunchSummary launch_reduce(KernelState& kernel, const Domain& domain, const Arg* args,
                            std::size_t count, const LaunchOptions& options, StreamState* stream);
LaunchSummary prepare_reduce(KernelState& kernel, const Domain& domain, const Arg* args,
                             std::size_t count, const LaunchOptions& options,
                             std::optional<StubIdentity>& identity, bool launching);

// What a reduce or scan launch reports, from its plan.
LaunchSummary summary_of(const ReduceLaunch& planned);
// The summary of a launch planned again for its stub (fit_to_module), keeping what
// the finding of the stub said (compiled, generic).
void refit(LaunchSummary& summary, const ReduceLaunch& planned);
// A stub whose registers allow fewer threads than planned: fewer (whole warps), the
// layout planned again; a fixed size is refused (PlanError).
void fit_to_module(const KernelState& kernel, const Module& module, const LaunchOptions& options,
                   ReduceLaunch& planned);
// The identity of a stage's stub (a scan's or sort's stages: `variant` with the
// stage's pattern).
StubIdentity stage_identity(const KernelState& kernel, const StubVariant& variant);

// The stubs of a launch of two stages, found, loaded or compiled, and the plan fitted to
// the registers of each: `primary`, the stage of `planned.variant` (a scan's scan stage,
// a sort's runs), and `secondary`, the stage of pattern `second` (a scan's partials, a
// sort's merges), where `needed` says the launch needs it; `hold_*` keep them.
struct StagePair {
  const LoadedStub* primary = nullptr;
  const LoadedStub* secondary = nullptr;
  std::shared_ptr<const LoadedStub> hold_primary, hold_secondary;
};
// Asked before the plan is fitted to the primary stub, where a yes builds the
// secondary beside it (StagePrefetch, as `when` allows), and after. Fitting can only
// lower the threads and so only add parts, never take a need away.
using SecondaryNeeded = bool (*)(const ReduceLaunch& planned, bool fit, bool any_machine);
// `launching`: for a launch (else for Kernel::prepare, which wants the stubs' own);
// `fit`: there is a device whose limits the plan must meet; `any_machine`: passed to
// `needed`.
StagePair find_stage_pair(KernelState& kernel, const LaunchOptions& options, ReduceLaunch& planned,
                          LaunchSummary& summary, bool launching, bool fit, bool any_machine,
                          Pattern second, StagePrefetch::Start when, SecondaryNeeded needed);

// Issues every dispatch of `planned` with `stub`, the `size` bytes of `params` (a
// ReduceParams or SortParams) after the packed arguments (the caller has checked the
// plan against the stub: Device::check_plan). `uses_scratch`: the launch's scratch
// is in use (a failure waits for what was issued before it reports).
void issue_stage(KernelState& kernel, const LoadedStub& stub, const ReduceLaunch& planned,
                 const void* params, std::size_t size, bool uses_scratch, StreamState* stream);

}  // namespace stubjit::detail
