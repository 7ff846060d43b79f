#include "runtime/launch_params.hpp"

namespace stubjit::detail {

// Every field is written (no zero-fill of the whole block first: it is on the hot
// path), dimensions past the rank with zeros, so the bytes a device gets are defined.
void fill_domain(LaunchParams& lp, const Domain& domain) {
  const DimRange dims = domain.dims();
  const int rank = domain.rank();
  for (int d = 0; d < max_domain_rank; ++d) {
    const bool used = d < rank;
    lp.first[d] = used ? dims[static_cast<std::size_t>(d)].first : 0;
    lp.count[d] = used ? dims[static_cast<std::size_t>(d)].count : 0;
    lp.step[d] = used ? dims[static_cast<std::size_t>(d)].step : 0;
  }
  lp.reserved = 0;
}

void fill_dispatch(LaunchParams& lp, const Plan& plan, const Dispatch& dispatch) {
  for (int p = 0; p < 3; ++p) {
    lp.origin[p] = dispatch.origin[p];
    lp.grid[p] = dispatch.grid[p];
    lp.block[p] = plan.block[p];
  }
  lp.linear_begin = dispatch.linear_begin;
  lp.linear_end = dispatch.linear_end;
}

}  // namespace stubjit::detail
