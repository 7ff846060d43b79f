// The GPU stubs' division by a launch's counts (kernels/stubjit/index.h:
// make_fast_divisor on the host, fast_divide / fast_divmod in the stub), compiled here
// as the plain C++ the header is on the host, against the hardware's own division: for
// edge and random divisors, edge and random dividends, both widths. The contract is a
// dividend below 2^(N-1) (a non-negative position) and any divisor >= 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "stubjit/index.h"
#include "stubjit/launch.h"

namespace stubjit {
namespace {

constexpr u64 max_dividend64 = (u64(1) << 63) - 1;
constexpr u64 max_dividend32 = (u64(1) << 31) - 1;

std::vector<u64> edge_divisors() {
  std::vector<u64> divisors = {1,
                               2,
                               3,
                               5,
                               6,
                               7,
                               9,
                               10,
                               11,
                               13,
                               25,
                               37,
                               100,
                               641,
                               1000,
                               6700417,
                               0x7fffffffULL,  // 2^31 - 1
                               0xffffffffULL,  // 2^32 - 1
                               0x100000001ULL,
                               0xffffffff00000001ULL,
                               0x7fffffffffffffffULL,  // 2^63 - 1
                               0x8000000000000001ULL,
                               0xfffffffffffffffeULL,
                               0xffffffffffffffffULL};  // 2^64 - 1
  for (int k = 1; k < 64; ++k) {
    const u64 power = u64(1) << k;
    divisors.push_back(power);
    divisors.push_back(power - 1);
    divisors.push_back(power + 1);
  }
  std::mt19937_64 random(20261124);
  for (int i = 0; i < 200; ++i) {
    divisors.push_back(random() | 1);                                         // any 64-bit value
    divisors.push_back((random() >> (random() % 64)) | 1);                    // any bit length
    divisors.push_back(std::uniform_int_distribution<u64>(1, 1000)(random));  // domain-sized
  }
  return divisors;
}

// 0, d - 1, d, d + 1, 2d - 1, 2d, max, the largest multiple of d at most max and its
// neighbours, and random values below max: those at most max.
std::vector<u64> dividends_for(u64 d, u64 max, std::mt19937_64& random) {
  std::vector<u64> candidates = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, max, max - 1};
  if (d <= max) {
    const u64 top = max / d * d;
    candidates.insert(candidates.end(), {top, top - 1, top + 1, top - d, top - d + 1});
  }
  std::uniform_int_distribution<u64> any(0, max);
  for (int i = 0; i < 24; ++i) {
    candidates.push_back(any(random));
    const u64 q = any(random) / d;  // a quotient in range, with each end remainder
    candidates.push_back(q * d);
    candidates.push_back(q * d + (d - 1));
  }
  std::vector<u64> dividends;
  for (u64 n : candidates)
    if (n <= max) dividends.push_back(n);
  return dividends;
}

TEST(FastDivmod, SixtyFourBitDividendsMatchDivision) {
  std::mt19937_64 random(1);
  std::size_t checked = 0;
  for (u64 d : edge_divisors()) {
    const FastDivisor divisor = make_fast_divisor(d);
    for (u64 n : dividends_for(d, max_dividend64, random)) {
      ASSERT_EQ(fast_divide<u64>(n, divisor.multiplier64, divisor.shift64), n / d)
          << n << " / " << d;
      u64 rest = n;
      ASSERT_EQ(fast_divmod<u64>(rest, d, divisor.multiplier64, divisor.shift64), n % d)
          << n << " % " << d;
      ASSERT_EQ(rest, n / d);
      ++checked;
    }
  }
  EXPECT_GT(checked, 20000u);
}

TEST(FastDivmod, ThirtyTwoBitDividendsMatchDivision) {
  std::mt19937_64 random(2);
  std::size_t checked = 0;
  for (u64 d : edge_divisors()) {
    const FastDivisor divisor = make_fast_divisor(d);
    for (u64 wide : dividends_for(d, max_dividend32, random)) {
      const u32 n = u32(wide);
      ASSERT_EQ(fast_divide<u32>(n, divisor.multiplier32, divisor.shift32), wide / d)
          << n << " / " << d;
      // A 32-bit stub's counts are 32-bit: the remainder is checked where d is one.
      if (d > 0xffffffffULL) continue;
      u32 rest = n;
      ASSERT_EQ(fast_divmod<u32>(rest, u32(d), divisor.multiplier32, divisor.shift32), wide % d)
          << n << " % " << d;
      ASSERT_EQ(rest, wide / d);
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000u);
}

// Every small divisor against every small dividend: the shapes spread plans of the
// tests use.
TEST(FastDivmod, EverySmallDivisorAndDividendMatchesDivision) {
  for (u64 d = 1; d <= 1024; ++d) {
    const FastDivisor divisor = make_fast_divisor(d);
    for (u64 n = 0; n <= 4096; ++n) {
      ASSERT_EQ(fast_divide<u64>(n, divisor.multiplier64, divisor.shift64), n / d);
      ASSERT_EQ(fast_divide<u32>(u32(n), divisor.multiplier32, divisor.shift32), n / d);
    }
  }
}

TEST(FastDivmod, MultipliersAndShiftsAreTheDocumentedOnes) {
  // d = 1: n / 1 = (mulhi(n, 1) + n) >> 0.
  const FastDivisor one = make_fast_divisor(1);
  EXPECT_EQ(one.multiplier64, 1u);
  EXPECT_EQ(one.shift64, 0u);
  EXPECT_EQ(one.multiplier32, 1u);
  EXPECT_EQ(one.shift32, 0u);
  EXPECT_EQ(one.unused, 0u);
  // A power of two is a shift: multiplier 1, shift log2 d.
  for (int k = 1; k < 31; ++k) {
    const FastDivisor power = make_fast_divisor(u64(1) << k);
    EXPECT_EQ(power.multiplier64, 1u) << k;
    EXPECT_EQ(power.multiplier32, 1u) << k;
    EXPECT_EQ(power.shift64, u32(k));
    EXPECT_EQ(power.shift32, u32(k));
  }
  // The 32-bit multiplier is floor(2^32 (2^l - d) / d) + 1, computed directly.
  std::mt19937_64 random(3);
  for (int i = 0; i < 10000; ++i) {
    const u64 d = std::uniform_int_distribution<u64>(1, max_dividend32)(random);
    const FastDivisor divisor = make_fast_divisor(d);
    const u32 l = divisor.shift32;
    ASSERT_LE(l, 31u);
    ASSERT_TRUE(d <= (u64(1) << l) && (l == 0 || d > (u64(1) << (l - 1)))) << d;
    ASSERT_EQ(divisor.multiplier32, u32((((u64(1) << l) - d) << 32) / d + 1)) << d;
    ASSERT_EQ(divisor.shift64, l);
  }
  // Divisors above every dividend of a width: multiplier 0, shift N - 1.
  const FastDivisor big32 = make_fast_divisor(0x80000001ULL);
  EXPECT_EQ(big32.multiplier32, 0u);
  EXPECT_EQ(big32.shift32, 31u);
  const FastDivisor big64 = make_fast_divisor(0x8000000000000001ULL);
  EXPECT_EQ(big64.multiplier64, 0u);
  EXPECT_EQ(big64.shift64, 63u);
  // 0 is never a divisor: all zeros, as LaunchParams holds for unused dimensions.
  const FastDivisor zero = make_fast_divisor(0);
  EXPECT_EQ(zero.multiplier64 | zero.multiplier32 | zero.shift32 | zero.shift64 | zero.unused, 0u);
}

// The high half of the product, which the device takes from __umulhi / __umul64hi.
TEST(FastDivmod, MulHighIsTheHighHalfOfTheProduct) {
  EXPECT_EQ(mul_high(u32(0xffffffff), u32(0xffffffff)), 0xfffffffeu);
  EXPECT_EQ(mul_high(u32(0x80000000), u32(2)), 1u);
  EXPECT_EQ(mul_high(~u64(0), ~u64(0)), ~u64(0) - 1);
  EXPECT_EQ(mul_high(u64(1) << 63, u64(2)), 1u);
  EXPECT_EQ(mul_high(u64(0x123456789abcdef0ULL), u64(0x0fedcba987654321ULL)),
            0x0121fa00ad77d742ULL);
}

}  // namespace
}  // namespace stubjit
