#include "runtime/launch_params.hpp"

namespace stubjit::detail {

// Every field is written (no zero-fill of the whole block first: it is on the hot
// path), dimensions past the rank with zeros, so the bytes a device gets are defined.
// The divisors are zeros until fill_dispatch finds a plan that spreads.
void fill_domain(LaunchParams& lp, const Domain& domain) {
  const DimRange dims = domain.dims();
  const int rank = domain.rank();
  for (int d = 0; d < max_domain_rank; ++d) {
    const bool used = d < rank;
    lp.first[d] = used ? dims[static_cast<std::size_t>(d)].first : 0;
    lp.count[d] = used ? dims[static_cast<std::size_t>(d)].count : 0;
    lp.step[d] = used ? dims[static_cast<std::size_t>(d)].step : 0;
    lp.divisor[d] = FastDivisor{0, 0, 0, 0, 0};
  }
  lp.shared_bytes = 0;
}

// The divisors depend on the domain alone, but only a stub that spreads divides, and
// one division per count is most of what filling costs: they are computed here, for
// the counts a spread stub divides by (1 .. rank-1) and only for plans that spread.
// Again for each dispatch of a multi plan (so that any dispatch can be filled on its
// own); such a plan has several only when one dispatch cannot hold the domain, and
// each is a device launch.
void fill_dispatch(LaunchParams& lp, const Plan& plan, const Dispatch& dispatch) {
  for (int p = 0; p < 3; ++p) {
    lp.origin[p] = dispatch.origin[p];
    lp.grid[p] = dispatch.grid[p];
    lp.block[p] = plan.block[p];
  }
  lp.linear_begin = dispatch.linear_begin;
  lp.linear_end = dispatch.linear_end;
  if (plan.spread_indexing()) {
    for (int d = 1; d < plan.rank; ++d)
      lp.divisor[d] = make_fast_divisor(static_cast<u64>(lp.count[d]));
  }
}

}  // namespace stubjit::detail
