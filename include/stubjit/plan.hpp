// Dispatch planning: how a compute domain is covered by physical launches.
//
// Physical dimensions are x, y, z (x varies fastest). Direct indexing maps the
// domain's fastest dimension to x, the next to y and the next to z: in C order logical
// dimension N-1 (the contiguous one in row-major fields) to x, N-2 to y, N-3 to z; in
// Fortran order dimension 0 to x, 1 to y, 2 to z (Order). Spread indexing flattens the
// thread id of the dispatch to a linear position and raises it to an N-dimensional
// one, fastest dimension fastest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/export.hpp"

namespace stubjit {

enum class Mode : std::uint8_t {
  direct,  // rank <= 3, one logical dimension per physical one, one dispatch
  spread,  // flatten + raise, groups spread over x/y/z around the cube root, one dispatch
  multi,   // several dispatches with origins: direct pieces (rank <= 3) or spread chunks
};

STUBJIT_API const char* name_of(Mode mode) noexcept;
// Parses "direct", "spread" or "multi"; throws stubjit::Error otherwise.
STUBJIT_API Mode parse_mode(const std::string& text);

using Extent3 = std::array<std::uint32_t, 3>;

// Threads per group the planner prefers, per indexing scheme. Backends set their
// own table (a CPU group is a run of iterations for one worker, a GPU group a
// thread block). The planner shrinks a shape to the limits and folds unused x
// threads into y (and y into z) when the innermost extent is small.
struct BlockShapes {
  Extent3 spread{256, 1, 1};
  std::array<Extent3, 3> direct{{{256, 1, 1}, {32, 8, 1}, {32, 4, 2}}};  // rank 1, 2, 3
};

// What one dispatch of a device may be. Backends fill these from the device; the
// runtime accepts an override so that tests can use small artificial limits.
struct DeviceLimits {
  std::array<std::uint64_t, 3> max_grid{2147483647ULL, 65535, 65535};  // groups per dim
  Extent3 max_block{1024, 1024, 64};                                   // threads per dim
  std::uint32_t max_threads_per_block = 1024;
  // grid*block along one dimension must stay below this (HIP counts the grid in
  // work-items as a uint32); 0 means no such limit.
  std::uint64_t max_threads_per_dim = 0;
  std::uint32_t warp_size = 32;
  BlockShapes preferred_block{};
  // Bytes of group-shared memory one group may have (shared<T> parameters).
  std::uint32_t max_shared_bytes = 48 * 1024;
};

// The kernel's constraints on its group shape (IrGL's block-size classes): by
// default elastic (the planner chooses); shrinkable with max_threads set (the
// kernel's launch bounds); fixed with shape set.
struct BlockConstraints {
  std::uint32_t max_threads = 0;  // 0: the device limit
  Extent3 shape{0, 0, 0};         // all zero: chosen by the planner
  bool fixed() const noexcept { return shape[0] != 0; }
};

// Tunables of the mode choice, separate from what the device can do.
struct PlanPolicy {
  // For rank <= 3 when one direct dispatch cannot cover the domain: use at most
  // this many direct dispatches with origins (mode multi) before turning to spread.
  std::uint32_t max_direct_pieces = 8;
  // Hard cap on the dispatches of one launch; a domain that needs more is refused.
  std::uint32_t max_dispatches = 65536;
};

struct Dispatch {
  std::array<std::uint64_t, 3> grid{1, 1, 1};  // groups per physical dim x, y, z
  // Direct indexing: position of the first thread, per physical dimension x, y, z.
  std::array<std::int64_t, 3> origin{0, 0, 0};
  // Spread indexing: the flat positions [linear_begin, linear_end) it covers.
  std::int64_t linear_begin = 0;
  std::int64_t linear_end = 0;
};

// The dispatches of a plan. Up to inline_capacity of them are kept inline (every
// single-dispatch plan, and multi plans of up to 8 pieces: with the default PlanPolicy,
// automatic planning turns to spread beyond that for rank <= 3), so planning a launch
// allocates nothing; more go to the heap.
class STUBJIT_API DispatchList {
 public:
  static constexpr std::size_t inline_capacity = 8;

  DispatchList() noexcept {}
  DispatchList(const DispatchList& other) { assign(other); }
  DispatchList(DispatchList&& other) noexcept { take(other); }
  DispatchList& operator=(const DispatchList& other) {
    if (this != &other) assign(other);
    return *this;
  }
  DispatchList& operator=(DispatchList&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }
  ~DispatchList() = default;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const Dispatch* begin() const noexcept { return data(); }
  const Dispatch* end() const noexcept { return data() + size_; }
  Dispatch* begin() noexcept { return data(); }
  Dispatch* end() noexcept { return data() + size_; }
  const Dispatch& operator[](std::size_t i) const noexcept { return data()[i]; }
  Dispatch& operator[](std::size_t i) noexcept { return data()[i]; }
  // Throws std::out_of_range past the end.
  const Dispatch& at(std::size_t i) const;
  const Dispatch& front() const noexcept { return data()[0]; }
  const Dispatch& back() const noexcept { return data()[size_ - 1]; }
  void push_back(const Dispatch& dispatch);
  void clear() noexcept;

 private:
  static_assert(std::is_trivially_copyable_v<Dispatch> &&
                    std::is_trivially_destructible_v<Dispatch>,
                "DispatchList copies and drops dispatches as bytes");
  // Raw storage, not Dispatch objects: a plan of one dispatch constructs one, not eight.
  const Dispatch* inline_data() const noexcept {
    return std::launder(reinterpret_cast<const Dispatch*>(inline_));
  }
  Dispatch* inline_data() noexcept { return std::launder(reinterpret_cast<Dispatch*>(inline_)); }
  const Dispatch* data() const noexcept {
    return size_ <= inline_capacity ? inline_data() : heap_.data();
  }
  Dispatch* data() noexcept { return size_ <= inline_capacity ? inline_data() : heap_.data(); }
  void assign(const DispatchList& other) {
    if (other.size_ > inline_capacity) {
      heap_ = other.heap_;
    } else {
      heap_.clear();
      for (std::size_t i = 0; i < other.size_; ++i)
        new (inline_ + i * sizeof(Dispatch)) Dispatch(other.inline_data()[i]);
    }
    size_ = other.size_;
  }
  void take(DispatchList& other) noexcept {
    if (other.size_ > inline_capacity) {
      heap_ = std::move(other.heap_);
    } else {
      heap_.clear();
      for (std::size_t i = 0; i < other.size_; ++i)
        new (inline_ + i * sizeof(Dispatch)) Dispatch(other.inline_data()[i]);
    }
    size_ = other.size_;
    other.clear();
  }

  alignas(Dispatch) unsigned char inline_[inline_capacity * sizeof(Dispatch)];
  std::vector<Dispatch> heap_;  // every dispatch, once there are more than inline_capacity
  std::size_t size_ = 0;
};

struct STUBJIT_API Plan {
  Mode mode = Mode::direct;
  int rank = 1;
  Extent3 block{1, 1, 1};
  DispatchList dispatches;  // empty for an empty domain: nothing runs

  // True when the stub flattens and raises (spread, and multi for rank > 3).
  bool spread_indexing() const noexcept {
    return mode == Mode::spread || (mode == Mode::multi && rank > 3);
  }
  // "multi r2 block 32x8x1, 4 dispatches: [grid 256x256x1 origin 0,0,0] ..."
  std::string describe() const;
};

// The planner: a pure function of its inputs. Without a forced mode it chooses
//   rank <= 3: direct if one dispatch fits; else multi if it needs at most
//              policy.max_direct_pieces direct dispatches; else spread if one spread
//              dispatch fits; else multi with as many direct dispatches as needed;
//   rank > 3:  spread if one dispatch fits, else multi (spread chunks).
// A forced mode is honoured or refused with a PlanError: direct needs rank <= 3 and
// one fitting dispatch; spread needs one fitting dispatch; multi plans any domain
// that needs at most policy.max_dispatches dispatches (as every mode does).
STUBJIT_API Plan make_plan(const Domain& domain, const DeviceLimits& limits,
                           const BlockConstraints& constraints = {}, const PlanPolicy& policy = {},
                           std::optional<Mode> forced = std::nullopt);

// Throws PlanError, naming the limit, unless every dispatch of `plan` is within
// `limits`. The runtime applies it when planning used overridden limits, against the
// device's own, so that nothing runs unless every dispatch can.
STUBJIT_API void check_plan_within(const Plan& plan, const DeviceLimits& limits);

// Group launches (a group kernel's, or a tiled launch of a per-element kernel): one
// physical group of `shape` threads (x fastest) per group, the groups numbered 0 to
// groups - 1 and spread over the grid as a spread plan spreads positions (each
// dispatch's linear_begin/linear_end count groups). The plan's mode is spread and its
// rank 1; a forced mode other than spread is refused with a PlanError, as is a count
// of groups one dispatch cannot hold.
STUBJIT_API Plan make_group_plan(std::uint64_t groups, const Extent3& shape,
                                 const DeviceLimits& limits, const PlanPolicy& policy = {},
                                 std::optional<Mode> forced = std::nullopt);

// The threads of each group of a group launch. `requested` is what the launch asks
// for (0: the kernel's fixed size, else `preferred`, else the device's preferred
// spread group), within IrGL's classes:
//   fixed       (constraints.shape set): exactly its size; another request, or a size
//               above the device's limit, is a PlanError;
//   shrinkable  (constraints.max_threads set: the kernel's compiled maximum);
//   elastic     any size up to the device's limit.
// A request above the compiled maximum (shrinkable: the kernel's, elastic: the
// device's; a stub's launch bounds) is a PlanError naming both numbers. A size the
// launch did not ask for (`preferred`, the default) shrinks to it, rounded down to
// whole warps where it is larger than one.
STUBJIT_API std::uint32_t group_threads(std::uint32_t requested, std::uint32_t preferred,
                                        const BlockConstraints& constraints,
                                        const DeviceLimits& limits);

// The most threads any group of a group launch of this kernel has: a group stub's
// launch bounds.
STUBJIT_API std::uint32_t max_group_launch_threads(const BlockConstraints& constraints,
                                                   const DeviceLimits& limits);

// The most threads per group any plan of this mode and rank uses: what a GPU stub
// declares as its launch bounds.
STUBJIT_API std::uint32_t max_group_threads(const DeviceLimits& limits,
                                            const BlockConstraints& constraints, Mode mode,
                                            int rank);

}  // namespace stubjit
