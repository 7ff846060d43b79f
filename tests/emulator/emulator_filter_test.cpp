// Non-rectangular domains through the real CUDA and HIP stubs on the host emulator:
// under tiny limits (so multi splits), in every mode, each point that passes the filter
// (a predicate, a mask, or both) runs once and the others never, against the domain.
#include <gtest/gtest.h>

#include "common/coverage.hpp"
#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using i64 = std::int64_t;

class EmulatedFilter : public ::testing::TestWithParam<Config> {};

TEST_P(EmulatedFilter, EachPassingPointOnceAndNoOther) {
  RuntimeOptions options;
  options.backend = test::emulator::backend_name(GetParam());
  options.disk_cache = false;
  options.limits = test::tiny_limits();
  Runtime runtime(options);
  // Visits where (i0 + 2 i1) is not a multiple of 3 and the mask is nonzero.
  KernelSource source{"count_filtered",
                      {mask<std::int32_t>("keep"), inout<std::int32_t>("visits")},
                      "stubjit::atomic_add(visits, 1);"};
  source.filter = "(i[0] + 2 * i[1]) % 3 != 0";
  Kernel count = runtime.kernel(source);
  // Row-major fields, and column-major ones, which reorder the launch's dimensions.
  for (const Layout layout : {Layout::row_major, Layout::column_major})
    for (const test::CoverageCase& c : test::tiny_limit_cases()) {
      if (c.rank != 2 && c.rank != 3) continue;
      const Domain domain = test::coverage_domain(c);
      SCOPED_TRACE(std::string(name_of(c.mode)) + " " + domain.to_string() +
                   (layout == Layout::column_major ? " column-major" : " row-major"));
      const std::vector<i64> extents = test::extents_covering(domain);
      Field keep = runtime.allocate<std::int32_t>(extents, layout);
      Field visits = runtime.allocate<std::int32_t>(extents, layout);
      std::vector<std::int32_t> mask(std::size_t(keep.size()));
      for (std::size_t k = 0; k < mask.size(); ++k) mask[k] = k % 5 == 0 ? 0 : 1;
      keep.copy_from(mask);
      visits.copy_from(std::vector<std::int32_t>(mask.size(), 0));
      LaunchOptions forced;
      forced.mode = c.mode;
      EXPECT_EQ(count.launch(forced, domain, keep, visits).mode, c.mode);

      std::vector<std::int32_t> expected(mask.size(), 0);
      for (i64 n = 0; n < domain.size(); ++n) {
        i64 rest = n, offset = 0;
        std::vector<i64> logical(std::size_t(domain.rank()));
        for (int d = domain.rank() - 1; d >= 0; --d) {
          logical[std::size_t(d)] = domain[d].at(rest % domain[d].count);
          rest /= domain[d].count;
          offset += logical[std::size_t(d)] * keep.stride(d);
        }
        if ((logical[0] + 2 * logical[1]) % 3 != 0 && mask[std::size_t(offset)] != 0)
          ++expected[std::size_t(offset)];
      }
      EXPECT_EQ(visits.to_vector<std::int32_t>(), expected);
    }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedFilter,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
