// Sort launches: a kernel with a sort parameter (sort<T>). They plan as a reduce launch
// along the dimension sorted (reduce_launch.hpp, the layout plan/reduce_plan.hpp's
// sort_layout), then run two stubs on the launch's stream over two buffers of scratch
// (kernels/stubjit/sort.h): sort_runs once, each group's part evaluated and sorted,
// then sort_merge once per pass, the runs merged in pairs, the last pass into the
// fields. A segment of one part needs no merge pass, nor the merge stage's stub.
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/kernel_state.hpp"

namespace stubjit::detail {

// Kernel::launch and prepare for sort kernels. A launch finds (compiles) the stubs of the
// stages it runs (the merge stage's only where a segment has several parts); prepare
// also the merge stage's where a launch of the domain on another machine could split
// its segments; it gives the identity of the first's.
LaunchSummary launch_sort(KernelState& kernel, const Domain& domain, const Arg* args,
                          std::size_t count, const LaunchOptions& options, StreamState* stream);
LaunchSummary prepare_sort(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options,
                           std::optional<StubIdentity>& identity, bool launching);

}  // namespace stubjit::detail
