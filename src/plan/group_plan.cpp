// Planning group launches: how many threads each group has, and how the groups are
// spread over the grid. Pure, like planner.cpp.
#include <algorithm>
#include <string>

#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"

namespace stubjit {
namespace {

using u64 = std::uint64_t;

u64 product(const Extent3& e) { return u64(e[0]) * e[1] * e[2]; }

// Whole warps where the size is larger than one warp (a partial last warp idles lanes).
std::uint32_t whole_warps(std::uint32_t threads, std::uint32_t warp) {
  if (warp <= 1 || threads <= warp) return threads;
  return threads / warp * warp;
}

}  // namespace

std::uint32_t max_group_launch_threads(const BlockConstraints& constraints,
                                       const DeviceLimits& limits) {
  if (constraints.fixed()) return static_cast<std::uint32_t>(product(constraints.shape));
  std::uint32_t most = limits.max_threads_per_block;
  if (constraints.max_threads != 0) most = std::min(most, constraints.max_threads);
  return most;
}

std::uint32_t group_threads(std::uint32_t requested, std::uint32_t preferred,
                            const BlockConstraints& constraints, const DeviceLimits& limits) {
  const std::uint32_t device = limits.max_threads_per_block;
  if (device == 0) {
    throw PlanError("max_threads_per_block", 0,
                    "the device limits allow no thread per group (max_threads_per_block is 0)");
  }
  if (constraints.fixed()) {
    const u64 fixed = product(constraints.shape);
    if (requested != 0 && requested != fixed) {
      throw PlanError("fixed group size", fixed,
                      "the launch asks for groups of " + std::to_string(requested) +
                          " threads; the kernel fixes its groups at " + std::to_string(fixed));
    }
    if (fixed > device) {
      throw PlanError("max_threads_per_block", device,
                      "the kernel fixes its groups at " + std::to_string(fixed) +
                          " threads; the device allows at most " + std::to_string(device));
    }
    return static_cast<std::uint32_t>(fixed);
  }
  // The most a group may have: what its stubs are compiled for (their launch bounds:
  // the kernel's maximum, else the device's). A request above it is refused, never cut.
  std::uint32_t limit = device;
  if (constraints.max_threads != 0) limit = std::min(limit, constraints.max_threads);
  if (requested > limit) {
    const bool kernels = constraints.max_threads != 0 && constraints.max_threads <= device;
    throw PlanError(kernels ? "max_threads" : "max_threads_per_block", limit,
                    "the launch asks for groups of " + std::to_string(requested) +
                        " threads; the kernel's stubs are compiled for at most " +
                        std::to_string(limit) +
                        (kernels ? " (its maximum)" : " (the device's limit)"));
  }
  std::uint32_t wanted = requested;
  if (wanted == 0) wanted = preferred;
  if (wanted == 0) wanted = static_cast<std::uint32_t>(product(limits.preferred_block.spread));
  if (wanted <= limit) return std::max<std::uint32_t>(wanted, 1);
  return std::max<std::uint32_t>(whole_warps(limit, limits.warp_size), 1);
}

Plan make_group_plan(u64 groups, const Extent3& shape, const DeviceLimits& limits,
                     const PlanPolicy& policy, std::optional<Mode> forced) {
  if (forced && *forced != Mode::spread) {
    throw PlanError("mode", static_cast<std::uint64_t>(*forced),
                    std::string("a group launch numbers its groups and spreads them over the "
                                "grid; mode ") +
                        name_of(*forced) + " cannot be forced");
  }
  for (int p = 0; p < 3; ++p) {
    if (shape[p] == 0 || shape[p] > limits.max_block[p]) {
      static const char* const axis[3] = {"x", "y", "z"};
      throw PlanError(std::string("max_block[") + axis[p] + "]", limits.max_block[p],
                      "a group of " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) +
                          "x" + std::to_string(shape[2]) +
                          " threads exceeds the device's block limit along " + axis[p]);
    }
  }
  if (product(shape) > limits.max_threads_per_block) {
    throw PlanError("max_threads_per_block", limits.max_threads_per_block,
                    "a group of " + std::to_string(product(shape)) +
                        " threads exceeds the device's limit of " +
                        std::to_string(limits.max_threads_per_block));
  }
  // One position per group: the spread planner then lays the groups out over x, y, z.
  DeviceLimits one_per_group = limits;
  one_per_group.max_block = {1, 1, 1};
  one_per_group.max_threads_per_block = 1;
  one_per_group.preferred_block.spread = {1, 1, 1};
  if (limits.max_threads_per_dim != 0) {
    // grid * block along a dimension stays below the limit with the real group shape.
    const u64 widest = std::max({shape[0], shape[1], shape[2]});
    one_per_group.max_threads_per_dim = std::max<u64>(limits.max_threads_per_dim / widest, 2);
  }
  const Domain numbered{static_cast<std::int64_t>(groups)};
  Plan plan = make_plan(numbered, one_per_group, {}, policy, Mode::spread);
  plan.block = shape;
  return plan;
}

}  // namespace stubjit
