// Exactly-once coverage checks shared by the CPU, CUDA and HIP suites: small forced
// limits that make multi-dispatch really split, strided and reversed domains of every
// rank, and the host-side expectation computed from the domain alone.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// At most 3 groups per dimension of at most 4 x 2 x 2 threads.
inline DeviceLimits tiny_limits(std::uint32_t warp_size = 32) {
  DeviceLimits limits;
  limits.max_grid = {3, 3, 3};
  limits.max_block = {4, 2, 2};
  limits.max_threads_per_block = 16;
  limits.warp_size = warp_size;
  limits.preferred_block.spread = {4, 2, 1};
  limits.preferred_block.direct = {{{4, 1, 1}, {4, 2, 1}, {2, 2, 2}}};
  return limits;
}

struct CoverageCase {
  int rank;
  Mode mode;
};

// Strided, offset and reversed dimensions with non-negative logical indices. From
// rank 2 on, too large for one dispatch under tiny_limits(), so multi really splits;
// direct cases (which need one dispatch) get a smaller box of the same kind.
inline Domain coverage_domain(const CoverageCase& c) {
  if (c.mode == Mode::direct && c.rank > 1) {
    const std::vector<Dim> box = {Dim{3, 5, 2}, Dim{0, 5, 1}, Dim{10, 4, -3}};
    return Domain(std::vector<Dim>(box.end() - c.rank, box.end()));
  }
  const std::vector<Dim> all = {Dim{3, 7, 2}, Dim{0, 5, 1},  Dim{10, 4, -3}, Dim{0, 3, 1},
                                Dim{1, 2, 5}, Dim{5, 3, -1}, Dim{0, 2, 1},   Dim{1, 2, 2}};
  return Domain(std::vector<Dim>(all.begin(), all.begin() + c.rank));
}

// Every rank 1..8 in every mode that can apply under tiny_limits(); spread needs one
// dispatch, which only small domains fit.
inline std::vector<CoverageCase> tiny_limit_cases() {
  std::vector<CoverageCase> cases;
  for (int rank = 1; rank <= 8; ++rank) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      if (mode == Mode::direct && rank > 3) continue;
      if (mode == Mode::spread && coverage_domain({rank, mode}).size() > 27 * 8) continue;
      cases.push_back({rank, mode});
    }
  }
  return cases;
}

// Field extents that hold every logical index of the domain (plus a margin that must
// stay untouched).
inline std::vector<std::int64_t> extents_covering(const Domain& domain) {
  std::vector<std::int64_t> extents;
  for (const Dim& d : domain.dims()) extents.push_back(std::max(d.first, d.at(d.count - 1)) + 3);
  return extents;
}

inline std::string case_name(const ::testing::TestParamInfo<CoverageCase>& info) {
  return std::string(name_of(info.param.mode)) + "_rank" + std::to_string(info.param.rank);
}

// Checks the read-back fields of check_exactly_once below (row-major over `extents`,
// elements 0 and -1 where untouched): each index of `domain` visited once, holding its
// own index_code, every other element untouched. The fields are checked in place:
// each index of the domain is checked and reset to the untouched value, then every
// element must hold that value (a rank-8 domain's fields hold 14 million elements for
// its 10080 indices; whole expected vectors beside them took most of a rank-8 case's
// time). Separate so that its own test (unit/coverage_check_test.cpp) can feed it
// wrong fields.
inline void check_visits_and_codes(const Domain& domain, const std::vector<std::int64_t>& extents,
                                   const std::string& where, std::vector<std::int32_t> visited,
                                   std::vector<std::int64_t> written) {
  constexpr std::int32_t unvisited = 0;
  constexpr std::int64_t unwritten = -1;
  if (visited.size() != written.size()) {
    ADD_FAILURE() << where << ": " << visited.size() << " visit counts, " << written.size()
                  << " codes";
    return;
  }
  const int rank = domain.rank();
  std::vector<std::int64_t> logical(static_cast<std::size_t>(rank));
  for (std::int64_t n = 0; n < domain.size(); ++n) {
    std::int64_t rest = n;
    for (int d = rank - 1; d >= 0; --d) {
      logical[static_cast<std::size_t>(d)] = domain[d].at(rest % domain[d].count);
      rest /= domain[d].count;
    }
    std::size_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      offset = offset * static_cast<std::size_t>(extents[static_cast<std::size_t>(d)]) +
               static_cast<std::size_t>(logical[static_cast<std::size_t>(d)]);
    }
    if (offset >= visited.size()) {
      ADD_FAILURE() << where << ": the domain's index number " << n << " lies outside the fields";
      return;
    }
    if (visited[offset] != 1 || written[offset] != index_code(logical)) {
      ADD_FAILURE() << where << ": the domain's index number " << n << " (element " << offset
                    << ") was visited " << visited[offset] << " times and holds " << written[offset]
                    << ", not once with " << index_code(logical);
      return;
    }
    visited[offset] = unvisited;
    written[offset] = unwritten;
  }
  for (std::size_t offset = 0; offset < visited.size(); ++offset) {
    if (visited[offset] != unvisited || written[offset] != unwritten) {
      ADD_FAILURE() << where << ": element " << offset << ", outside the domain, was visited "
                    << visited[offset] << " times and holds " << written[offset];
      return;
    }
  }
}

// Launches a visit counter and an index writer over `domain` in `mode`, then checks
// that every logical index was visited exactly once and saw its own index, and that
// nothing outside the domain was touched. `summary` receives the counter's launch.
inline void check_exactly_once(Runtime& runtime, const Domain& domain, Mode mode,
                               LaunchSummary& summary) {
  Kernel count = runtime.kernel(visit_counter_kernel());
  Kernel write = runtime.kernel(index_writer_kernel());
  const std::vector<std::int64_t> extents = extents_covering(domain);
  Field visits = runtime.allocate<std::int32_t>(extents);
  Field codes = runtime.allocate<std::int64_t>(extents);
  // One host copy of each field, written before and read back after the launches:
  // large fields' fresh pages cost more than the check.
  std::vector<std::int32_t> visited(static_cast<std::size_t>(visits.size()), 0);
  std::vector<std::int64_t> written(static_cast<std::size_t>(codes.size()), -1);
  visits.copy_from(visited);
  codes.copy_from(written);
  LaunchOptions forced;
  forced.mode = mode;
  summary = count.launch(forced, domain, visits);
  write.launch(forced, domain, codes);

  visits.copy_to(visited.data(), visited.size());
  codes.copy_to(written.data(), written.size());
  check_visits_and_codes(domain, extents,
                         std::string(name_of(mode)) + " over " + domain.to_string(),
                         std::move(visited), std::move(written));
}

// One case of the shared coverage suite on `runtime` (made with tiny_limits()): every
// index once with its own index, the forced mode honoured, and multi really split from
// rank 2 on (rank 1 fits one dispatch even under tiny limits).
inline void check_tiny_limit_case(Runtime& runtime, const CoverageCase& c) {
  LaunchSummary summary;
  check_exactly_once(runtime, coverage_domain(c), c.mode, summary);
  EXPECT_EQ(summary.mode, c.mode);
  if (c.mode == Mode::multi && c.rank >= 2) {
    EXPECT_GT(summary.dispatches, 1u) << "limits too large to split";
  }
}

}  // namespace stubjit::test
