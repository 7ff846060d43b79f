// The checks of the reduce pattern on a GPU runtime (cuda/gpu_reduce_test.cpp,
// hip/gpu_reduce_test.cpp on a device; emulator/emulator_reduce_test.cpp through the
// real CUDA and HIP stubs on the host emulator), each launch against a host loop:
//   - the whole domain of rank 2 and 4 and a strided one;
//   - an int64 sum long enough to be split into several parts per segment (the
//     last-arriving group combining the partials, more partials than threads too),
//     with groups of 32, 64, 72 (not a power of two: a short last warp) and 256 threads
//     (1024 on a GPU), in combine and assign modes and through Kernel::reduce;
//   - float sums: the same bits from two runs of a launch, and within a tolerance of a
//     host double sum that a lost or doubled element exceeds;
//   - min and max of int32 values with negatives and extremes, any and all of bools,
//     bit_xor of uint32 values, bit_and and bit_or of negative int32 and int64 values;
//   - a rank-3 domain reduced along each of its dimensions, split and not, in combine
//     and assign modes (the result field's extents: the kept counts);
//   - empty domains: combine leaves the result, assign writes the identity;
//   - custom combiners, whole and along a dimension;
//   - exact sums and products over the other element types (u8, i16, u64, float16,
//     bfloat16, complex<float>, complex<double>, f64);
//   - Kernel::repeat: the levels of a line graph pulled between double buffers until
//     nothing changes (an Any flag copied back each iteration), halvings until all are
//     zero (an All flag).
// On the public API only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "stubjit/stubjit.hpp"

namespace stubjit::test::reduce {

using i64 = std::int64_t;
using i32 = std::int32_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// The largest group the checks launch: 1024 on a GPU, fewer on the host emulator
// (tests/emulator/emulator_reduce_test.cpp), which runs each GPU thread of a block as a
// host thread.
inline std::uint32_t& largest_group() {
  static std::uint32_t largest = 1024;
  return largest;
}

// Groups around the warp widths, one not a power of two, and the largest: 72 has a
// short last warp (8 lanes) whether warps have 32 or 64.
inline std::vector<std::uint32_t> reduce_group_sizes() {
  std::vector<std::uint32_t> kept;
  for (const std::uint32_t size : {32u, 64u, 72u, 256u, 1024u})
    if (size <= largest_group()) kept.push_back(size);
  if (kept.empty()) ADD_FAILURE() << "no group size up to " << largest_group();
  return kept;
}

// A value of a fixed pseudo-random sequence (splitmix64): the same data every run.
inline u64 mix(u64 k) {
  u64 z = k + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline LaunchOptions reduce_options(std::uint32_t group_size = 0, int dimension = -1,
                                    ReduceUpdate update = ReduceUpdate::combine) {
  LaunchOptions options;
  options.group_size = group_size;
  options.reduce_dimension = dimension;
  options.reduce_update = update;
  return options;
}

inline LaunchOptions assigning(LaunchOptions options) {
  options.reduce_update = ReduceUpdate::assign;
  return options;
}

template <class T>
Field holding(Runtime& runtime, const std::vector<i64>& extents, const std::vector<T>& values) {
  Field field = runtime.allocate<T>(extents);
  field.copy_from(values);
  return field;
}

// A rank-0 field holding `value` (a whole-domain result).
template <class T>
Field one(Runtime& runtime, T value) {
  return holding<T>(runtime, std::vector<i64>{}, std::vector<T>{value});
}

template <class T>
T value_of(const Field& field) {
  return field.to_vector<T>().at(0);
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

inline KernelSource sum_kernel_i64() {
  return {"sum_i64", {in<i64>("x"), result<i64>("v", Combiner::sum)}, "v = x;"};
}

// The sum of x as int64 arithmetic wraps (in unsigned: no overflow in the host loop).
inline i64 wrapping_sum(const std::vector<i64>& x) {
  u64 total = 0;
  for (const i64 value : x) total += static_cast<u64>(value);
  return static_cast<i64>(total);
}

// Values of up to 2^43 in magnitude, either sign.
inline std::vector<i64> int64_values(std::size_t n, u64 seed) {
  std::vector<i64> x(n);
  for (std::size_t k = 0; k < n; ++k) x[k] = static_cast<i64>(mix(seed + k)) >> 20;
  return x;
}

// An int64 sum split into parts: the segment's groups leave partials and the last to
// arrive combines them, with every group size; more parts than the group has threads
// too (the last group strides its partials). Combine and assign into a field, and
// Kernel::reduce.
inline void check_int64_sum_in_parts(Runtime& runtime) {
  Kernel sum = runtime.kernel(sum_kernel_i64());
  for (const std::uint32_t size : reduce_group_sizes()) {
    // Three and a bit parts' worth of values, and (groups of 32) forty-one parts: more
    // partials than the last group has threads.
    std::vector<i64> lengths = {i64(size) * 16 * 3 + 7};
    if (size == 32) lengths.push_back(i64(size) * 16 * 40 + 3);
    for (const i64 n : lengths) {
      SCOPED_TRACE("group of " + std::to_string(size) + ", " + std::to_string(n) + " values");
      const std::vector<i64> values = int64_values(std::size_t(n), u64(n) * 31 + size);
      const i64 expected = wrapping_sum(values);
      Field x = holding(runtime, {n}, values);
      Field v = one<i64>(runtime, 1000);
      const LaunchSummary summary = sum.launch(reduce_options(size), Domain{n}, x, v);
      EXPECT_EQ(summary.group_size, size);
      EXPECT_GT(summary.reduce_parts, 1u) << "not split: the partials' path is not run";
      if (n > i64(size) * 16 * 40) {
        EXPECT_GT(summary.reduce_parts, size);
      }
      EXPECT_EQ(value_of<i64>(v), static_cast<i64>(static_cast<u64>(expected) + 1000));
      sum.launch(assigning(reduce_options(size)), Domain{n}, x, v);
      EXPECT_EQ(value_of<i64>(v), expected);
      EXPECT_EQ(sum.reduce<i64>(reduce_options(size), Domain{n}, x), expected);
      // Once more: the arrival counters of the launch before did not stay behind.
      EXPECT_EQ(sum.reduce<i64>(reduce_options(size), Domain{n}, x), expected);
    }
  }
}

// The whole domain of rank 2 and 4 (each position decoded from the group's part with
// the host's divisors) and a strided rank-2 domain (first and step, one step negative)
// over a larger field: each element counted once, split into parts.
inline void check_whole_domain_of_higher_rank(Runtime& runtime) {
  Kernel sum = runtime.kernel(sum_kernel_i64());
  const auto check = [&](const std::vector<i64>& extents, std::uint32_t size) {
    std::string shape;
    i64 n = 1;
    for (const i64 e : extents) {
      shape += (shape.empty() ? "" : ", ") + std::to_string(e);
      n *= e;
    }
    SCOPED_TRACE("{" + shape + "}, groups of " + std::to_string(size));
    const std::vector<i64> values = int64_values(std::size_t(n), u64(n) + 17);
    Field x = holding(runtime, extents, values);
    std::vector<Dim> dims;
    for (const i64 e : extents) dims.push_back(Dim{0, e, 1});
    Field v = one<i64>(runtime, 0);
    const LaunchSummary summary = sum.launch(assigning(reduce_options(size)), Domain(dims), x, v);
    EXPECT_EQ(summary.reduce_parts > 1, size != 0) << summary.reduce_parts;
    EXPECT_EQ(value_of<i64>(v), wrapping_sum(values));
  };
  check({37, 53}, 32);
  check({3, 5, 7, 40}, 64);
  check({2, 3, 2, 2}, 0);  // the whole domain in one group (size 0: not split)
  // i0 = 1 + 3k (k < 6), i1 = 29 - 2k (k < 10), over a {20, 30} field; groups of 32
  // and 60 values: one part.
  const std::vector<i64> values = int64_values(600, 23);
  Field x = holding(runtime, {20, 30}, values);
  std::vector<i64> picked;
  for (i64 k0 = 0; k0 < 6; ++k0)
    for (i64 k1 = 0; k1 < 10; ++k1)
      picked.push_back(values[std::size_t((1 + 3 * k0) * 30 + 29 - 2 * k1)]);
  const Domain strided({Dim{1, 6, 3}, Dim{29, 10, -2}});
  EXPECT_EQ(sum.reduce<i64>(reduce_options(32), strided, x), wrapping_sum(picked));
  EXPECT_EQ(sum.reduce<i64>(strided, x), wrapping_sum(picked));
  EXPECT_EQ(sum.reduce<i64>(Domain({Dim{1, 6, 3}, Dim{29, 10, -2}}, Order::fortran), x),
            wrapping_sum(picked));
}

// Float sums: two runs of the same launch give the same bits (the combination order
// is the plan's), and the value is within a tolerance of the host's double sum that
// one element lost or counted twice exceeds (every |x| >= 0.5).
inline void check_float_sum_is_deterministic(Runtime& runtime) {
  Kernel sum =
      runtime.kernel({"sum_f32", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"});
  const i64 n = 20000;
  std::vector<float> values(static_cast<std::size_t>(n));
  double exact = 0, magnitude = 0;
  for (i64 k = 0; k < n; ++k) {
    const float u = float(mix(u64(k) + 77) % 1000000) / 1000000.0f;
    values[std::size_t(k)] = (k % 3 == 0 ? -1.0f : 1.0f) * (0.5f + u);
    exact += double(values[std::size_t(k)]);
    magnitude += std::fabs(double(values[std::size_t(k)]));
  }
  Field x = holding(runtime, {n}, values);
  // About 0.08, below any element's 0.5; twice the bound for sums some 32 additions deep.
  const double tolerance = 4e-6 * magnitude;
  for (const std::uint32_t size : {0u, 96u}) {
    SCOPED_TRACE("group size asked: " + std::to_string(size));
    Field v = one<float>(runtime, 0.0f);
    const LaunchSummary summary = sum.launch(assigning(reduce_options(size)), Domain{n}, x, v);
    EXPECT_GT(summary.reduce_parts, 1u);
    const float first = value_of<float>(v);
    const float second = sum.reduce<float>(reduce_options(size), Domain{n}, x);
    const float third = sum.reduce<float>(reduce_options(size), Domain{n}, x);
    EXPECT_TRUE(same_bits(first, second)) << first << " then " << second;
    EXPECT_TRUE(same_bits(second, third)) << second << " then " << third;
    EXPECT_NEAR(double(first), exact, tolerance);
  }
}

// min and max of int32 values with negatives: random values, an extreme at the last
// position (in the last part) or the first, all equal; combine with the field's value.
inline void check_int32_min_max(Runtime& runtime) {
  Kernel minimum =
      runtime.kernel({"min_i32", {in<i32>("x"), result<i32>("v", Combiner::min)}, "v = x;"});
  Kernel maximum =
      runtime.kernel({"max_i32", {in<i32>("x"), result<i32>("v", Combiner::max)}, "v = x;"});
  const i64 n = 64 * 16 * 2 + 17;  // three parts of groups of 64
  const LaunchOptions options = reduce_options(64);
  const auto check = [&](const std::string& what, const std::vector<i32>& values) {
    SCOPED_TRACE(what);
    Field x = holding(runtime, {n}, values);
    const i32 low = *std::min_element(values.begin(), values.end());
    const i32 high = *std::max_element(values.begin(), values.end());
    Field v = one<i32>(runtime, 0);
    EXPECT_GT(minimum.launch(assigning(options), Domain{n}, x, v).reduce_parts, 1u);
    EXPECT_EQ(value_of<i32>(v), low);
    maximum.launch(assigning(options), Domain{n}, x, v);
    EXPECT_EQ(value_of<i32>(v), high);
    EXPECT_EQ(minimum.reduce<i32>(options, Domain{n}, x), low);
    EXPECT_EQ(maximum.reduce<i32>(options, Domain{n}, x), high);
    // Combined with the field: -3 and 3 stay where the values do not pass them.
    Field c = one<i32>(runtime, -3);
    minimum.launch(options, Domain{n}, x, c);
    EXPECT_EQ(value_of<i32>(c), std::min(low, -3));
    c = one<i32>(runtime, 3);
    maximum.launch(options, Domain{n}, x, c);
    EXPECT_EQ(value_of<i32>(c), std::max(high, 3));
  };
  std::vector<i32> random(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k)
    random[std::size_t(k)] = i32(i64(mix(u64(k) + 5) % 2000000001) - 1000000000);
  check("random", random);
  std::vector<i32> extreme_last = random;
  extreme_last.back() = std::numeric_limits<i32>::min() + 1;
  extreme_last.front() = std::numeric_limits<i32>::max() - 1;
  check("extremes at the ends", extreme_last);
  std::vector<i32> all_negative(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) all_negative[std::size_t(k)] = i32(-1 - k % 1000);
  check("all negative", all_negative);
  check("all equal", std::vector<i32>(std::size_t(n), -5));
}

// any and all of bools: all false, all true, one different value at the start, the
// middle and the end, over several parts.
inline void check_any_all(Runtime& runtime) {
  Kernel any =
      runtime.kernel({"any_of", {in<bool>("x"), result<bool>("v", Combiner::any)}, "v = x;"});
  Kernel all =
      runtime.kernel({"all_of", {in<bool>("x"), result<bool>("v", Combiner::all)}, "v = x;"});
  const i64 n = 3000;  // six parts of groups of 32
  const LaunchOptions options = reduce_options(32);
  const auto check = [&](const std::string& what, const std::vector<bool>& values) {
    SCOPED_TRACE(what);
    const bool expect_any = std::find(values.begin(), values.end(), true) != values.end();
    const bool expect_all = std::find(values.begin(), values.end(), false) == values.end();
    Field x = holding(runtime, {n}, values);
    Field v = one<bool>(runtime, !expect_any);
    EXPECT_GT(any.launch(assigning(options), Domain{n}, x, v).reduce_parts, 1u);
    EXPECT_EQ(value_of<bool>(v), expect_any);
    EXPECT_EQ(any.reduce<bool>(options, Domain{n}, x), expect_any);
    EXPECT_EQ(all.reduce<bool>(options, Domain{n}, x), expect_all);
    // Combined: all with a false field stays false, any with a true one stays true.
    Field f = one<bool>(runtime, false);
    all.launch(options, Domain{n}, x, f);
    EXPECT_FALSE(value_of<bool>(f));
    Field t = one<bool>(runtime, true);
    any.launch(options, Domain{n}, x, t);
    EXPECT_TRUE(value_of<bool>(t));
  };
  check("all false", std::vector<bool>(std::size_t(n), false));
  check("all true", std::vector<bool>(std::size_t(n), true));
  for (const i64 at : {i64(0), n / 2, n - 1}) {
    std::vector<bool> one_true(std::size_t(n), false);
    one_true[std::size_t(at)] = true;
    check("one true at " + std::to_string(at), one_true);
    std::vector<bool> one_false(std::size_t(n), true);
    one_false[std::size_t(at)] = false;
    check("one false at " + std::to_string(at), one_false);
  }
}

// bit_xor of uint32 values, over several parts; combined with the field's bits.
inline void check_uint32_xor(Runtime& runtime) {
  Kernel parity =
      runtime.kernel({"xor_u32", {in<u32>("x"), result<u32>("v", Combiner::bit_xor)}, "v = x;"});
  for (const i64 n : {i64(5000), i64(100)}) {
    SCOPED_TRACE(std::to_string(n) + " values");
    std::vector<u32> values(static_cast<std::size_t>(n));
    u32 expected = 0;
    for (i64 k = 0; k < n; ++k) {
      values[std::size_t(k)] = u32(mix(u64(k) + 999));
      expected ^= values[std::size_t(k)];
    }
    Field x = holding(runtime, {n}, values);
    Field v = one<u32>(runtime, 0xdeadbeefu);
    const LaunchSummary summary = parity.launch(reduce_options(64), Domain{n}, x, v);
    EXPECT_EQ(summary.reduce_parts > 1, n > 64 * 16);
    EXPECT_EQ(value_of<u32>(v), expected ^ 0xdeadbeefu);
    EXPECT_EQ(parity.reduce<u32>(Domain{n}, x), expected);
  }
}

// bit_and and bit_or of signed values: the identity of bit_and has every bit set, the
// sign bit too (all negative values keep it), over int32 and int64, split into parts.
inline void check_signed_bit_and_or(Runtime& runtime) {
  Kernel and32 =
      runtime.kernel({"and_i32", {in<i32>("x"), result<i32>("v", Combiner::bit_and)}, "v = x;"});
  Kernel or32 =
      runtime.kernel({"or_i32", {in<i32>("x"), result<i32>("v", Combiner::bit_or)}, "v = x;"});
  Kernel and64 =
      runtime.kernel({"and_i64", {in<i64>("x"), result<i64>("v", Combiner::bit_and)}, "v = x;"});
  const i64 n = 2000;  // two parts of groups of 64
  const LaunchOptions options = reduce_options(64);
  std::vector<i32> negative(static_cast<std::size_t>(n));
  std::vector<i32> mixed(static_cast<std::size_t>(n));
  std::vector<i64> wide(static_cast<std::size_t>(n));
  i32 and_negative = -1, and_mixed = -1, or_mixed = 0;
  i64 and_wide = -1;
  for (i64 k = 0; k < n; ++k) {
    const u64 bits = mix(u64(k) + 41);
    // Negative, with a few low bits cleared here and there.
    negative[std::size_t(k)] = i32(0x80000000u | u32(bits) | (k % 97 == 0 ? 0u : 0x7ffffff0u));
    mixed[std::size_t(k)] = i32(u32(bits >> 32));
    wide[std::size_t(k)] =
        i64(bits | 0x8000000000000000ull | (k % 89 == 0 ? 0 : 0x7fffffffffff0000ull));
    and_negative &= negative[std::size_t(k)];
    and_mixed &= mixed[std::size_t(k)];
    or_mixed |= mixed[std::size_t(k)];
    and_wide &= wide[std::size_t(k)];
  }
  ASSERT_LT(and_negative, 0);
  ASSERT_LT(and_wide, 0);
  Field xn = holding(runtime, {n}, negative);
  Field xm = holding(runtime, {n}, mixed);
  Field xw = holding(runtime, {n}, wide);
  Field v = one<i32>(runtime, 0);
  EXPECT_GT(and32.launch(assigning(options), Domain{n}, xn, v).reduce_parts, 1u);
  EXPECT_EQ(value_of<i32>(v), and_negative);
  EXPECT_EQ(and32.reduce<i32>(options, Domain{n}, xm), and_mixed);
  EXPECT_EQ(or32.reduce<i32>(options, Domain{n}, xm), or_mixed);
  EXPECT_EQ(and64.reduce<i64>(options, Domain{n}, xw), and_wide);
  // Empty: assign writes the identity, every bit set.
  EXPECT_EQ(and32.reduce<i32>(Domain{0}, holding<i32>(runtime, {0}, {})), -1);
}

// A rank-3 domain reduced along each dimension, into a field of the two kept counts
// (row-major over them), combined into its values and assigned: a small domain (one
// group per segment), and domains long along the reduced dimension (split, with groups
// of 32).
inline void check_rank3_along_each_dimension(Runtime& runtime) {
  Kernel along = runtime.kernel(
      {"along_sum_i64", {in<i64>("x"), result<i64>("v", Combiner::sum, 2)}, "v = x;"});
  for (int d = 0; d < 3; ++d)
    for (const bool long_dimension : {false, true}) {
      std::vector<i64> extents = {4, 5, 6};
      if (long_dimension) {
        extents = {2, 3, 2};
        extents[std::size_t(d)] = 1100;
      }
      const std::uint32_t size = long_dimension ? 32 : 0;
      SCOPED_TRACE("along " + std::to_string(d) + " of {" + std::to_string(extents[0]) + ", " +
                   std::to_string(extents[1]) + ", " + std::to_string(extents[2]) + "}");
      const i64 n = extents[0] * extents[1] * extents[2];
      std::vector<i64> values(static_cast<std::size_t>(n));
      for (i64 k = 0; k < n; ++k)
        values[std::size_t(k)] = i64(mix(u64(k) + 3 * u64(d)) % 2001) - 1000;
      // The kept dimensions, in order; the result's element (a, b) at a * kept[1] + b.
      std::vector<i64> kept;
      for (int e = 0; e < 3; ++e)
        if (e != d) kept.push_back(extents[std::size_t(e)]);
      std::vector<i64> sums(std::size_t(kept[0] * kept[1]), 0);
      for (i64 i0 = 0; i0 < extents[0]; ++i0)
        for (i64 i1 = 0; i1 < extents[1]; ++i1)
          for (i64 i2 = 0; i2 < extents[2]; ++i2) {
            const i64 at[3] = {i0, i1, i2};
            i64 a = -1, b = -1;
            for (int e = 0; e < 3; ++e) {
              if (e == d) continue;
              (a < 0 ? a : b) = at[e];
            }
            sums[std::size_t(a * kept[1] + b)] +=
                values[std::size_t((i0 * extents[1] + i1) * extents[2] + i2)];
          }
      std::vector<i64> initial(sums.size());
      std::vector<i64> combined(sums.size());
      for (std::size_t j = 0; j < sums.size(); ++j) {
        initial[j] = 7 * i64(j) + 1;
        combined[j] = initial[j] + sums[j];
      }
      Field x = holding(runtime, extents, values);
      const Domain domain{extents[0], extents[1], extents[2]};
      Field v = holding(runtime, kept, initial);
      const LaunchSummary summary = along.launch(reduce_options(size, d), domain, x, v);
      EXPECT_EQ(summary.reduce_parts > 1, long_dimension) << summary.reduce_parts;
      EXPECT_EQ(v.to_vector<i64>(), combined);
      along.launch(reduce_options(size, d, ReduceUpdate::assign), domain, x, v);
      EXPECT_EQ(v.to_vector<i64>(), sums);
      if (!long_dimension) {
        // A Fortran-order domain runs its dimensions reversed; the result is still in
        // the caller's numbering.
        Field fortran = holding(runtime, kept, initial);
        const Domain reversed({Dim{0, extents[0], 1}, Dim{0, extents[1], 1}, Dim{0, extents[2], 1}},
                              Order::fortran);
        along.launch(reduce_options(size, d), reversed, x, fortran);
        EXPECT_EQ(fortran.to_vector<i64>(), combined);
      }
      if (d == 2) {  // -1: the last dimension
        Field last = holding(runtime, kept, initial);
        along.launch(reduce_options(size, -1), domain, x, last);
        EXPECT_EQ(last.to_vector<i64>(), combined);
      }
    }
}

// Empty domains: combine leaves the result as it was; assign writes the identity (min
// of int32: its largest value); Kernel::reduce returns the identity. Whole and along a
// dimension (the reduced one empty, the kept ones not).
inline void check_empty_domains(Runtime& runtime) {
  constexpr i32 identity = std::numeric_limits<i32>::max();
  Kernel whole = runtime.kernel(
      {"min_index", {index("i"), result<i32>("v", Combiner::min)}, "v = stubjit::i32(i[0]) - 5;"});
  Field v = one<i32>(runtime, 42);
  whole.launch(Domain{0}, v);
  EXPECT_EQ(value_of<i32>(v), 42);
  whole.launch(reduce_options(0, -1, ReduceUpdate::assign), Domain{0}, v);
  EXPECT_EQ(value_of<i32>(v), identity);
  EXPECT_EQ(whole.reduce<i32>(Domain{0}), identity);
  EXPECT_EQ(whole.reduce<i32>(Domain{10}), -5);  // not empty: the kernel's values
  Field w = one<i32>(runtime, 42);
  whole.launch(Domain{7, 0, 3}, w);
  EXPECT_EQ(value_of<i32>(w), 42);

  Kernel along = runtime.kernel({"min_index_along",
                                 {index("i"), result<i32>("v", Combiner::min, 1)},
                                 "v = stubjit::i32(i[0] * 10 + i[1]);"});
  for (const int d : {0, 1}) {
    SCOPED_TRACE("along " + std::to_string(d));
    const Domain empty = d == 0 ? Domain{0, 4} : Domain{4, 0};
    Field r = holding<i32>(runtime, {4}, {1, 2, 3, 4});
    along.launch(reduce_options(0, d), empty, r);
    EXPECT_EQ(r.to_vector<i32>(), (std::vector<i32>{1, 2, 3, 4}));
    along.launch(reduce_options(0, d, ReduceUpdate::assign), empty, r);
    EXPECT_EQ(r.to_vector<i32>(), std::vector<i32>(4, identity));
    // Not empty: min over i0 of i0*10 + i1 is i1; over i1, i0*10.
    Field s = holding<i32>(runtime, {4}, {1, 2, 3, 4});
    along.launch(reduce_options(0, d), Domain{4, 4}, s);
    EXPECT_EQ(s.to_vector<i32>(),
              d == 0 ? (std::vector<i32>{0, 1, 2, 3}) : (std::vector<i32>{0, 2, 3, 4}));
  }
}

// Custom combiners: a sum modulo a prime (not the built-in sum: the result differs
// once the sum passes it), whole and along a dimension, split into parts; a custom max
// whose identity an empty domain assigns.
inline void check_custom_combiners(Runtime& runtime) {
  constexpr i64 p = 1000003;
  Kernel modular = runtime.kernel(
      {"sum_mod", {in<i64>("x"), result<i64>("v", "(a + b) % 1000003", "0")}, "v = x;"});
  const i64 n = 3000;
  std::vector<i64> values(static_cast<std::size_t>(n));
  i64 expected = 0;
  for (i64 k = 0; k < n; ++k) {
    values[std::size_t(k)] = i64(mix(u64(k) + 11) % u64(p));
    expected = (expected + values[std::size_t(k)]) % p;
  }
  Field x = holding(runtime, {n}, values);
  Field v = one<i64>(runtime, 5);
  EXPECT_GT(modular.launch(reduce_options(96), Domain{n}, x, v).reduce_parts, 1u);
  EXPECT_EQ(value_of<i64>(v), (expected + 5) % p);
  EXPECT_EQ(modular.reduce<i64>(reduce_options(96), Domain{n}, x), expected);

  Kernel rows = runtime.kernel(
      {"sum_mod_rows", {in<i64>("x"), result<i64>("v", "(a + b) % 1000003", "0", 1)}, "v = x;"});
  const i64 r = 5, c = 700;  // along the rows: two parts of groups of 32
  std::vector<i64> grid(std::size_t(r * c));
  std::vector<i64> row_sums(std::size_t(r), 0);
  for (i64 i = 0; i < r; ++i)
    for (i64 j = 0; j < c; ++j) {
      const i64 value = i64(mix(u64(i * c + j) + 12) % u64(p));
      grid[std::size_t(i * c + j)] = value;
      row_sums[std::size_t(i)] = (row_sums[std::size_t(i)] + value) % p;
    }
  Field g = holding(runtime, {r, c}, grid);
  Field s = holding(runtime, {r}, std::vector<i64>(std::size_t(r), -1));
  EXPECT_GT(
      rows.launch(reduce_options(32, 1, ReduceUpdate::assign), Domain{r, c}, g, s).reduce_parts,
      1u);
  EXPECT_EQ(s.to_vector<i64>(), row_sums);

  Kernel largest = runtime.kernel(
      {"custom_max", {in<double>("x"), result<double>("v", "a > b ? a : b", "-1e300")}, "v = x;"});
  std::vector<double> doubles(1000);
  for (std::size_t k = 0; k < doubles.size(); ++k) doubles[k] = -1e9 + double(mix(k) % 1000000);
  Field y = holding(runtime, {i64(doubles.size())}, doubles);
  EXPECT_EQ(largest.reduce<double>(Domain{i64(doubles.size())}, y),
            *std::max_element(doubles.begin(), doubles.end()));
  Field empty = holding<double>(runtime, {0}, {});
  EXPECT_EQ(largest.reduce<double>(Domain{0}, empty), -1e300);
}

// The other element types, each with values whose sum or product is exact in it, so
// the device's arithmetic must give the host's answer: u8 sums wrap, i16, u64 (above
// 2^63), float16 and bfloat16 of small integers, complex sums, an f64 product of
// powers of two. Split into parts (groups of 32).
inline void check_other_element_types(Runtime& runtime) {
  const i64 n = 1200;  // three parts of groups of 32
  const LaunchOptions options = reduce_options(32);
  const auto sum_kernel = [&](const std::string& name, ElementType type) {
    Param x{ParamKind::field, "x", type, 0, Access::read_only};
    Param v{ParamKind::field, "v", type, 0, Access::read_write};
    v.combiner = Combiner::sum;
    return runtime.kernel({name, {x, v}, "v = x;"});
  };
  {
    std::vector<std::uint8_t> values(static_cast<std::size_t>(n));
    std::uint8_t expected = 0;
    for (i64 k = 0; k < n; ++k) {
      values[std::size_t(k)] = std::uint8_t(mix(u64(k)) % 256);
      expected = std::uint8_t(expected + values[std::size_t(k)]);
    }
    Kernel k = sum_kernel("sum_u8", ElementType::u8);
    Field x = holding(runtime, {n}, values);
    EXPECT_EQ(int(k.reduce<std::uint8_t>(options, Domain{n}, x)), int(expected));
  }
  {
    std::vector<std::int16_t> values(static_cast<std::size_t>(n));
    std::int32_t expected = 0;
    for (i64 k = 0; k < n; ++k) {
      values[std::size_t(k)] = std::int16_t(i64(mix(u64(k) + 1) % 41) - 20);
      expected += values[std::size_t(k)];
    }
    Kernel k = sum_kernel("sum_i16", ElementType::i16);
    Field x = holding(runtime, {n}, values);
    EXPECT_EQ(k.reduce<std::int16_t>(options, Domain{n}, x), std::int16_t(expected));
  }
  {
    std::vector<u64> values(static_cast<std::size_t>(n));
    u64 expected = 0;
    for (i64 k = 0; k < n; ++k) {
      values[std::size_t(k)] = mix(u64(k) + 2) >> 8;  // the total passes 2^63
      expected += values[std::size_t(k)];
    }
    Kernel k = sum_kernel("sum_u64", ElementType::u64);
    Field x = holding(runtime, {n}, values);
    EXPECT_EQ(k.reduce<u64>(options, Domain{n}, x), expected);
  }
  {
    // Ones and zeros: every partial sum an integer below 2048 (float16) and 256
    // (bfloat16), exact in both.
    std::vector<float16> halves(static_cast<std::size_t>(n));
    std::vector<bfloat16> brains(static_cast<std::size_t>(n));
    float half_total = 0, brain_total = 0;
    for (i64 k = 0; k < n; ++k) {
      const bool on = mix(u64(k) + 3) % 3 == 0;
      const bool rare = k % 9 == 0;
      halves[std::size_t(k)] = float16(on ? 1.0f : 0.0f);
      brains[std::size_t(k)] = bfloat16(rare ? 1.0f : 0.0f);
      half_total += on ? 1.0f : 0.0f;
      brain_total += rare ? 1.0f : 0.0f;
    }
    Kernel h = sum_kernel("sum_f16", ElementType::float16);
    Kernel b = sum_kernel("sum_bf16", ElementType::bfloat16);
    Field xh = holding(runtime, {n}, halves);
    Field xb = holding(runtime, {n}, brains);
    EXPECT_EQ(float(h.reduce<float16>(options, Domain{n}, xh)), half_total);
    EXPECT_EQ(float(b.reduce<bfloat16>(options, Domain{n}, xb)), brain_total);
  }
  {
    std::vector<std::complex<float>> cf(static_cast<std::size_t>(n));
    std::vector<std::complex<double>> cd(static_cast<std::size_t>(n));
    std::complex<double> total = 0;
    for (i64 k = 0; k < n; ++k) {
      const double re = double(k % 5), im = -double(k % 3) * 0.5;
      cf[std::size_t(k)] = std::complex<float>(float(re), float(im));
      cd[std::size_t(k)] = std::complex<double>(re, im);
      total += std::complex<double>(re, im);
    }
    Kernel f = sum_kernel("sum_c32", ElementType::complex_f32);
    Kernel d = sum_kernel("sum_c64", ElementType::complex_f64);
    Field xf = holding(runtime, {n}, cf);
    Field xd = holding(runtime, {n}, cd);
    const std::complex<float> got_f = f.reduce<std::complex<float>>(options, Domain{n}, xf);
    EXPECT_EQ(std::complex<double>(got_f.real(), got_f.imag()), total);
    EXPECT_EQ(d.reduce<std::complex<double>>(options, Domain{n}, xd), total);
  }
  {
    // Powers of two: the product is exact, 2^(ups - downs).
    Kernel product = runtime.kernel(
        {"product_f64", {in<double>("x"), result<double>("v", Combiner::product)}, "v = x;"});
    std::vector<double> values(static_cast<std::size_t>(n));
    int exponent = 0;
    for (i64 k = 0; k < n; ++k) {
      const u64 pick = mix(u64(k) + 4) % 3;
      values[std::size_t(k)] = pick == 0 ? 2.0 : pick == 1 ? 0.5 : 1.0;
      exponent += pick == 0 ? 1 : pick == 1 ? -1 : 0;
    }
    Field x = holding(runtime, {n}, values);
    EXPECT_EQ(product.reduce<double>(options, Domain{n}, x), std::ldexp(1.0, exponent));
  }
}

// Kernel::repeat on a GPU: each iteration's flag comes back from the device. The
// levels of a path 0 - 1 - ... - n-1 from vertex 0, pulled from the neighbours' levels
// of the iteration before (double buffers traded between iterations) until nothing
// changes: n iterations, the last changing nothing. Then halvings until every element
// is zero (All): 1024 takes 11.
inline void check_repeat_until_flag(Runtime& runtime) {
  Kernel step = runtime.kernel(
      {"path_level",
       {index("v"), in<i32>("level", 1), inout<i32>("next"),
        result<bool>("changed", Combiner::any)},
       "const stubjit::i64 u = v[0];\n"
       "int best = level(u);\n"
       "if (u > 0 && level(u - 1) != 2147483647 && level(u - 1) + 1 < best) best = level(u - 1) + "
       "1;\n"
       "if (u + 1 < level.extent(0) && level(u + 1) != 2147483647 && level(u + 1) + 1 < best)\n"
       "  best = level(u + 1) + 1;\n"
       "next = best;\n"
       "changed = best != level(u);"});
  const i64 n = 100;
  std::vector<i32> initial(static_cast<std::size_t>(n), std::numeric_limits<i32>::max());
  initial[0] = 0;
  Field a = holding(runtime, {n}, initial);
  Field b = holding(runtime, {n}, initial);
  RepeatOptions options;
  options.launch.group_size = 64;
  options.swaps = {{a, b}};
  const RepeatSummary summary = step.repeat(options, Domain{n}, a, b);
  EXPECT_TRUE(summary.converged);
  EXPECT_EQ(summary.iterations, n);
  EXPECT_EQ(summary.swapped, n % 2 == 0);
  std::vector<i32> want(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) want[std::size_t(k)] = i32(k);
  EXPECT_EQ((summary.swapped ? a : b).to_vector<i32>(), want);

  Kernel halve = runtime.kernel({"halve_all",
                                 {inout<i64>("x"), result<bool>("done", Combiner::all)},
                                 "x = x / 2; done = x == 0;"});
  const std::vector<i64> values = {1000, 3, 0, 77, 1023, 1024, 5};
  Field x = holding(runtime, {i64(values.size())}, values);
  const RepeatSummary halved = halve.repeat(Domain{i64(values.size())}, x);
  EXPECT_TRUE(halved.converged);
  EXPECT_EQ(halved.iterations, 11);
  EXPECT_EQ(x.to_vector<i64>(), std::vector<i64>(values.size(), 0));
}

}  // namespace stubjit::test::reduce
