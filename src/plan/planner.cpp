// The planner: chooses mode, group shape and dispatches for a domain. Pure: no I/O,
// no vendor API, no global state.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "plan/plan_math.hpp"
#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"
#include "support/enums.hpp"

namespace stubjit {
namespace {

using detail::div_ceil;
using detail::sat_mul;
using u64 = std::uint64_t;

constexpr const char* axis_name[3] = {"x", "y", "z"};

struct Request {
  const Domain& domain;  // in C order (Domain::in_c_order): its last dimension is the fastest
  const Domain& given;   // as the caller gave it, for messages
  const DeviceLimits& limits;
  const BlockConstraints& constraints;
  const PlanPolicy& policy;
};

// Count of logical dimension mapped to physical dimension p by direct indexing.
u64 direct_count(const Domain& domain, int p) {
  return static_cast<u64>(domain.dims()[static_cast<std::size_t>(domain.rank() - 1 - p)].count);
}

// The dimension of the domain as given that direct indexing maps to physical dimension p.
int given_dim(const Request& r, int p) {
  return r.given.order() == Order::fortran ? p : r.domain.rank() - 1 - p;
}

u64 product(const Extent3& e) { return u64(e[0]) * e[1] * e[2]; }

std::uint32_t thread_budget(const DeviceLimits& limits, const BlockConstraints& constraints) {
  std::uint32_t budget = limits.max_threads_per_block;
  if (constraints.max_threads != 0) budget = std::min(budget, constraints.max_threads);
  return budget;
}

Extent3 checked_fixed_shape(const DeviceLimits& limits, const BlockConstraints& constraints) {
  const Extent3& shape = constraints.shape;
  const std::uint32_t budget = thread_budget(limits, constraints);
  for (int p = 0; p < 3; ++p) {
    if (shape[p] == 0 || shape[p] > limits.max_block[p]) {
      throw PlanError(std::string("max_block[") + axis_name[p] + "]", limits.max_block[p],
                      "fixed block shape " + std::to_string(shape[0]) + "x" +
                          std::to_string(shape[1]) + "x" + std::to_string(shape[2]) +
                          " exceeds the device's block limit along " + axis_name[p]);
    }
  }
  if (product(shape) > budget) {
    throw PlanError("max_threads_per_block", budget,
                    "fixed block shape has " + std::to_string(product(shape)) +
                        " threads, more than the limit " + std::to_string(budget));
  }
  return shape;
}

// Limits under which no dispatch can run at all (a zeroed or half-filled
// DeviceLimits) are refused up front: the arithmetic below would otherwise round
// them up to one thread and plan a launch the device cannot take.
void require_launchable(const DeviceLimits& limits) {
  if (limits.max_threads_per_block == 0) {
    throw PlanError("max_threads_per_block", 0,
                    "the device limits allow no thread per group (max_threads_per_block is 0)");
  }
  for (int p = 0; p < 3; ++p) {
    const std::string axis = axis_name[p];
    if (limits.max_block[p] == 0) {
      throw PlanError(
          "max_block[" + axis + "]", 0,
          "the device limits allow no thread along " + axis + " (max_block[" + axis + "] is 0)");
    }
    if (limits.max_grid[p] == 0) {
      throw PlanError(
          "max_grid[" + axis + "]", 0,
          "the device limits allow no group along " + axis + " (max_grid[" + axis + "] is 0)");
    }
  }
  if (limits.max_threads_per_dim == 1) {
    throw PlanError("max_threads_per_dim", 1,
                    "the device limits allow no thread along any dimension "
                    "(max_threads_per_dim is 1, and spans must stay below it)");
  }
}

// Most threads a group may have along p: the block limit, and below
// max_threads_per_dim (grid*block < max_threads_per_dim needs block < it).
u64 widest_block(const DeviceLimits& limits, int p) {
  u64 widest = limits.max_block[p];
  if (limits.max_threads_per_dim != 0) widest = std::min(widest, limits.max_threads_per_dim - 1);
  return std::max<u64>(widest, 1);
}

// The preferred group shape for an indexing scheme, clamped to the limits: the
// largest shape the planner uses for it (fitting it to a domain only shrinks it).
Extent3 base_block(const DeviceLimits& limits, const BlockConstraints& constraints, bool spread,
                   int rank) {
  if (constraints.fixed()) return checked_fixed_shape(limits, constraints);
  Extent3 b = spread ? limits.preferred_block.spread
                     : limits.preferred_block.direct[static_cast<std::size_t>(rank - 1)];
  const int used = spread ? 3 : rank;
  for (int p = 0; p < 3; ++p) {
    b[p] = p < used ? static_cast<std::uint32_t>(std::clamp<u64>(b[p], 1, widest_block(limits, p)))
                    : 1;
  }
  while (product(b) > thread_budget(limits, constraints)) {
    auto largest = std::max_element(b.begin(), b.end());
    if (*largest == 1) break;
    *largest /= 2;
  }
  return b;
}

// The group shape for direct indexing (spread == false) or spread indexing.
Extent3 choose_block(const Request& r, bool spread) {
  const int rank = r.domain.rank();
  Extent3 b = base_block(r.limits, r.constraints, spread, rank);
  if (spread || r.constraints.fixed()) return b;
  // Fold threads that would idle along a short dimension into the next one, so a
  // 200000 x 2 domain does not waste 30 of every 32 threads.
  for (int p = 0; p < rank; ++p) {
    const u64 count = std::max<u64>(direct_count(r.domain, p), 1);
    while (b[p] > 1 && b[p] / 2 >= count) {
      b[p] /= 2;
      if (p + 1 < rank && u64(b[p + 1]) * 2 <= widest_block(r.limits, p + 1)) b[p + 1] *= 2;
    }
  }
  return b;
}

// Most groups one dispatch may have along p for a block extent b.
u64 group_cap(const DeviceLimits& limits, int p, std::uint32_t b) {
  u64 cap = limits.max_grid[p];
  if (limits.max_threads_per_dim != 0) cap = std::min(cap, (limits.max_threads_per_dim - 1) / b);
  return cap;
}

std::string cap_name(const DeviceLimits& limits, int p, std::uint32_t b) {
  if (limits.max_threads_per_dim != 0 && (limits.max_threads_per_dim - 1) / b < limits.max_grid[p])
    return std::string("max_threads_per_dim[") + axis_name[p] + "]";
  return std::string("max_grid[") + axis_name[p] + "]";
}

void require_caps(const DeviceLimits& limits, const Extent3& b) {
  for (int p = 0; p < 3; ++p) {
    if (group_cap(limits, p, b[p]) == 0) {
      throw PlanError(cap_name(limits, p, b[p]), limits.max_grid[p],
                      std::string("not even one group of ") + std::to_string(b[p]) +
                          " threads fits along " + axis_name[p]);
    }
  }
}

// --- direct indexing -------------------------------------------------------------------

// First physical dimension that one direct dispatch cannot cover, or -1.
int direct_misfit(const Request& r, const Extent3& b) {
  for (int p = 0; p < r.domain.rank(); ++p) {
    if (div_ceil(direct_count(r.domain, p), u64(b[p])) > group_cap(r.limits, p, b[p])) return p;
  }
  return -1;
}

Dispatch single_direct(const Request& r, const Extent3& b) {
  Dispatch d;
  for (int p = 0; p < r.domain.rank(); ++p)
    d.grid[p] = div_ceil(direct_count(r.domain, p), u64(b[p]));
  return d;
}

// Threads one direct piece covers along p: a whole number of groups.
u64 piece_span(const Request& r, const Extent3& b, int p) {
  return sat_mul(group_cap(r.limits, p, b[p]), b[p]);
}

u64 direct_piece_count(const Request& r, const Extent3& b) {
  u64 pieces = 1;
  for (int p = 0; p < r.domain.rank(); ++p)
    pieces = sat_mul(pieces, div_ceil(direct_count(r.domain, p), piece_span(r, b, p)));
  return pieces;
}

// The patent's approach 3: tile the domain with direct dispatches, each carrying
// its origin. Order: z outermost, x innermost.
DispatchList direct_pieces(const Request& r, const Extent3& b) {
  const int rank = r.domain.rank();
  u64 span[3] = {1, 1, 1};
  u64 pieces[3] = {1, 1, 1};
  for (int p = 0; p < rank; ++p) {
    span[p] = piece_span(r, b, p);
    pieces[p] = div_ceil(direct_count(r.domain, p), span[p]);
  }
  DispatchList out;
  for (u64 kz = 0; kz < pieces[2]; ++kz) {
    for (u64 ky = 0; ky < pieces[1]; ++ky) {
      for (u64 kx = 0; kx < pieces[0]; ++kx) {
        const u64 k[3] = {kx, ky, kz};
        Dispatch d;
        for (int p = 0; p < rank; ++p) {
          const u64 origin = k[p] * span[p];
          const u64 extent = std::min(span[p], direct_count(r.domain, p) - origin);
          d.origin[p] = static_cast<std::int64_t>(origin);
          d.grid[p] = div_ceil(extent, u64(b[p]));
        }
        out.push_back(d);
      }
    }
  }
  return out;
}

// --- spread indexing -------------------------------------------------------------------

std::array<u64, 3> spread_caps(const DeviceLimits& limits, const Extent3& b) {
  return {group_cap(limits, 0, b[0]), group_cap(limits, 1, b[1]), group_cap(limits, 2, b[2])};
}

u64 nearest_root(u64 value, int degree) {
  auto root =
      static_cast<u64>(std::llround(std::pow(static_cast<long double>(value), 1.0L / degree)));
  return std::max<u64>(root, 1);
}

// Spreads `groups` over a 3-D grid within `cap`, pivoting around the cube root as the
// patent suggests and searching a small window around it for the least waste.
// Returns false when one dispatch cannot hold that many groups.
bool spread_grid(u64 groups, const std::array<u64, 3>& cap, std::array<u64, 3>& grid) {
  if (groups <= cap[0]) {
    grid = {groups, 1, 1};
    return true;
  }
  const u64 z_min = div_ceil(groups, sat_mul(cap[0], cap[1]));
  if (z_min > cap[2]) return false;
  constexpr u64 window = 16;
  const u64 z_pivot = std::clamp(nearest_root(groups, 3), z_min, cap[2]);
  u64 best_waste = std::numeric_limits<u64>::max();
  for (u64 z = z_pivot > z_min + window ? z_pivot - window : z_min;
       z <= std::min(cap[2], z_pivot + window); ++z) {
    const u64 rest = div_ceil(groups, z);
    const u64 y_min = div_ceil(rest, cap[0]);
    if (y_min > cap[1]) continue;
    const u64 y_pivot = std::clamp(nearest_root(rest, 2), y_min, cap[1]);
    for (u64 y = y_pivot > y_min + window ? y_pivot - window : y_min;
         y <= std::min(cap[1], y_pivot + window); ++y) {
      const u64 x = div_ceil(groups, y * z);
      if (x > cap[0]) continue;
      const u64 waste = x * y * z - groups;
      if (waste < best_waste) {
        best_waste = waste;
        grid = {x, y, z};
      }
    }
  }
  return best_waste != std::numeric_limits<u64>::max();
}

bool single_spread(const Request& r, const Extent3& b, Dispatch& d) {
  const u64 total = static_cast<u64>(r.domain.size());
  if (!spread_grid(div_ceil(total, product(b)), spread_caps(r.limits, b), d.grid)) return false;
  d.linear_begin = 0;
  d.linear_end = r.domain.size();
  return true;
}

u64 spread_chunk_threads(const Request& r, const Extent3& b) {
  const auto cap = spread_caps(r.limits, b);
  return sat_mul(sat_mul(sat_mul(cap[0], cap[1]), cap[2]), product(b));
}

u64 spread_chunk_count(const Request& r, const Extent3& b) {
  return div_ceil(static_cast<u64>(r.domain.size()), spread_chunk_threads(r, b));
}

DispatchList spread_chunks(const Request& r, const Extent3& b) {
  const u64 total = static_cast<u64>(r.domain.size());
  const u64 chunk = spread_chunk_threads(r, b);
  const auto cap = spread_caps(r.limits, b);
  DispatchList out;
  for (u64 begin = 0; begin < total; begin += std::min(chunk, total - begin)) {
    Dispatch d;
    const u64 end = begin + std::min(chunk, total - begin);
    spread_grid(div_ceil(end - begin, product(b)), cap, d.grid);  // fits by construction
    d.linear_begin = static_cast<std::int64_t>(begin);
    d.linear_end = static_cast<std::int64_t>(end);
    out.push_back(d);
  }
  return out;
}

void require_dispatch_budget(const Request& r, u64 needed) {
  if (needed > r.policy.max_dispatches) {
    throw PlanError("max_dispatches", r.policy.max_dispatches,
                    "domain " + r.given.to_string() + " needs " + std::to_string(needed) +
                        " dispatches, more than the limit " +
                        std::to_string(r.policy.max_dispatches));
  }
}

// --- mode choice -----------------------------------------------------------------------

// `block`: choose_block(r, false), which the caller may have computed already.
Plan plan_direct(const Request& r, bool forced, const Extent3& block) {
  Plan plan{Mode::direct, r.domain.rank(), block, {}};
  require_caps(r.limits, plan.block);
  if (forced) {
    const int p = direct_misfit(r, plan.block);
    if (p >= 0) {
      const u64 groups = div_ceil(direct_count(r.domain, p), u64(plan.block[p]));
      throw PlanError(cap_name(r.limits, p, plan.block[p]), group_cap(r.limits, p, plan.block[p]),
                      "forced mode direct cannot cover domain " + r.given.to_string() +
                          ": dimension " + std::to_string(given_dim(r, p)) + " needs " +
                          std::to_string(groups) + " groups along " + axis_name[p] +
                          ", the limit is " +
                          std::to_string(group_cap(r.limits, p, plan.block[p])));
    }
  }
  if (!r.domain.empty()) plan.dispatches.push_back(single_direct(r, plan.block));
  return plan;
}

Plan plan_spread(const Request& r, bool forced) {
  Plan plan{Mode::spread, r.domain.rank(), choose_block(r, true), {}};
  require_caps(r.limits, plan.block);
  if (r.domain.empty()) return plan;
  Dispatch d;
  if (!single_spread(r, plan.block, d)) {
    if (forced) {
      throw PlanError("max_grid", spread_chunk_threads(r, plan.block),
                      "forced mode spread cannot cover domain " + r.given.to_string() +
                          " in one dispatch: it holds at most " +
                          std::to_string(spread_chunk_threads(r, plan.block)) + " threads");
    }
    return plan;  // caller falls back to multi
  }
  plan.dispatches.push_back(d);
  return plan;
}

Plan plan_multi(const Request& r) {
  const bool direct = r.domain.rank() <= 3;
  Plan plan{Mode::multi, r.domain.rank(), choose_block(r, !direct), {}};
  require_caps(r.limits, plan.block);
  if (r.domain.empty()) return plan;
  require_dispatch_budget(
      r, direct ? direct_piece_count(r, plan.block) : spread_chunk_count(r, plan.block));
  plan.dispatches = direct ? direct_pieces(r, plan.block) : spread_chunks(r, plan.block);
  return plan;
}

Plan choose(const Request& r) {
  if (r.domain.rank() <= 3) {
    const Extent3 b = choose_block(r, false);
    require_caps(r.limits, b);
    if (r.domain.empty() || direct_misfit(r, b) < 0) return plan_direct(r, false, b);
    if (direct_piece_count(r, b) <= r.policy.max_direct_pieces) return plan_multi(r);
    Plan spread = plan_spread(r, false);
    if (!spread.dispatches.empty()) return spread;
    return plan_multi(r);
  }
  Plan spread = plan_spread(r, false);
  if (r.domain.empty() || !spread.dispatches.empty()) return spread;
  return plan_multi(r);
}

Plan plan_for(const Request& r, std::optional<Mode> forced) {
  if (!forced) return choose(r);
  if (!detail::is_valid(*forced)) {
    throw ArgumentError("", "the forced mode holds " + detail::number_of(*forced) +
                                ", which is no Mode (direct, spread or multi)");
  }
  switch (*forced) {
    case Mode::direct:
      if (r.domain.rank() > 3) {
        throw PlanError("rank", 3,
                        "forced mode direct needs rank <= 3; domain " + r.given.to_string() +
                            " has rank " + std::to_string(r.domain.rank()));
      }
      return plan_direct(r, true, choose_block(r, false));
    case Mode::spread:
      return plan_spread(r, true);
    case Mode::multi:
      return plan_multi(r);
  }
  return choose(r);
}

}  // namespace

void check_plan_within(const Plan& plan, const DeviceLimits& limits) {
  const u64 threads = product(plan.block);
  if (threads > limits.max_threads_per_block) {
    throw PlanError("max_threads_per_block", limits.max_threads_per_block,
                    "the plan's groups have " + std::to_string(threads) +
                        " threads; the device allows " +
                        std::to_string(limits.max_threads_per_block));
  }
  for (int p = 0; p < 3; ++p) {
    const std::string axis = axis_name[p];
    if (plan.block[p] > limits.max_block[p]) {
      throw PlanError("max_block[" + axis + "]", limits.max_block[p],
                      "the plan's groups have " + std::to_string(plan.block[p]) +
                          " threads along " + axis + "; the device allows " +
                          std::to_string(limits.max_block[p]));
    }
    for (const Dispatch& d : plan.dispatches) {
      if (d.grid[p] > limits.max_grid[p]) {
        throw PlanError("max_grid[" + axis + "]", limits.max_grid[p],
                        "a dispatch has " + std::to_string(d.grid[p]) + " groups along " + axis +
                            "; the device allows " + std::to_string(limits.max_grid[p]));
      }
      const unsigned __int128 span = static_cast<unsigned __int128>(d.grid[p]) * plan.block[p];
      if (limits.max_threads_per_dim != 0 && span >= limits.max_threads_per_dim) {
        throw PlanError("max_threads_per_dim[" + axis + "]", limits.max_threads_per_dim,
                        "a dispatch spans " + std::to_string(static_cast<u64>(span)) +
                            " threads along " + axis + "; the device allows fewer than " +
                            std::to_string(limits.max_threads_per_dim));
      }
    }
  }
}

std::uint32_t max_group_threads(const DeviceLimits& limits, const BlockConstraints& constraints,
                                Mode mode, int rank) {
  require_launchable(limits);
  const bool spread = mode == Mode::spread || rank > 3;
  return static_cast<std::uint32_t>(product(base_block(limits, constraints, spread, rank)));
}

Plan make_plan(const Domain& domain, const DeviceLimits& limits,
               const BlockConstraints& constraints, const PlanPolicy& policy,
               std::optional<Mode> forced) {
  require_launchable(limits);
  // The fastest dimension goes to x: a Fortran-order domain is planned in C order.
  const Domain c_order = domain.in_c_order();
  const Request r{c_order, domain, limits, constraints, policy};
  Plan plan = plan_for(r, forced);
  // The one-dispatch modes count too: a budget of 0 launches nothing.
  require_dispatch_budget(r, plan.dispatches.size());
  return plan;
}

}  // namespace stubjit
