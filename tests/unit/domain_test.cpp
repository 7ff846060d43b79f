#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "stubjit/domain.hpp"
#include "stubjit/error.hpp"
#include "stubjit/index.h"

namespace stubjit {
namespace {

constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();

TEST(Domain, CountsGiveZeroBasedUnitStepDimensions) {
  const Domain domain{3, 4};
  EXPECT_EQ(domain.rank(), 2);
  EXPECT_EQ(domain.size(), 12);
  EXPECT_EQ(domain[1].first, 0);
  EXPECT_EQ(domain[1].step, 1);
  EXPECT_EQ(domain[1].count, 4);
}

TEST(Domain, FortranLoopsMapOntoFirstCountStep) {
  // do i = 1, 10, 3 -> 1, 4, 7, 10
  EXPECT_EQ(Dim::loop(1, 10, 3).count, 4);
  // do i = 10, 1, -4 -> 10, 6, 2
  const Dim down = Dim::loop(10, 1, -4);
  EXPECT_EQ(down.count, 3);
  EXPECT_EQ(down.at(2), 2);
  // A step running away from last: zero iterations, as in Fortran.
  EXPECT_EQ(Dim::loop(1, 0, 2).count, 0);
  EXPECT_EQ(Dim::loop(0, 1, -1).count, 0);
  EXPECT_EQ(Dim::loop(5, 5, -7).count, 1);
  const Domain domain = Domain::loops({{1, 10, 3}, {10, 1, -4}});
  EXPECT_EQ(domain.size(), 12);
}

TEST(Domain, FortranOrderListsTheLoopsInnermostFirst) {
  // do k = 0, 4; do j = 10, 2, -4; do i = 1, 3
  const Domain nest = Domain::loops({{0, 4}, {10, 2, -4}, {1, 3}}, Order::fortran);
  EXPECT_EQ(nest.order(), Order::fortran);
  EXPECT_EQ(nest.to_string(), "[1:3:1, 10:3:-4, 0:5:1] fortran");
  const Domain c = Domain::loops({{0, 4}, {10, 2, -4}, {1, 3}});
  EXPECT_EQ(c.order(), Order::c);
  EXPECT_EQ(c.to_string(), "[0:5:1, 10:3:-4, 1:3:1]");
  // Its C-order form: the same indices with the dimensions reversed.
  const Domain reversed = nest.in_c_order();
  EXPECT_EQ(reversed.order(), Order::c);
  EXPECT_EQ(reversed.to_string(), c.to_string());
  EXPECT_EQ(reversed.size(), 45);
  EXPECT_EQ(c.in_c_order().to_string(), c.to_string());
  EXPECT_STREQ(name_of(Order::fortran), "fortran");
  EXPECT_STREQ(name_of(Order::c), "c");
}

TEST(Domain, AnOrderOutsideTheEnumIsRefused) {
  EXPECT_THROW(Domain({Dim{0, 2, 1}}, static_cast<Order>(7)), DomainError);
}

TEST(Domain, AFortranLoopErrorNamesTheDimensionItWouldBe) {
  try {
    Domain::loops({{0, 4}, {1, 3, 0}, {1, 3}, {0, 1}}, Order::fortran);
    FAIL() << "step 0 accepted";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 2);  // loop 1 of 4, innermost first
    EXPECT_NE(std::string(error.what()).find("dimension 2 (loop 1 of the nest)"), std::string::npos)
        << error.what();
  }
  try {
    Domain::loops({{0, 4}, {1, 3, 0}});
    FAIL() << "step 0 accepted";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 1);
  }
}

TEST(Domain, DeviceLoopLenAgreesWithHost) {
  // The prelude's loop_len (usable in kernel bodies) against the host's Dim::loop,
  // including GPUFORT's truncation pitfall: (0-1)/2 == 0 must not give 1.
  for (std::int64_t first = -6; first <= 6; ++first)
    for (std::int64_t last = -6; last <= 6; ++last)
      for (std::int64_t step : {-3, -2, -1, 1, 2, 5}) {
        EXPECT_EQ(loop_len(first, last, step), Dim::loop(first, last, step).count)
            << first << "," << last << "," << step;
      }
  // At the ends of int64, where last - first or -step overflow a signed type.
  constexpr std::int64_t lo = INT64_MIN, hi = INT64_MAX;
  for (std::int64_t first : {lo, lo + 1, std::int64_t(-1), std::int64_t(0), hi - 1, hi})
    for (std::int64_t last : {lo, lo + 1, std::int64_t(-1), std::int64_t(0), hi - 1, hi})
      for (std::int64_t step : {lo, lo + 1, std::int64_t(-1), std::int64_t(1), hi - 1, hi}) {
        Dim host{};
        try {
          host = Dim::loop(first, last, step);
        } catch (const DomainError&) {
          continue;  // more than 2^63-1 iterations: refused on the host
        }
        EXPECT_EQ(loop_len(first, last, step), host.count) << first << "," << last << "," << step;
      }
  EXPECT_EQ(loop_len(lo, hi, hi), 3);  // lo, lo + hi = -1, -1 + hi = hi - 1
}

TEST(Domain, ZeroCountIsAnEmptyDomain) {
  const Domain domain{5, 0, 7};
  EXPECT_TRUE(domain.empty());
  EXPECT_EQ(domain.size(), 0);
}

TEST(Domain, NegativeCountIsRefusedNamingTheDimension) {
  try {
    Domain({Dim{0, 4, 1}, Dim{0, -2, 1}});
    FAIL() << "expected DomainError";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 1);
    EXPECT_NE(std::string(error.what()).find("negative count -2"), std::string::npos);
  }
}

TEST(Domain, ZeroStepIsRefused) {
  EXPECT_THROW(Domain({Dim{0, 4, 0}}), DomainError);
  EXPECT_THROW(Dim::loop(0, 4, 0), DomainError);
}

TEST(Domain, RankOutsideOneToEightIsRefused) {
  EXPECT_THROW(Domain(std::vector<Dim>{}), DomainError);
  EXPECT_THROW(Domain(std::vector<Dim>(9, Dim{0, 1, 1})), DomainError);
  EXPECT_NO_THROW(Domain(std::vector<Dim>(8, Dim{0, 1, 1})));
}

TEST(Domain, OverflowingExtentsAreRefused) {
  // Product of counts beyond int64.
  try {
    Domain{std::int64_t(1) << 32, std::int64_t(1) << 32};
    FAIL() << "expected DomainError";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), -1);
  }
  // Logical index beyond int64.
  try {
    Domain({Dim{big - 5, 10, 1}});
    FAIL() << "expected DomainError";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 0);
    EXPECT_NE(std::string(error.what()).find("overflows"), std::string::npos);
  }
  // A loop with more than 2^63-1 iterations.
  EXPECT_THROW(Dim::loop(std::numeric_limits<std::int64_t>::min(), big, 1), DomainError);
  // The largest representable domain is fine.
  EXPECT_EQ(Domain({Dim{0, big, 1}}).size(), big);
}

TEST(Domain, ToStringShowsFirstCountStep) {
  EXPECT_EQ(Domain::loops({{9, 0, -3}, {0, 2}}).to_string(), "[9:4:-3, 0:3:1]");
}

}  // namespace
}  // namespace stubjit
