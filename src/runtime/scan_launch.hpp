// Scan launches: a kernel with a scan parameter (scan<T>). They plan as a reduce launch
// along the dimension scanned (reduce_launch.hpp), then run up to two stubs in order
// on the launch's stream: where a pencil is split into parts, one that leaves each
// part's combination in the partials (Pattern::scan_partials), then the scan itself
// (Pattern::scan: codegen/scan_entries.cpp), each group from the partials before it.
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/kernel_state.hpp"

namespace stubjit::detail {

// Kernel::launch and prepare for scan kernels. prepare finds (compiles) every stage's
// stub and gives the identity of the scan stage's.
LaunchSummary launch_scan(KernelState& kernel, const Domain& domain, const Arg* args,
                          std::size_t count, const LaunchOptions& options, StreamState* stream);
LaunchSummary prepare_scan(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options,
                           std::optional<StubIdentity>& identity, bool launching);

}  // namespace stubjit::detail
