// Shared state behind Kernel handles: the source, its identity (computed once), and
// the stubs it has used.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "cache/stub_identity.hpp"
#include "runtime/background_compiles.hpp"
#include "runtime/kernel_stubs.hpp"
#include "runtime/reduce_scratch.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/scan_status.hpp"

namespace stubjit::detail {

class KernelState {
 public:
  KernelState(std::shared_ptr<RuntimeState> runtime, KernelSource source);

  // Unique in the process, never 0 and never reused (launch_memo.hpp).
  const std::uint64_t id;
  std::shared_ptr<RuntimeState> runtime;
  KernelSource source;
  std::shared_ptr<const KernelIdentity> identity;
  // Per mode and rank: the launch bounds a stub declares where the target takes them
  // (the most threads per group any plan of that mode and rank uses; 0 otherwise).
  // Limits and block constraints are fixed, so this is computed once.
  std::array<std::array<std::uint32_t, 9>, 3> launch_bounds{};
  // The target has a dense variant (TargetTraits::dense_variant), read once here rather
  // than through the toolchain on every launch.
  bool dense_variant = false;
  // The target has a 32-bit index variant (TargetTraits::index32): whether a launch's
  // binding checks that its indices fit in 32 bits. Read once, not on every launch.
  bool index32 = false;
  // The longest innermost extent compiled into a stub (TargetTraits::short_row_limit),
  // 0 where the target or RuntimeOptions::specialize_short_rows says none.
  std::int64_t short_row_limit = 0;
  // A group kernel (a group parameter): every launch is a group launch (group_launch.hpp).
  bool group_kernel = false;
  // A reduce kernel's result parameter (result<T>), a scan kernel's scan (scan<T>) or a
  // sort kernel's keys (sort<T>): every launch is a reduce, scan or sort launch
  // (reduce_launch.hpp, scan_launch.hpp, sort_launch.hpp). nullptr for other kernels.
  const Param* result = nullptr;
  // The first tile_index or local_index parameter, if any: launches need a tile.
  const Param* tile_token = nullptr;
  KernelStubs stubs;
  // Reduce kernels: the partials and counters of launches that split segments.
  ReduceScratch reduce_scratch;
  // Scan kernels: the ticket counter and flags of one-pass GPU launches.
  ScanStatus scan_status;
  // Specialize::background. Last: destroyed first, so that the compile under way
  // finishes while everything it uses is still here.
  BackgroundCompiles background;
};

}  // namespace stubjit::detail
