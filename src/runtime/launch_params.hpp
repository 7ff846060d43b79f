// The host half of the LaunchParams contract (kernels/stubjit/launch.h): what every
// dispatch of a launch passes to its stub next to the packed arguments.
#pragma once

#include "stubjit/domain.hpp"
#include "stubjit/launch.h"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

// The domain's part, once per launch: first, count and step of every dimension (zeros
// past the rank), the divisors zeroed.
void fill_domain(LaunchParams& lp, const Domain& domain);

// One dispatch's part, before each dispatch and after fill_domain: origin, linear
// range, grid and group shape, and for a plan that spreads the divisors of the
// domain's counts (which it reads from lp).
void fill_dispatch(LaunchParams& lp, const Plan& plan, const Dispatch& dispatch);

}  // namespace stubjit::detail
