// split_domain against enumeration: every index of the whole domain in exactly one part,
// in order; each part's local domain and field range recomputed from its own indices;
// counts against their exact shares in integer arithmetic; steps, Fortran order, empty
// dimensions; and every refusal, with the parameter it names.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/split.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;
using Point = std::vector<i64>;

// Every logical index of `domain`, dimension 0 slowest, in the order of its positions.
std::vector<Point> enumerate(const Domain& domain) {
  std::vector<Point> points;
  if (domain.empty()) return points;
  const int rank = domain.rank();
  std::vector<i64> position(static_cast<std::size_t>(rank), 0);
  for (;;) {
    Point point;
    for (int d = 0; d < rank; ++d) {
      const Dim& dim = domain[d];
      point.push_back(dim.first + dim.step * position[static_cast<std::size_t>(d)]);
    }
    points.push_back(point);
    int d = rank - 1;
    while (d >= 0 && ++position[static_cast<std::size_t>(d)] == domain[d].count) {
      position[static_cast<std::size_t>(d)] = 0;
      --d;
    }
    if (d < 0) return points;
  }
}

// Everything split_domain promises about `parts` of `whole`, checked by enumeration.
void expect_exact_split(const Domain& whole, int dimension, const std::vector<double>& weights,
                        Halo halo) {
  SCOPED_TRACE("domain " + whole.to_string() + " split along " + std::to_string(dimension));
  const std::vector<DomainPart> parts = split_domain(whole, dimension, weights, halo);
  ASSERT_EQ(parts.size(), weights.size());
  const Dim& split = whole[dimension];
  std::vector<Point> covered;
  i64 next = 0;  // the position the next part starts at
  for (std::size_t p = 0; p < parts.size(); ++p) {
    SCOPED_TRACE("part " + std::to_string(p));
    const DomainPart& part = parts[p];
    EXPECT_EQ(part.domain.order(), whole.order());
    EXPECT_EQ(part.local.order(), whole.order());
    ASSERT_EQ(part.domain.rank(), whole.rank());
    for (int d = 0; d < whole.rank(); ++d) {
      if (d == dimension) continue;
      EXPECT_EQ(part.domain[d].first, whole[d].first);
      EXPECT_EQ(part.domain[d].count, whole[d].count);
      EXPECT_EQ(part.domain[d].step, whole[d].step);
    }
    const Dim& own = part.domain[dimension];
    EXPECT_EQ(part.offset, next);
    EXPECT_EQ(own.step, split.step);
    // Consecutive positions of the whole, in order.
    for (i64 k = 0; k < own.count; ++k)
      EXPECT_EQ(own.first + own.step * k, split.first + split.step * (part.offset + k));
    next += own.count;
    const std::vector<Point> points = enumerate(part.domain);
    covered.insert(covered.end(), points.begin(), points.end());
    // Local: the same points, shifted by field_first along the split dimension, inside
    // the field's 0 .. field_count - 1.
    const std::vector<Point> local = enumerate(part.local);
    ASSERT_EQ(local.size(), points.size());
    for (std::size_t k = 0; k < local.size(); ++k) {
      Point shifted = local[k];
      const i64 along = shifted[static_cast<std::size_t>(dimension)];
      EXPECT_GE(along, halo.below);
      EXPECT_LT(along, part.field_count - halo.above);
      shifted[static_cast<std::size_t>(dimension)] += part.field_first;
      EXPECT_EQ(shifted, points[k]);
    }
    if (own.count == 0) {
      EXPECT_EQ(part.field_count, 0);
      EXPECT_EQ(part.local[dimension].count, 0);
      continue;
    }
    i64 low = std::numeric_limits<i64>::max(), high = std::numeric_limits<i64>::min();
    for (i64 k = 0; k < own.count; ++k) {
      low = std::min(low, own.first + own.step * k);
      high = std::max(high, own.first + own.step * k);
    }
    EXPECT_EQ(part.field_first, low - halo.below);
    EXPECT_EQ(part.field_count, high + halo.above - part.field_first + 1);
  }
  EXPECT_EQ(next, split.count);
  std::vector<Point> all = enumerate(whole);
  std::sort(all.begin(), all.end());
  std::sort(covered.begin(), covered.end());
  EXPECT_EQ(covered, all);  // each index once: same multiset
}

TEST(SplitDomain, EveryIndexOfTheWholeIsInExactlyOnePart) {
  std::mt19937_64 random(15);
  const std::vector<std::vector<Dim>> shapes = {
      {{0, 17, 1}},
      {{3, 11, 2}, {0, 4, 1}},
      {{10, 7, -3}, {-5, 3, 4}, {2, 5, 1}},
      {{0, 6, 1}, {0, 0, 1}, {0, 3, 1}},  // an empty dimension
      {{-4, 9, -1}, {1, 2, 1}, {0, 3, 2}, {7, 2, -5}},
  };
  std::uniform_int_distribution<int> parts(1, 6);
  std::uniform_int_distribution<int> weight(0, 4);
  std::uniform_int_distribution<i64> width(0, 3);
  for (const std::vector<Dim>& dims : shapes) {
    for (Order order : {Order::c, Order::fortran}) {
      const Domain whole(dims, order);
      for (int dimension = 0; dimension < whole.rank(); ++dimension) {
        for (int trial = 0; trial < 8; ++trial) {
          std::vector<double> weights(static_cast<std::size_t>(parts(random)));
          for (double& w : weights) w = weight(random);
          weights[static_cast<std::size_t>(trial) % weights.size()] += 1;  // one positive
          expect_exact_split(whole, dimension, weights, Halo{width(random), width(random)});
        }
        expect_exact_split(whole, dimension, {0.3, 1e-9, 2.5}, Halo{});
      }
    }
  }
}

TEST(SplitDomain, EachCountIsItsShareRoundedDownOrUp) {
  const std::vector<std::vector<double>> weight_sets = {
      {1, 2, 1}, {1, 1, 1, 1}, {3, 0, 1, 2}, {0, 0, 5}, {7, 0, 0}, {1, 1, 1, 1, 1, 1, 1}, {9, 1}};
  for (const std::vector<double>& weights : weight_sets) {
    i64 total = 0;
    for (double w : weights) total += static_cast<i64>(w);
    for (i64 n : {0, 1, 2, 3, 7, 10, 64, 1000, 99991}) {
      const std::vector<DomainPart> parts = split_domain(Domain{n}, 0, weights);
      i64 sum = 0;
      for (std::size_t p = 0; p < parts.size(); ++p) {
        const i64 count = parts[p].domain[0].count;
        const i64 w = static_cast<i64>(weights[p]);
        // floor(n w / W) <= count <= ceil(n w / W), in integers.
        EXPECT_GE(count, n * w / total) << "n " << n << " part " << p;
        EXPECT_LE(count, (n * w + total - 1) / total) << "n " << n << " part " << p;
        if (w == 0) {
          EXPECT_EQ(count, 0);
        }
        sum += count;
      }
      EXPECT_EQ(sum, n);
    }
  }
}

TEST(SplitDomain, PartsEndWhereTheRuleSays) {
  // Part i ends at round(N * S_i / W), halves up: 10 by {1, 2, 1} ends at 2.5 -> 3,
  // 7.5 -> 8, 10.
  const auto counts = [](i64 n, const std::vector<double>& weights) {
    std::vector<i64> result;
    for (const DomainPart& part : split_domain(Domain{n}, 0, weights))
      result.push_back(part.domain[0].count);
    return result;
  };
  EXPECT_EQ(counts(10, {1, 2, 1}), (std::vector<i64>{3, 5, 2}));
  EXPECT_EQ(counts(10, {1, 1, 1, 1}), (std::vector<i64>{3, 2, 3, 2}));
  EXPECT_EQ(counts(1000, {3, 0, 1, 2}), (std::vector<i64>{500, 0, 167, 333}));
  EXPECT_EQ(counts(5, {0, 1, 0}), (std::vector<i64>{0, 5, 0}));
  EXPECT_EQ(counts(2, {1, 1, 1, 1, 1}), (std::vector<i64>{0, 1, 0, 1, 0}));
  // A weight too small to move the double sum still ends the last positive part at N.
  EXPECT_EQ(counts(9, {1, 1e-300, 0}), (std::vector<i64>{9, 0, 0}));
  // Weights so large that N * S_i overflows a double still split in proportion.
  EXPECT_EQ(counts(1000000000, {1e300, 1e300}), (std::vector<i64>{500000000, 500000000}));
  EXPECT_EQ(counts(12, {4e307, 2e307, 4e307}), (std::vector<i64>{5, 2, 5}));
  // The largest count there is: the parts still sum to it.
  const i64 most = std::numeric_limits<i64>::max();
  const std::vector<i64> halves = counts(most, {1, 1});
  EXPECT_EQ(halves[0], i64(1) << 62);
  EXPECT_EQ(halves[0] + halves[1], most);
}

TEST(SplitDomain, StepsHalosAndFortranOrderAsWorkedOut) {
  // Indices 10, 7, 4, 1, -2, -5, -8 along dimension 1 of a Fortran-order domain.
  const Domain whole({{0, 2, 1}, {10, 7, -3}}, Order::fortran);
  const std::vector<DomainPart> parts = split_domain(whole, 1, {1, 1}, Halo{1, 2});
  ASSERT_EQ(parts.size(), 2u);
  // Part 0: positions 0..3 (7 * 1/2 = 3.5 -> 4), indices 10 to 1; its fields hold
  // 1 - 1 = 0 up to 10 + 2 = 12, and its first index is local 10.
  EXPECT_EQ(parts[0].offset, 0);
  EXPECT_EQ(parts[0].domain[1].first, 10);
  EXPECT_EQ(parts[0].domain[1].count, 4);
  EXPECT_EQ(parts[0].field_first, 0);
  EXPECT_EQ(parts[0].field_count, 13);
  EXPECT_EQ(parts[0].local[1].first, 10);
  EXPECT_EQ(parts[0].local[1].step, -3);
  // Part 1: indices -2, -5, -8; fields -9 up to 0; local first -2 - (-9) = 7.
  EXPECT_EQ(parts[1].offset, 4);
  EXPECT_EQ(parts[1].domain[1].first, -2);
  EXPECT_EQ(parts[1].domain[1].count, 3);
  EXPECT_EQ(parts[1].field_first, -9);
  EXPECT_EQ(parts[1].field_count, 10);
  EXPECT_EQ(parts[1].local[1].first, 7);
  for (const DomainPart& part : parts) {
    EXPECT_EQ(part.domain.order(), Order::fortran);
    EXPECT_EQ(part.local[0].first, 0);
    EXPECT_EQ(part.local[0].count, 2);
  }
}

// Runs `call`, expecting a SplitError naming `parameter` and `part`.
template <class F>
void expect_refused(F call, const std::string& parameter, int part) {
  try {
    call();
    ADD_FAILURE() << "no SplitError for " << parameter;
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), parameter) << error.what();
    EXPECT_EQ(error.part(), part) << error.what();
    EXPECT_FALSE(error.cause());
    EXPECT_NE(std::string(error.what()).find("split_domain"), std::string::npos) << error.what();
    const Error& base = error;  // one catch clause covers the library
    EXPECT_STREQ(base.what(), error.what());
  }
}

TEST(SplitDomain, RefusesBadArgumentsNamingThem) {
  const Domain whole{4, 6};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_refused([&] { split_domain(whole, -1, {1}); }, "dimension", -1);
  expect_refused([&] { split_domain(whole, 2, {1}); }, "dimension", -1);
  expect_refused([&] { split_domain(whole, 0, {}); }, "weights", -1);
  expect_refused([&] { split_domain(whole, 0, {1, -1}); }, "weights", 1);
  expect_refused([&] { split_domain(whole, 0, {nan, 1}); }, "weights", 0);
  expect_refused([&] { split_domain(whole, 0, {1, 1, inf}); }, "weights", 2);
  expect_refused([&] { split_domain(whole, 0, {1, -inf}); }, "weights", 1);
  expect_refused([&] { split_domain(whole, 0, {0, 0}); }, "weights", -1);
  expect_refused([&] { split_domain(whole, 0, {1e308, 1e308}); }, "weights", -1);
  expect_refused([&] { split_domain(whole, 1, {1}, Halo{-1, 0}); }, "halo", -1);
  expect_refused([&] { split_domain(whole, 1, {1}, Halo{0, -2}); }, "halo", -1);
  // Indices near the top of int64: a halo above takes part 1's fields beyond it.
  const i64 most = std::numeric_limits<i64>::max();
  const Domain top({Dim{most - 5, 6, 1}});
  expect_refused([&] { split_domain(top, 0, {1, 1}, Halo{0, 1}); }, "halo", 1);
  const Domain bottom({Dim{std::numeric_limits<i64>::min(), 4, 1}});
  expect_refused([&] { split_domain(bottom, 0, {1}, Halo{1, 0}); }, "halo", 0);
  // A field range of more than 2^63 - 1 indices, though both ends fit.
  const Domain wide_steps({Dim{std::numeric_limits<i64>::min() + 1, 2, most}});
  expect_refused([&] { split_domain(wide_steps, 0, {1}, Halo{0, 1}); }, "halo", 0);
}

}  // namespace
}  // namespace stubjit
