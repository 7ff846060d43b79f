// Group launches: a group kernel's (its body once per group, one group per index of
// the domain) and a tiled launch of a per-element kernel (one group per tile). They
// bind like any launch, then plan groups (make_group_plan), size each group's threads
// and shared memory, and run a group or tiled stub (codegen/group_entries.cpp).
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/kernel_state.hpp"
#include "runtime/launch_steps.hpp"

namespace stubjit::detail {

// Whether `options` make a launch of `kernel` a group launch. Throws ArgumentError,
// before anything runs, for a tile with a group kernel and for a kernel that takes
// tile_index or local_index launched without a tile.
bool is_group_launch(const KernelState& kernel, const LaunchOptions& options);

// A group launch planned, before its stub is found.
struct GroupLaunch {
  BoundArgs bound;
  RunDomains made;              // made.c_order: a Fortran-order domain in C order
  const Domain* run = nullptr;  // the domain the stub runs over (C order)
  Plan plan;                    // groups over the grid; plan.block: threads per group
  StubVariant variant;
  std::uint32_t shared_bytes = 0;
  bool device_threads = false;  // a GPU's threads run each group (the CPU: one host thread)
};

// Binds, checks and plans; throws (ArgumentError, AliasError, PlanError) before
// anything runs. `domain` must outlive `out`.
void plan_group_launch(const KernelState& kernel, const Domain& domain, const Arg* args,
                       std::size_t count, const LaunchOptions& options, GroupLaunch& out);

// Kernel::plan of a group kernel: its groups over the grid, each of the group size a
// launch without options gets (on the CPU the device's largest group: the weight its
// runner gives a group, which one host thread runs).
Plan group_kernel_plan(const KernelState& kernel, const Domain& domain, std::optional<Mode> forced);

// The summary of a planned group launch (compiled false).
LaunchSummary group_summary(const GroupLaunch& planned);

// Kernel::launch, prepare and binary for group launches. `identity` (prepare_group)
// is the stub's, none when no group runs. prepare with `launching` finds the stub a
// launch would run (the generic one where Specialize::background still compiles the
// kernel's own: SplitKernel's check of each part), without it the stub's own (the
// same for prepare_reduce, prepare_scan and prepare_sort).
LaunchSummary launch_group(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options, StreamState* stream);
LaunchSummary prepare_group(KernelState& kernel, const Domain& domain, const Arg* args,
                            std::size_t count, const LaunchOptions& options,
                            std::optional<StubIdentity>& identity, bool launching);

}  // namespace stubjit::detail
