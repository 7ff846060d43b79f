// Fuzzes the planner: a random domain, device limits (tiny ones, the real backends',
// large random ones), block constraints, policy and forced mode. make_plan must either
// refuse with a stubjit::Error (never for a request every device can take) or return
// a plan that
//   - is the forced mode, when one was forced, and keeps the policy's dispatch budget;
//   - keeps the constraints (a fixed shape exactly, launch bounds) and the limits
//     (check_plan_within accepts it);
//   - covers every position of the domain exactly once: its spread ranges tile
//     [0, size) or its direct boxes are disjoint and fill the domain, and, for plans
//     small enough, enumerated thread by thread with the prelude's own index
//     functions, no thread runs outside the domain or twice at one position;
//   - gives its stubs what they rely on: divisors that raise exactly (spread), one
//     group past the rank and positions a 32-bit stub computes without wrapping
//     (direct).
// A broken invariant aborts with the case printed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backends/cpu/cpu_limits.hpp"
#include "common/plan_visits.hpp"
#include "fuzz/fuzz_input.hpp"
#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::fuzz {
namespace {

// Enumerating more threads than this takes too long for a fuzzer's iteration.
constexpr std::uint64_t max_enumerated_threads = std::uint64_t(1) << 16;

[[noreturn]] void fail(const std::string& what, const Domain& domain, const Plan& plan) {
  std::fprintf(stderr, "plan fuzzer: %s\n  domain %s\n  plan %s\n", what.c_str(),
               domain.to_string().c_str(), plan.describe().c_str());
  std::abort();
}

std::int64_t first_index(FuzzInput& in) {
  switch (in.below(4)) {
    case 0:
      return in.between(-8, 8);
    case 1:
      return INT64_MIN + in.between(0, 8);
    case 2:
      return INT64_MAX - in.between(0, 8);
    default:
      return static_cast<std::int64_t>(in.u64());
  }
}

std::int64_t step(FuzzInput& in) {
  switch (in.below(3)) {
    case 0: {
      const std::int64_t s = in.between(-4, 3);
      return s >= 0 ? s + 1 : s;  // never 0
    }
    case 1:
      return in.flag() ? INT64_MAX : INT64_MIN;
    default:
      return static_cast<std::int64_t>(in.u64() | 1);
  }
}

// Small counts, which enumeration can check; now and then a huge one, which only the
// planner's arithmetic and the limits can be checked for.
std::int64_t count(FuzzInput& in, int rank, bool huge) {
  if (huge) return in.between(0, std::int64_t(1) << (62 / rank));
  return in.between(0, rank <= 3 ? 40 : 5);
}

std::uint64_t grid_limit(FuzzInput& in) {
  switch (in.below(4)) {
    case 0:
      return 2147483647ull;
    case 1:
      return 65535;
    default:
      return in.below(9);  // 0..8: 0 is a device that cannot launch
  }
}

// HIP's limits (grid*block counted in 32 bits) for a typical 64-wide GPU; the CPU's
// come from the backend itself (detail::cpu_limits).
DeviceLimits hip_like() {
  DeviceLimits limits;
  limits.max_grid = {2147483647ULL, 2147483647ULL, 2147483647ULL};
  limits.max_block = {1024, 1024, 1024};
  limits.max_threads_per_dim = std::uint64_t(1) << 32;
  limits.warp_size = 64;
  limits.preferred_block.spread = {256, 1, 1};
  limits.preferred_block.direct = {{{256, 1, 1}, {64, 4, 1}, {64, 2, 2}}};
  return limits;
}

DeviceLimits limits_of(FuzzInput& in) {
  switch (in.below(8)) {
    case 0:
      return DeviceLimits{};  // a typical CUDA GPU
    case 1:
      return detail::cpu_limits();
    case 2:
      return hip_like();
    case 3: {  // large, random
      DeviceLimits limits;
      for (int p = 0; p < 3; ++p) limits.max_grid[p] = 1 + (in.u64() >> in.below(64));
      for (int p = 0; p < 3; ++p) limits.max_block[p] = 1 + (in.u32() >> in.below(32));
      limits.max_threads_per_block = 1 + (in.u32() >> in.below(32));
      limits.max_threads_per_dim = in.flag() ? 0 : in.u64() >> in.below(64);
      return limits;
    }
    default:
      break;  // tiny, where every corner is reached
  }
  DeviceLimits limits;
  for (int p = 0; p < 3; ++p) limits.max_grid[p] = grid_limit(in);
  for (int p = 0; p < 3; ++p) limits.max_block[p] = static_cast<std::uint32_t>(in.below(9));
  limits.max_threads_per_block = static_cast<std::uint32_t>(in.below(65));
  limits.max_threads_per_dim = in.flag() ? 0 : in.below(129);
  limits.warp_size = 1u << in.below(7);
  for (std::uint32_t& extent : limits.preferred_block.spread)
    extent = static_cast<std::uint32_t>(in.below(17));
  for (Extent3& shape : limits.preferred_block.direct)
    for (std::uint32_t& extent : shape) extent = static_cast<std::uint32_t>(in.below(17));
  return limits;
}

BlockConstraints constraints_of(FuzzInput& in) {
  BlockConstraints constraints;
  switch (in.below(3)) {
    case 0:
      break;
    case 1:
      constraints.max_threads = static_cast<std::uint32_t>(1 + in.below(64));
      break;
    default:
      // Now and then a zero along one axis: a shape the planner must refuse.
      for (std::uint32_t& extent : constraints.shape)
        extent = static_cast<std::uint32_t>(in.below(16) == 0 ? 0 : 1 + in.below(8));
  }
  return constraints;
}

std::optional<Mode> forced_mode(FuzzInput& in) {
  switch (in.below(4)) {
    case 0:
      return Mode::direct;
    case 1:
      return Mode::spread;
    case 2:
      return Mode::multi;
    default:
      return std::nullopt;
  }
}

// Spread indexing: the dispatches' linear ranges tile [0, size) in order, each with
// threads enough for its range. (The stub stops at linear_end only: a range past the
// domain's size would run threads outside it.)
void check_spread_ranges(const Domain& domain, const Plan& plan) {
  std::int64_t next = 0;
  for (const Dispatch& dispatch : plan.dispatches) {
    if (dispatch.linear_begin != next || dispatch.linear_end <= dispatch.linear_begin)
      fail("spread dispatches do not tile the domain in order", domain, plan);
    if (dispatch.linear_end > domain.size())
      fail("a spread dispatch runs past the domain's end", domain, plan);
    // Saturating: past 2^64 threads, any range fits.
    std::uint64_t threads = 1;
    for (std::uint64_t factor :
         {dispatch.grid[0], dispatch.grid[1], dispatch.grid[2], std::uint64_t(plan.block[0]),
          std::uint64_t(plan.block[1]), std::uint64_t(plan.block[2])}) {
      if (__builtin_mul_overflow(threads, factor, &threads)) threads = ~std::uint64_t(0);
    }
    if (threads < std::uint64_t(dispatch.linear_end - dispatch.linear_begin))
      fail("a spread dispatch has fewer threads than positions", domain, plan);
    next = dispatch.linear_end;
  }
  if (next != domain.size()) fail("spread dispatches stop short of the domain", domain, plan);
}

// Spread indexing: the divisors the host computes for LaunchParams raise the first and
// the last position of each dispatch as a plain division does, in 64 bits and, where
// the domain fits a 32-bit stub, in 32 bits.
void check_spread_divisors(const Domain& domain, const Plan& plan) {
  const int rank = domain.rank();
  const bool fits32 = domain.size() <= 0x7fffffff;
  for (const Dispatch& dispatch : plan.dispatches) {
    for (std::int64_t lin : {dispatch.linear_begin, dispatch.linear_end - 1}) {
      u64 rest = static_cast<u64>(lin);
      u32 rest32 = static_cast<u32>(lin);
      for (int d = rank - 1; d > 0; --d) {
        const u64 count = static_cast<u64>(domain[d].count);
        const FastDivisor divisor = make_fast_divisor(count);
        const u64 expected = rest % count;
        const u64 expected_rest = rest / count;
        if (fast_divmod<u64>(rest, count, divisor.multiplier64, divisor.shift64) != expected ||
            rest != expected_rest)
          fail("the 64-bit divisors raise a position wrongly", domain, plan);
        if (fits32 && (fast_divmod<u32>(rest32, u32(count), divisor.multiplier32,
                                        divisor.shift32) != expected ||
                       rest32 != expected_rest))
          fail("the 32-bit divisors raise a position wrongly", domain, plan);
      }
    }
  }
}

// Direct indexing, what a stub relies on beyond coverage: physical dimensions past the
// rank hold one group, and one thread unless the shape is fixed (the stub checks only
// threads there, and only for a fixed shape); and where the domain fits a 32-bit stub,
// which computes positions in 32 bits, no position a dispatch reaches passes 2^32.
void check_direct_stub_assumptions(const Domain& domain, const Plan& plan,
                                   const BlockConstraints& constraints) {
  const bool fits32 = domain.size() <= 0x7fffffff;
  for (const Dispatch& dispatch : plan.dispatches) {
    for (int p = 0; p < 3; ++p) {
      const std::size_t k = static_cast<std::size_t>(p);
      if (p >= plan.rank && (dispatch.grid[k] != 1 || (!constraints.fixed() && plan.block[k] != 1)))
        fail("a direct dispatch has more than one group or thread past the rank", domain, plan);
      const unsigned __int128 reach =
          static_cast<unsigned __int128>(dispatch.origin[k]) +
          static_cast<unsigned __int128>(dispatch.grid[k]) * plan.block[k];
      if (fits32 && reach > (static_cast<unsigned __int128>(1) << 32))
        fail("a 32-bit direct stub's positions would wrap", domain, plan);
    }
  }
}

// Direct indexing, without enumerating threads: along each physical dimension p a
// dispatch covers [origin, origin + grid*block) clipped to the dimension's count (the
// stub masks the rest; an unused dimension holds position 0 only). The boxes must be
// pairwise disjoint and their volumes add up to the domain's size.
using u128 = unsigned __int128;
struct Box {
  u128 begin[3], end[3];
};

// Whether the boxes are disjoint because they tile a product: along each dimension the
// distinct intervals are disjoint, and no two boxes take the same interval in every
// dimension. O(n log n); false leaves the question open (the caller compares pairs).
bool disjoint_as_a_product(std::vector<Box> boxes) {
  for (int p = 0; p < 3; ++p) {
    std::vector<std::pair<u128, u128>> intervals;
    for (const Box& box : boxes) intervals.emplace_back(box.begin[p], box.end[p]);
    std::sort(intervals.begin(), intervals.end());
    intervals.erase(std::unique(intervals.begin(), intervals.end()), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i)
      if (intervals[i].first < intervals[i - 1].second) return false;
  }
  const auto key = [](const Box& box) {
    return std::make_tuple(box.begin[0], box.begin[1], box.begin[2]);
  };
  std::sort(boxes.begin(), boxes.end(),
            [&](const Box& a, const Box& b) { return key(a) < key(b); });
  for (std::size_t i = 1; i < boxes.size(); ++i)
    if (key(boxes[i]) == key(boxes[i - 1])) return false;
  return true;
}

void check_direct_boxes(const Domain& domain, const Plan& plan) {
  std::vector<Box> boxes;
  u128 volume = 0;
  for (const Dispatch& dispatch : plan.dispatches) {
    Box box{};
    u128 cells = 1;
    for (int p = 0; p < 3; ++p) {
      const u128 count = p < plan.rank ? u128(domain[plan.rank - 1 - p].count) : u128(1);
      const u128 origin = std::uint64_t(dispatch.origin[static_cast<std::size_t>(p)]);
      const u128 reach = origin + u128(dispatch.grid[p]) * plan.block[static_cast<std::size_t>(p)];
      box.begin[p] = origin < count ? origin : count;
      box.end[p] = reach < count ? reach : count;
      cells *= box.end[p] - box.begin[p];
    }
    boxes.push_back(box);
    volume += cells;
  }
  // Comparing every pair is quadratic: thousands of dispatches under the sanitizers
  // took the fuzzer past its time limit. The product check settles the planner's tilings.
  if (!disjoint_as_a_product(boxes)) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        bool overlap = true;
        for (int p = 0; p < 3; ++p)
          overlap =
              overlap && boxes[i].begin[p] < boxes[j].end[p] && boxes[j].begin[p] < boxes[i].end[p];
        if (overlap) fail("two direct dispatches cover the same positions", domain, plan);
      }
    }
  }
  if (volume != u128(domain.size()))
    fail("the direct dispatches do not cover the domain", domain, plan);
}

void check_plan(const Domain& domain, const DeviceLimits& limits,
                const BlockConstraints& constraints, const PlanPolicy& policy,
                std::optional<Mode> forced, const Plan& plan) {
  if (forced && plan.mode != *forced) fail("the forced mode was not kept", domain, plan);
  if (plan.rank != domain.rank()) fail("the plan's rank is not the domain's", domain, plan);
  if (plan.dispatches.size() > policy.max_dispatches)
    fail("more dispatches than policy.max_dispatches", domain, plan);
  if (domain.size() == 0) {
    if (!plan.dispatches.empty()) fail("an empty domain got dispatches", domain, plan);
    return;
  }
  if (plan.dispatches.empty()) fail("a non-empty domain got no dispatch", domain, plan);
  if (constraints.fixed() && plan.block != constraints.shape)
    fail("the fixed block shape was not kept", domain, plan);
  const std::uint64_t group = std::uint64_t(plan.block[0]) * plan.block[1] * plan.block[2];
  if (constraints.max_threads != 0 && group > constraints.max_threads)
    fail("more threads per group than the kernel's launch bounds", domain, plan);
  try {
    check_plan_within(plan, limits);
  } catch (const Error& error) {
    fail(std::string("outside the limits it was made for: ") + error.what(), domain, plan);
  }
  if (test::launched_threads(plan) < std::uint64_t(domain.size()))
    fail("fewer threads than positions", domain, plan);
  if (plan.spread_indexing()) {
    check_spread_ranges(domain, plan);
    check_spread_divisors(domain, plan);
  } else {
    check_direct_boxes(domain, plan);
    check_direct_stub_assumptions(domain, plan, constraints);
  }
  if (test::launched_threads(plan) <= max_enumerated_threads) {
    const test::Visits visits = test::enumerate_visits(domain, plan);
    if (visits.outside != 0)
      fail(std::to_string(visits.outside) + " threads run outside the domain", domain, plan);
    if (visits.wrong_raise != 0) fail("the host's divisors raise positions wrongly", domain, plan);
    for (std::size_t i = 0; i < visits.per_position.size(); ++i) {
      if (visits.per_position[i] != 1)
        fail("position " + std::to_string(i) + " visited " +
                 std::to_string(visits.per_position[i]) + " times",
             domain, plan);
    }
  }
}

// Requests that must get a plan: the default device, policy and constraints, a domain
// of at most 2^40 positions, automatic or multi mode (multi plans any domain within
// the dispatch budget, and these need few dispatches).
bool must_plan(const Domain& domain, const DeviceLimits& limits,
               const BlockConstraints& constraints, const PlanPolicy& policy,
               std::optional<Mode> forced) {
  const DeviceLimits typical;
  const PlanPolicy usual;
  return domain.size() <= (std::int64_t(1) << 40) && limits.max_grid == typical.max_grid &&
         limits.max_block == typical.max_block &&
         limits.max_threads_per_block == typical.max_threads_per_block &&
         limits.max_threads_per_dim == 0 && constraints.max_threads == 0 && !constraints.fixed() &&
         policy.max_dispatches == usual.max_dispatches &&
         policy.max_direct_pieces == usual.max_direct_pieces && (!forced || *forced == Mode::multi);
}

}  // namespace
}  // namespace stubjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stubjit;
  using namespace stubjit::fuzz;
  FuzzInput in(data, size);
  const int rank = static_cast<int>(1 + in.below(8));
  const bool huge = in.below(8) == 0;
  std::vector<Dim> dims;
  for (int d = 0; d < rank; ++d) {
    Dim dim;
    dim.first = first_index(in);
    dim.count = count(in, rank, huge);
    dim.step = step(in);
    dims.push_back(dim);
  }
  std::optional<Domain> domain;
  try {
    domain.emplace(dims);
  } catch (const DomainError&) {
    return 0;  // refused where it enters: nothing to plan
  }
  const DeviceLimits limits = limits_of(in);
  const BlockConstraints constraints = constraints_of(in);
  PlanPolicy policy;
  if (in.flag()) {
    policy.max_direct_pieces = static_cast<std::uint32_t>(in.below(17));
    policy.max_dispatches = static_cast<std::uint32_t>(in.below(513));
  }
  const std::optional<Mode> forced = forced_mode(in);
  Plan plan;
  try {
    plan = make_plan(*domain, limits, constraints, policy, forced);
  } catch (const Error& error) {
    if (must_plan(*domain, limits, constraints, policy, forced)) {
      std::fprintf(stderr,
                   "plan fuzzer: a request every device can take was refused: %s\n  domain %s\n",
                   error.what(), domain->to_string().c_str());
      std::abort();
    }
    return 0;  // a refusal, with a stubjit error: allowed
  }
  check_plan(*domain, limits, constraints, policy, forced, plan);
  return 0;
}
