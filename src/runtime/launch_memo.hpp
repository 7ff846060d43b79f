// The launch fast path's memory, one per thread: for the last kernels this thread
// launched, the domain, forced mode and bindings of the launch, and the plan and stub
// they led to. A plan is a pure function of the domain, the forced mode and what a
// kernel fixes (its runtime's limits and policy, its block constraints); a stub is a
// function of those, the bindings and the values of specialized scalars. A launch that matches
// skips the planner, the identity and the table probe. Per thread, so no lock and no cache line
// shared with other threads; direct-mapped by kernel id (ids are never reused, so an entry of a
// kernel that is gone never matches again).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "bind/bind.hpp"
#include "runtime/kernel_stubs.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

struct LaunchMemo {
  std::uint64_t kernel = 0;  // KernelState::id; 0: empty
  std::optional<Mode> forced;
  std::array<Dim, Domain::max_rank> dims{};
  int rank = 0;
  BindingList bindings;
  bool fits_int32 = false;
  bool dense = false;
  std::int64_t view_stride = 0;
  IndexOrder index_order = identity_order;
  std::uint8_t specialized_count = 0;
  std::array<std::uint64_t, max_specialized_words> specialized{};
  Plan plan;
  const KernelStubs::Record* record = nullptr;
  // Launches running from this entry on this thread: a launch made from within one of
  // them (a callback, a body calling back into the host) must not overwrite the plan
  // it is dispatching from.
  int in_use = 0;

  bool matches(std::uint64_t kernel_id, const Domain& domain, const std::optional<Mode>& mode,
               const BoundArgs& bound) const noexcept {
    if (kernel != kernel_id || rank != domain.rank() || forced != mode ||
        fits_int32 != bound.fits_int32 || dense != bound.dense ||
        view_stride != bound.view_stride || index_order != bound.index_order ||
        specialized_count != bound.specialized_count || !(bindings == bound.bindings))
      return false;
    for (std::size_t i = 0; i < specialized_count; ++i)
      if (specialized[i] != bound.specialized[i]) return false;
    const DimRange now = domain.dims();
    for (int d = 0; d < rank; ++d) {
      const Dim& a = dims[static_cast<std::size_t>(d)];
      const Dim& b = now[static_cast<std::size_t>(d)];
      if (a.first != b.first || a.count != b.count || a.step != b.step) return false;
    }
    return true;
  }

  void remember(std::uint64_t kernel_id, const Domain& domain, const std::optional<Mode>& mode,
                const BoundArgs& bound, const Plan& chosen, const KernelStubs::Record* stub) {
    if (in_use != 0) return;
    // Emptied first and named last: if copying the plan throws (a plan of more than
    // DispatchList::inline_capacity dispatches allocates), the entry matches nothing.
    kernel = 0;
    forced = mode;
    rank = domain.rank();
    for (int d = 0; d < rank; ++d)
      dims[static_cast<std::size_t>(d)] = domain.dims()[static_cast<std::size_t>(d)];
    bindings = bound.bindings;
    fits_int32 = bound.fits_int32;
    dense = bound.dense;
    view_stride = bound.view_stride;
    index_order = bound.index_order;
    specialized_count = bound.specialized_count;
    std::copy_n(bound.specialized.begin(), specialized_count, specialized.begin());
    plan = chosen;
    record = stub;
    kernel = kernel_id;
  }
};

// Marks a memo entry in use for one scope.
class MemoInUse {
 public:
  explicit MemoInUse(LaunchMemo& memo) noexcept : memo_(memo) { ++memo_.in_use; }
  ~MemoInUse() { --memo_.in_use; }
  MemoInUse(const MemoInUse&) = delete;
  MemoInUse& operator=(const MemoInUse&) = delete;

 private:
  LaunchMemo& memo_;
};

// This thread's entry for `kernel_id`.
inline LaunchMemo& launch_memo(std::uint64_t kernel_id) {
  constexpr std::size_t entries = 8;
  thread_local std::array<LaunchMemo, entries> memos;
  return memos[(kernel_id * 0x9e3779b97f4a7c15ULL >> 32) % entries];
}

}  // namespace stubjit::detail
