// Sort kernels (sort<T>, payload<T>) on the CPU backend, each against std::stable_sort on
// the host (common/sort_reference.hpp): ascending and descending keys of every real
// element type, NaNs last and equal keys in their order, custom orders (complex keys
// too), payloads moved with their keys and the sorting permutation from the body,
// ranks 1 to 8 along each dimension, pencils split into parts and merged in several
// passes, keys the body computes, strided, sub-box and Fortran-order domains, empty and
// one-element domains, every error (nothing written when a launch is refused), the
// caches and prepare.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/expect_refused.hpp"
#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "common/sort_reference.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// Pencils this long are split into parts on the CPU (docs/patterns.md: two per worker
// thread and at least four, at most as many as 32768 goes into the length, rounded
// up), then merged in passes.
constexpr i64 split_length = 300001;

// Values of a fixed pseudo-random sequence: integers in the whole range of T, reals in
// [-range, range) with few distinct values (ties), bools.
template <class T>
std::vector<T> random_keys(std::size_t n, u64 seed, int range = 50) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(n);
  for (std::size_t k = 0; k < n; ++k) {
    const u64 bits = rng();
    T v{};
    if constexpr (std::is_same_v<T, bool>) {
      v = (bits & 1) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      std::memcpy(&v, &bits, sizeof(T));
    } else {
      v = T(float(i64(bits % u64(2 * range)) - range) / 4.0f);
    }
    values[k] = v;
  }
  return values;
}

// Sorts `keys` (rank 1) with a kernel of no body, and expects std::stable_sort's order.
template <class T, class Less>
void expect_sorted_like_the_host(Runtime& runtime, const std::string& name, Param keys_param,
                                 const std::vector<T>& keys, Less less) {
  Kernel kernel = runtime.kernel({name, {std::move(keys_param)}, ""});
  const i64 n = i64(keys.size());
  Field x = runtime.allocate<T>({n});
  x.copy_from(keys);
  kernel.launch(Domain{n}, x);
  const std::vector<T> want = test::host_sort(keys, {n}, 0, less);
  const std::vector<T> got = x.to_vector<T>();
  ASSERT_EQ(got.size(), want.size());
  if constexpr (std::is_same_v<T, bool>) {
    EXPECT_EQ(got, want) << name;
  } else {
    // Bit for bit: equal keys that differ in their bits (-0 and +0) keep their order too.
    EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(T) * want.size()), 0) << name;
  }
}

template <class T>
void expect_both_orders(Runtime& runtime, const std::string& type, std::size_t n) {
  const std::vector<T> keys = random_keys<T>(n, 17 + n);
  expect_sorted_like_the_host(runtime, "sort_up_" + type, sort<T>("x"), keys,
                              [](T a, T b) { return a < b; });
  expect_sorted_like_the_host(runtime, "sort_down_" + type, sort<T>("x", SortOrder::descending),
                              keys, [](T a, T b) { return b < a; });
}

TEST(SortOrders, AscendingAndDescendingOfEveryIntegerType) {
  Runtime runtime(test::cpu_memory_only_options());
  expect_both_orders<std::int8_t>(runtime, "i8", 5000);
  expect_both_orders<std::uint8_t>(runtime, "u8", 5000);
  expect_both_orders<std::int16_t>(runtime, "i16", 5000);
  expect_both_orders<std::uint16_t>(runtime, "u16", 5000);
  expect_both_orders<std::int32_t>(runtime, "i32", 5000);
  expect_both_orders<std::uint32_t>(runtime, "u32", 5000);
  expect_both_orders<i64>(runtime, "i64", 5000);
  expect_both_orders<u64>(runtime, "u64", 5000);
  expect_both_orders<bool>(runtime, "bool", 5000);
}

TEST(SortOrders, AscendingAndDescendingOfEveryRealTypeInParts) {
  Runtime runtime(test::cpu_memory_only_options());
  expect_both_orders<float>(runtime, "f32", std::size_t(split_length));
  expect_both_orders<double>(runtime, "f64", std::size_t(split_length));
  expect_both_orders<float16>(runtime, "f16", 40000);
  expect_both_orders<bfloat16>(runtime, "bf16", 40000);
}

TEST(SortOrders, NansGoLastEitherWayAndSignedZerosKeepTheirOrder) {
  Runtime runtime(test::cpu_memory_only_options());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> keys = {3.0, nan, -0.0, -inf, 0.0, nan, 1.0, -0.0, inf, -2.0, 0.0};
  // NaNs last, by the order the library documents (and nothing else puts them there).
  const auto up = [](double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
  const auto down = [](double a, double b) { return b < a || (std::isnan(b) && !std::isnan(a)); };
  expect_sorted_like_the_host(runtime, "sort_nan_up", sort<double>("x"), keys, up);
  expect_sorted_like_the_host(runtime, "sort_nan_down", sort<double>("x", SortOrder::descending),
                              keys, down);
  Kernel kernel = runtime.kernel({"sort_nan_check", {sort<double>("x")}, ""});
  Field x = runtime.allocate<double>({i64(keys.size())});
  x.copy_from(keys);
  kernel.launch(Domain{i64(keys.size())}, x);
  const std::vector<double> got = x.to_vector<double>();
  EXPECT_EQ(got.front(), -inf);
  EXPECT_TRUE(std::isnan(got[got.size() - 1]) && std::isnan(got[got.size() - 2]));
  // -0.0 (at 2), 0.0 (at 4), -0.0 (at 7), 0.0 (at 10) in that order after -2.0.
  EXPECT_TRUE(std::signbit(got[2]) && !std::signbit(got[3]) && std::signbit(got[4]) &&
              !std::signbit(got[5]));
}

TEST(SortOrders, SmallFloatNansGoLastToo) {
  Runtime runtime(test::cpu_memory_only_options());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {2.5f, nan, -1.0f, 0.0f, nan, 7.0f, -0.0f, -3.5f};
  const auto up = [](float a, float b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
  const auto down = [](float a, float b) { return b < a || (std::isnan(b) && !std::isnan(a)); };
  std::vector<float16> halves;
  std::vector<bfloat16> brains;
  for (const float v : values) {
    halves.push_back(float16(v));
    brains.push_back(bfloat16(v));
  }
  expect_sorted_like_the_host(runtime, "sort_f16_nan_up", sort<float16>("x"), halves,
                              [&](float16 a, float16 b) { return up(float(a), float(b)); });
  expect_sorted_like_the_host(runtime, "sort_bf16_nan_down",
                              sort<bfloat16>("x", SortOrder::descending), brains,
                              [&](bfloat16 a, bfloat16 b) { return down(float(a), float(b)); });
}

// Keys drawn from `pool` (many ties) sorted with the sorting permutation as a payload,
// alone and in parts, both orders: each permutation must be std::stable_sort's, and the
// keys its bits. A CPU part with a built-in order sorts by radix (sort.h), which sees a
// key's bits: NaNs of either sign or with a payload must still go last and keep their
// order among themselves, -0 and +0 keep theirs, and signed extremes go to their ends.
template <class T, class Less>
void expect_pool_sorted_stably(Runtime& runtime, const std::string& name, SortOrder order,
                               const std::vector<T>& pool, Less less) {
  Kernel kernel = runtime.kernel(
      {name, {sort<T>("x", order), payload<i64>("perm"), index("i")}, "perm = i[0];"});
  for (const i64 n : {i64(1000), split_length}) {
    std::mt19937_64 rng(u64(n) + pool.size());
    std::vector<T> keys(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < keys.size(); ++k) keys[k] = pool[rng() % pool.size()];
    Field x = runtime.allocate<T>({n});
    Field perm = runtime.allocate<i64>({n});
    x.copy_from(keys);
    EXPECT_EQ(kernel.launch(Domain{n}, x, perm).reduce_parts > 1, n == split_length) << name;
    const std::vector<i64> want = test::host_sort_permutation(keys, {n}, 0, less);
    EXPECT_EQ(perm.to_vector<i64>(), want) << name << " " << n;
    const std::vector<T> sorted = test::host_apply_permutation(keys, want, {n}, 0);
    const std::vector<T> got = x.to_vector<T>();
    if constexpr (std::is_same_v<T, bool>) {
      EXPECT_EQ(got, sorted) << name << " " << n;
    } else {
      EXPECT_EQ(std::memcmp(got.data(), sorted.data(), sizeof(T) * sorted.size()), 0)
          << name << " " << n;
    }
  }
}

template <class T>
std::vector<T> special_reals() {
  using limits = std::numeric_limits<T>;
  const T nan = limits::quiet_NaN();
  T payload_nan = nan, negative_payload_nan = nan;
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, u64>;
  Bits bits = 0;
  std::memcpy(&bits, &nan, sizeof bits);
  bits |= 5;  // a payload in the mantissa
  std::memcpy(&payload_nan, &bits, sizeof bits);
  bits |= Bits(1) << (8 * sizeof(Bits) - 1);  // and the sign bit
  std::memcpy(&negative_payload_nan, &bits, sizeof bits);
  return {nan,
          -nan,
          payload_nan,
          negative_payload_nan,
          T(0),
          -T(0),
          limits::infinity(),
          -limits::infinity(),
          limits::max(),
          limits::lowest(),
          limits::denorm_min(),
          -limits::denorm_min(),
          limits::min(),
          T(1),
          T(-1),
          T(0.5),
          T(-2.75),
          T(1e-30)};
}

TEST(SortOrders, NansOfEitherSignAndSignedZerosKeepTheirOrderAloneAndInParts) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto up = [](auto a, auto b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
  const auto down = [](auto a, auto b) { return b < a || (std::isnan(b) && !std::isnan(a)); };
  expect_pool_sorted_stably(runtime, "pool_f32_up", SortOrder::ascending, special_reals<float>(),
                            up);
  expect_pool_sorted_stably(runtime, "pool_f32_down", SortOrder::descending, special_reals<float>(),
                            down);
  expect_pool_sorted_stably(runtime, "pool_f64_up", SortOrder::ascending, special_reals<double>(),
                            up);
  expect_pool_sorted_stably(runtime, "pool_f64_down", SortOrder::descending,
                            special_reals<double>(), down);
  // The 16-bit reals from the floats (each rounded; NaNs keep their sign), their own
  // extremes and smallest denormals beside.
  std::vector<float16> halves;
  std::vector<bfloat16> brains;
  for (const float v : special_reals<float>()) {
    halves.push_back(float16(v));
    brains.push_back(bfloat16(v));
  }
  for (const float v : {65504.0f, -65504.0f, 5.9604645e-8f, -5.9604645e-8f})
    halves.push_back(float16(v));
  for (const float v : {9.18355e-41f, -9.18355e-41f}) brains.push_back(bfloat16(v));
  const auto up16 = [&](auto a, auto b) { return up(float(a), float(b)); };
  const auto down16 = [&](auto a, auto b) { return down(float(a), float(b)); };
  expect_pool_sorted_stably(runtime, "pool_f16_up", SortOrder::ascending, halves, up16);
  expect_pool_sorted_stably(runtime, "pool_f16_down", SortOrder::descending, halves, down16);
  expect_pool_sorted_stably(runtime, "pool_bf16_up", SortOrder::ascending, brains, up16);
  expect_pool_sorted_stably(runtime, "pool_bf16_down", SortOrder::descending, brains, down16);
}

TEST(SortOrders, IntegerExtremesAndTiesKeepTheirOrderAloneAndInParts) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto up = [](auto a, auto b) { return a < b; };
  const auto down = [](auto a, auto b) { return b < a; };
  using i8 = std::int8_t;
  using i32 = std::int32_t;
  const std::vector<i8> bytes = {-128, 127, 0, -1, 1, 64, -64};
  const std::vector<i32> words = {std::numeric_limits<i32>::min(),
                                  std::numeric_limits<i32>::max(),
                                  0,
                                  -1,
                                  1,
                                  256,
                                  -256,
                                  65536,
                                  -65537};
  const std::vector<i64> longs = {std::numeric_limits<i64>::min(),
                                  std::numeric_limits<i64>::max(),
                                  0,
                                  -1,
                                  1,
                                  i64(1) << 40,
                                  -(i64(1) << 40),
                                  255,
                                  -255};
  const std::vector<u64> unsigned_longs = {0, 1, ~u64(0), u64(1) << 63, (u64(1) << 63) - 1, 256};
  expect_pool_sorted_stably(runtime, "pool_i8_up", SortOrder::ascending, bytes, up);
  expect_pool_sorted_stably(runtime, "pool_i8_down", SortOrder::descending, bytes, down);
  expect_pool_sorted_stably(runtime, "pool_i32_up", SortOrder::ascending, words, up);
  expect_pool_sorted_stably(runtime, "pool_i32_down", SortOrder::descending, words, down);
  expect_pool_sorted_stably(runtime, "pool_i64_up", SortOrder::ascending, longs, up);
  expect_pool_sorted_stably(runtime, "pool_u64_down", SortOrder::descending, unsigned_longs, down);
  expect_pool_sorted_stably(runtime, "pool_bool_down", SortOrder::descending,
                            std::vector<bool>{true, false}, down);
  expect_pool_sorted_stably(runtime, "pool_bool_up", SortOrder::ascending,
                            std::vector<bool>{true, false}, up);
  expect_pool_sorted_stably(runtime, "pool_u8_down", SortOrder::descending,
                            std::vector<std::uint8_t>{0, 255, 128, 127, 1}, down);
  expect_pool_sorted_stably(runtime, "pool_i16_down", SortOrder::descending,
                            std::vector<std::int16_t>{-32768, 32767, 0, -1, 255, -256}, down);
  expect_pool_sorted_stably(runtime, "pool_u16_up", SortOrder::ascending,
                            std::vector<std::uint16_t>{0, 65535, 32768, 32767, 256, 255}, up);
  expect_pool_sorted_stably(runtime, "pool_u32_up", SortOrder::ascending,
                            std::vector<std::uint32_t>{0, ~0u, 1u << 31, (1u << 31) - 1, 65536},
                            up);
}

TEST(SortOrders, CustomOrdersOfRealAndComplexKeys) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<double> keys = random_keys<double>(std::size_t(split_length), 5);
  expect_sorted_like_the_host(runtime, "sort_by_abs",
                              sort<double>("x", "(a < 0 ? -a : a) < (b < 0 ? -b : b)"), keys,
                              [](double a, double b) { return std::abs(a) < std::abs(b); });
  std::vector<std::complex<double>> zs(3000);
  std::mt19937 rng(3);
  for (auto& z : zs) z = {double(rng() % 7), double(rng() % 5)};
  expect_sorted_like_the_host(
      runtime, "sort_complex",
      sort<std::complex<double>>("x", "real(a) + imag(a) < real(b) + imag(b)"), zs,
      [](std::complex<double> a, std::complex<double> b) {
        return a.real() + a.imag() < b.real() + b.imag();
      });
}

// --- payloads ---------------------------------------------------------------------------------

TEST(SortPayloads, TheBodysPermutationAndPayloadsMoveWithTheirKeys) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"argsort",
                                  {sort<float>("x"), payload<i64>("perm"), payload<double>("w"),
                                   payload<std::uint8_t>("tag"), index("i")},
                                  "perm = i[0];"});
  for (const i64 n : {i64(1), i64(2), i64(33), i64(1000), split_length, i64(1) << 20}) {
    const std::vector<float> keys = random_keys<float>(std::size_t(n), u64(n));
    std::vector<double> w(static_cast<std::size_t>(n));
    std::vector<std::uint8_t> tag(static_cast<std::size_t>(n));
    for (i64 k = 0; k < n; ++k) {
      w[std::size_t(k)] = double(k) * 0.5;
      tag[std::size_t(k)] = std::uint8_t(k * 7);
    }
    Field x = runtime.allocate<float>({n});
    Field perm = runtime.allocate<i64>({n});
    Field wf = runtime.allocate<double>({n});
    Field tf = runtime.allocate<std::uint8_t>({n});
    x.copy_from(keys);
    wf.copy_from(w);
    tf.copy_from(tag);
    const LaunchSummary summary = kernel.launch(Domain{n}, x, perm, wf, tf);
    if (n >= split_length) {
      EXPECT_GT(summary.reduce_parts, 2u) << n;
    }
    const std::vector<i64> want =
        test::host_sort_permutation(keys, {n}, 0, [](float a, float b) { return a < b; });
    EXPECT_EQ(perm.to_vector<i64>(), want) << n;
    EXPECT_EQ(x.to_vector<float>(), test::host_apply_permutation(keys, want, {n}, 0)) << n;
    EXPECT_EQ(wf.to_vector<double>(), test::host_apply_permutation(w, want, {n}, 0)) << n;
    EXPECT_EQ(tf.to_vector<std::uint8_t>(), test::host_apply_permutation(tag, want, {n}, 0)) << n;
  }
}

TEST(SortPayloads, KeysTheBodyComputesFromOtherFields) {
  Runtime runtime(test::cpu_memory_only_options());
  // Sorts the points by their distance from the origin: the key computed, the point's
  // coordinates moved with it.
  Kernel kernel = runtime.kernel({"by_distance",
                                  {sort<double>("d"), payload<double>("px"), payload<double>("py")},
                                  "d = px * px + py * py;"});
  const i64 n = 70001;
  std::vector<double> px = random_keys<double>(std::size_t(n), 1, 1000);
  std::vector<double> py = random_keys<double>(std::size_t(n), 2, 1000);
  std::vector<double> d(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < d.size(); ++k) d[k] = px[k] * px[k] + py[k] * py[k];
  Field df = runtime.allocate<double>({n});
  Field xf = runtime.allocate<double>({n});
  Field yf = runtime.allocate<double>({n});
  xf.copy_from(px);
  yf.copy_from(py);
  kernel.launch(Domain{n}, df, xf, yf);
  const std::vector<i64> want =
      test::host_sort_permutation(d, {n}, 0, [](double a, double b) { return a < b; });
  EXPECT_EQ(df.to_vector<double>(), test::host_apply_permutation(d, want, {n}, 0));
  EXPECT_EQ(xf.to_vector<double>(), test::host_apply_permutation(px, want, {n}, 0));
  EXPECT_EQ(yf.to_vector<double>(), test::host_apply_permutation(py, want, {n}, 0));
}

// --- ranks, dimensions and domains
// ----------------------------------------------------------------

// Sorts a row-major box over `counts` along `along` with the permutation as a payload;
// expects the host's keys and permutation.
void expect_box_sorted(Runtime& runtime, Kernel& kernel, const std::vector<i64>& counts, int along,
                       u64 seed) {
  i64 size = 1;
  for (const i64 c : counts) size *= c;
  const std::vector<i64> keys = random_keys<i64>(std::size_t(size), seed);
  std::vector<i64> small(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) small[k] = keys[k] % 5;  // ties
  Field x = runtime.allocate<i64>(counts);
  Field perm = runtime.allocate<i64>(counts);
  x.copy_from(small);
  LaunchOptions options;
  options.reduce_dimension = along;
  std::vector<Dim> dims;
  for (const i64 c : counts) dims.push_back(Dim{0, c, 1});
  kernel.launch(options, Domain(dims), x, perm);
  const std::vector<i64> want =
      test::host_sort_permutation(small, counts, along, [](i64 a, i64 b) { return a < b; });
  EXPECT_EQ(perm.to_vector<i64>(), want) << counts.size() << " along " << along;
  EXPECT_EQ(x.to_vector<i64>(), test::host_apply_permutation(small, want, counts, along))
      << counts.size() << " along " << along;
}

TEST(SortRanks, Ranks1To8AlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"sort_ranks", {sort<i64>("x"), payload<i64>("perm"), index("i")}, "perm = i[0];"});
  // The permutation is the position along the first dimension: kernels per dimension.
  for (int rank = 1; rank <= 8; ++rank) {
    std::vector<i64> counts;
    for (int d = 0; d < rank; ++d) counts.push_back(rank <= 3 ? 9 + d : 2 + (d % 3));
    for (int along = 0; along < rank; ++along) {
      Kernel along_kernel = runtime.kernel({"sort_rank_along" + std::to_string(along),
                                            {sort<i64>("x"), payload<i64>("perm"), index("i")},
                                            "perm = i[" + std::to_string(along) + "];"});
      expect_box_sorted(runtime, along_kernel, counts, along, u64(rank * 10 + along));
    }
  }
  // -1: the last dimension.
  Field x = runtime.allocate<i64>({3, 4});
  Field perm = runtime.allocate<i64>({3, 4});
  x.copy_from(std::vector<i64>{3, 2, 1, 0, 7, 5, 6, 4, 0, 0, 1, 0});
  kernel.launch(Domain{3, 4}, x, perm);
  EXPECT_EQ(x.to_vector<i64>(), (std::vector<i64>{0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 1}));
}

TEST(SortRanks, LongPencilsSplitIntoPartsAlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  for (int along = 0; along < 2; ++along) {
    Kernel kernel = runtime.kernel({"sort_long_along" + std::to_string(along),
                                    {sort<i64>("x"), payload<i64>("perm"), index("i")},
                                    "perm = i[" + std::to_string(along) + "];"});
    const std::vector<i64> counts =
        along == 0 ? std::vector<i64>{150001, 3} : std::vector<i64>{3, 150001};
    expect_box_sorted(runtime, kernel, counts, along, 99);
  }
}

// A host sort aims at two parts per worker thread (at least four): with 1, 3 and 5
// workers a pencil of split_length is 4, 6 and 10 parts, so the passes merge an odd
// number of runs too (6: 3 runs, then 2; 10: 5, 3, 2), each with its permutation the
// host's, for keys sorted by radix and by a custom order's merges.
TEST(SortRanks, PartsFollowTheWorkersAndOddRunCountsMergeToo) {
  const std::vector<float> keys = random_keys<float>(std::size_t(split_length), 12);
  for (const auto& [workers, parts] : {std::pair{1u, 4u}, {3u, 6u}, {5u, 10u}}) {
    RuntimeOptions options = test::cpu_memory_only_options();
    options.cpu_threads = workers;
    Runtime runtime(options);
    for (const bool custom : {false, true}) {
      Kernel kernel = runtime.kernel({custom ? "sort_workers_custom" : "sort_workers",
                                      {custom ? sort<float>("x", "b < a") : sort<float>("x"),
                                       payload<i64>("perm"), index("i")},
                                      "perm = i[0];"});
      Field x = runtime.allocate<float>({split_length});
      Field perm = runtime.allocate<i64>({split_length});
      x.copy_from(keys);
      EXPECT_EQ(kernel.launch(Domain{split_length}, x, perm).reduce_parts, parts) << workers;
      const std::vector<i64> want =
          custom ? test::host_sort_permutation(keys, {split_length}, 0,
                                               [](float a, float b) { return b < a; })
                 : test::host_sort_permutation(keys, {split_length}, 0,
                                               [](float a, float b) { return a < b; });
      EXPECT_EQ(perm.to_vector<i64>(), want) << workers << (custom ? " custom" : "");
      EXPECT_EQ(x.to_vector<float>(), test::host_apply_permutation(keys, want, {split_length}, 0))
          << workers << (custom ? " custom" : "");
    }
  }
}

TEST(SortDomains, AStridedSubBoxSortsItsPencilsAndLeavesTheRest) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_sub", {sort<int>("x")}, ""});
  // Rows 1..3 of a 5x10 field, columns 2, 4, 6 and 8: each row's four sorted.
  std::vector<int> values(50);
  for (int k = 0; k < 50; ++k) values[std::size_t(k)] = (k * 37) % 23;
  Field x = runtime.allocate<int>({5, 10});
  x.copy_from(values);
  kernel.launch(Domain({Dim{1, 3, 1}, Dim{2, 4, 2}}), x);
  std::vector<int> want = values;
  for (int r = 1; r <= 3; ++r) {
    std::vector<int> row;
    for (int c = 2; c <= 8; c += 2) row.push_back(values[std::size_t(r * 10 + c)]);
    std::stable_sort(row.begin(), row.end());
    for (int j = 0; j < 4; ++j) want[std::size_t(r * 10 + 2 + 2 * j)] = row[std::size_t(j)];
  }
  EXPECT_EQ(x.to_vector<int>(), want);
}

TEST(SortDomains, ABackwardDomainInPartsWithTheKeysAfterThePayloads) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"sort_backward_cpu",
       {payload<std::int32_t>("tag"), payload<double>("half"), sort<i64>("x"), index("i")},
       "tag = int(i[0]); half = 0.5 * double(x);"});
  // Every third element from the last, backwards: split into parts and merged.
  const i64 count = 120001, size = 3 * count;
  const std::vector<i64> keys = random_keys<i64>(std::size_t(size), 31);
  std::vector<i64> small(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) small[k] = std::abs(keys[k] % 1000);
  Field x = runtime.allocate<i64>({size});
  Field tag = runtime.allocate<std::int32_t>({size});
  Field half = runtime.allocate<double>({size});
  x.copy_from(small);
  tag.copy_from(std::vector<std::int32_t>(std::size_t(size), -1));
  half.copy_from(std::vector<double>(std::size_t(size), -1.0));
  const i64 last = size - 1;
  EXPECT_GT(kernel.launch(Domain({Dim{last, count, -3}}), tag, half, x).reduce_parts, 2u);
  std::vector<i64> walked(static_cast<std::size_t>(count));
  for (i64 k = 0; k < count; ++k) walked[std::size_t(k)] = small[std::size_t(last - 3 * k)];
  const std::vector<i64> perm =
      test::host_sort_permutation(walked, {count}, 0, [](i64 a, i64 b) { return a < b; });
  std::vector<i64> want_x = small;
  std::vector<std::int32_t> want_tag(static_cast<std::size_t>(size), -1);
  std::vector<double> want_half(static_cast<std::size_t>(size), -1.0);
  for (i64 k = 0; k < count; ++k) {
    const std::size_t at = std::size_t(last - 3 * k);
    const i64 from = perm[std::size_t(k)];
    want_x[at] = walked[std::size_t(from)];
    want_tag[at] = std::int32_t(last - 3 * from);
    want_half[at] = 0.5 * double(walked[std::size_t(from)]);
  }
  EXPECT_EQ(x.to_vector<i64>(), want_x);
  EXPECT_EQ(tag.to_vector<std::int32_t>(), want_tag);
  EXPECT_EQ(half.to_vector<double>(), want_half);
}

TEST(SortDomains, FortranOrderSortsAlongTheCallersDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_fortran", {sort<int>("x")}, ""});
  // A column-major 4x3 field; Fortran-order domain (4, 3): dimension 0 is the
  // contiguous one, each column of 4 sorted.
  std::vector<int> values = {4, 1, 3, 2, 9, 7, 8, 6, 0, -1, 5, -2};
  Field x = runtime.allocate<int>({4, 3}, Layout::column_major);
  x.copy_from(values);
  LaunchOptions options;
  options.reduce_dimension = 0;
  kernel.launch(options, Domain({Dim{0, 4, 1}, Dim{0, 3, 1}}, Order::fortran), x);
  EXPECT_EQ(x.to_vector<int>(), (std::vector<int>{1, 2, 3, 4, 6, 7, 8, 9, -2, -1, 0, 5}));
}

TEST(SortDomains, EmptyDomainsWriteNothingAndOneElementDomainsKeepTheirElement) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"sort_edges", {sort<double>("x"), payload<i64>("perm"), index("i")}, "perm = i[0] + 10;"});
  Field x = runtime.allocate<double>({4});
  Field perm = runtime.allocate<i64>({4});
  x.copy_from(std::vector<double>{4, 3, 2, 1});
  perm.copy_from(std::vector<i64>{-1, -1, -1, -1});
  const LaunchSummary empty = kernel.launch(Domain({Dim{0, 0, 1}}), x, perm);
  EXPECT_EQ(empty.dispatches, 0u);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{4, 3, 2, 1}));
  EXPECT_EQ(perm.to_vector<i64>(), (std::vector<i64>{-1, -1, -1, -1}));
  kernel.launch(Domain({Dim{2, 1, 1}}), x, perm);  // element 2 alone: the body ran for it
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{4, 3, 2, 1}));
  EXPECT_EQ(perm.to_vector<i64>(), (std::vector<i64>{-1, -1, 12, -1}));
  Field wide = runtime.allocate<double>({3, 0});
  Field wide_perm = runtime.allocate<i64>({3, 0});
  EXPECT_EQ(kernel.launch(Domain{3, 0}, wide, wide_perm).dispatches, 0u);
}

// --- errors ---------------------------------------------------------------------------------

using test::expect_refused;

TEST(SortErrors, LaunchesThatCannotRunAreRefusedAndWriteNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_refused", {sort<double>("x"), payload<i64>("p")}, ""});
  Field x = runtime.allocate<double>({8, 4});
  Field p = runtime.allocate<i64>({8, 4});
  Field p1 = runtime.allocate<i64>({32});
  Field pf = runtime.allocate<float>({8, 4});
  const std::vector<double> untouched = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4,
                                         3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8};
  x.copy_from(untouched);
  p.copy_from(std::vector<i64>(32, 5));
  LaunchOptions bad;
  bad.reduce_dimension = 2;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(bad, Domain{8, 4}, x, p);
                                },
                                {"sorts dimension 2 of a rank-2"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 4}, x, p1);
                                },
                                {"'p'", "a field of the domain's rank (2)"});
  expect_refused<ArgumentError>(runtime, [&] { kernel.launch(Domain{8, 4}, x, pf); }, {"'p'"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 5}, x, p);
                                },
                                {"outside the field's extent"});
  expect_refused<ArgumentError>(runtime, [&] { kernel.launch(Domain{8, 4}, x, x); }, {"'p'"});
  Kernel twice = runtime.kernel({"sort_aliased", {sort<double>("x"), payload<double>("w")}, ""});
  expect_refused<ArgumentError>(runtime, [&] { twice.launch(Domain{8, 4}, x, x); }, {"'w'"});
  LaunchOptions tiled;
  tiled.tile = Tile{2, 2};
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(tiled, Domain{8, 4}, x, p);
                                },
                                {"is a sort kernel", "takes no tile"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  (void)kernel.reduce<double>(Domain{8, 4}, p);
                                },
                                {"a sort kernel"});
  const std::vector<double> constant(32, -8.0);
  Field read_only = runtime.wrap(constant.data(), {8, 4});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 4}, read_only, p);
                                },
                                {"got a read-only field"});
  EXPECT_EQ(x.to_vector<double>(), untouched);
  EXPECT_EQ(p.to_vector<i64>(), std::vector<i64>(32, 5));
}

TEST(SortErrors, SignaturesThatCannotSortAreRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto refused = [&](Signature signature, const std::string& part,
                           const std::string& filter = "") {
    try {
      KernelSource source{"bad_sort", std::move(signature), ""};
      source.filter = filter;
      runtime.kernel(source);
      ADD_FAILURE() << "not refused: " << part;
    } catch (const SignatureError& error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    }
  };
  refused({sort<std::complex<float>>("x")}, "complex values have no order");
  refused({sort<double>("x", SortOrder::custom)}, "needs a less expression");
  refused({sort<double>("x", " ")}, "needs a less expression");
  refused({sort<double>("x"), sort<double>("y")}, "a sort kernel has one sort<T>");
  refused({payload<double>("p")}, "add a sort<T>");
  refused({sort<double>("x"), result<double>("v", Combiner::sum)}, "a sort kernel ('x') has none");
  refused({sort<double>("x"), scan<double>("v", Combiner::sum)}, "a sort kernel ('x') has none");
  refused({sort<double>("x"), group("g")}, "once per element");
  refused({sort<double>("x"), tile_index("t")}, "once per element");
  refused({sort<double>("x"), mask<int>("m")}, "moves every element");
  refused({sort<double>("x")}, "moves every element", "i[0] > 0");
  Param ranked = sort<double>("x");
  ranked.rank = 1;
  refused({ranked}, "has a sort order but is no read-write rank-0 field (sort<T> makes one)");
  Param read_only_payload = payload<double>("p");
  read_only_payload.access = Access::read_only;
  refused({sort<double>("x"), read_only_payload},
          "is marked a payload but is no read-write rank-0 field (payload<T> makes one)");
  Param both = sort<double>("x");
  both.payload = true;
  refused({both}, "both a sort's keys and a payload");
  Param stray_less = sort<double>("x");
  stray_less.less = "a < b";
  refused({stray_less}, "only a sort's keys with a custom order");
  Param unknown = sort<double>("x");
  unknown.sort = static_cast<SortOrder>(9);
  refused({unknown}, "which is no SortOrder");
  // Keys without an order would be a plain read-write field: refused where they are made.
  try {
    (void)sort<double>("x", SortOrder::none);
    ADD_FAILURE() << "sort<double>(\"x\", SortOrder::none) was made";
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("a sort's keys need an order"), std::string::npos)
        << error.what();
  }
}

TEST(SortErrors, AnOrderThatDoesNotCompileIsACompileErrorAndWritesNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"bad_sort_less", {sort<double>("x", "a < not_declared(b)"), payload<int>("p")}, ""});
  Field x = runtime.allocate<double>({16});
  Field p = runtime.allocate<int>({16});
  x.copy_from(std::vector<double>(16, 4.0));
  p.copy_from(std::vector<int>(16, 3));
  try {
    kernel.launch(Domain{16}, x, p);
    ADD_FAILURE() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("bad_sort_less.less:1:"), std::string::npos) << error.log();
  }
  EXPECT_EQ(x.to_vector<double>(), std::vector<double>(16, 4.0));
  EXPECT_EQ(p.to_vector<int>(), std::vector<int>(16, 3));
  EXPECT_EQ(runtime.counters().launches, 0u);
}

// --- caches and prepare ------------------------------------------------------------------------

TEST(SortCache, BothStagesComeFromMemoryThenFromDisk) {
  const test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);
  const test::TempDir dir;
  RuntimeOptions options = test::cpu_options();
  options.cache_dir = dir.path();
  const std::vector<i64> keys = random_keys<i64>(std::size_t(split_length), 4);
  const std::vector<i64> want =
      test::host_sort(keys, {split_length}, 0, [](i64 a, i64 b) { return b < a; });
  const auto run = [&](Runtime& runtime) {
    Kernel kernel = runtime.kernel({"sort_cached", {sort<i64>("x", SortOrder::descending)}, ""});
    Field x = runtime.allocate<i64>({split_length});
    x.copy_from(keys);
    const LaunchSummary first = kernel.launch(Domain{split_length}, x);
    EXPECT_GT(first.reduce_parts, 1u);
    x.copy_from(keys);
    EXPECT_FALSE(kernel.launch(Domain{split_length}, x).compiled);
    EXPECT_EQ(x.to_vector<i64>(), want);
    return first.compiled;
  };
  {
    Runtime first(options);
    EXPECT_TRUE(run(first));
    EXPECT_EQ(first.counters().compiles, 2u);
  }
  Runtime second(options);
  EXPECT_FALSE(run(second));
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 2u);
}

TEST(SortPrepare, PrepareCompilesBothStagesAndTheLaunchNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_prepared", {sort<i64>("x")}, ""});
  Field x = runtime.allocate<i64>({split_length});
  const std::vector<i64> keys = random_keys<i64>(std::size_t(split_length), 8);
  x.copy_from(keys);
  const LaunchSummary prepared = kernel.prepare(Domain{split_length}, x);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(runtime.counters().launches, 0u);
  EXPECT_EQ(x.to_vector<i64>(), keys);
  EXPECT_FALSE(kernel.launch(Domain{split_length}, x).compiled);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(x.to_vector<i64>(),
            test::host_sort(keys, {split_length}, 0, [](i64 a, i64 b) { return a < b; }));
  const std::string source = kernel.stub_source(Domain{split_length}, {x});
  EXPECT_NE(source.find(", sort_runs along dimension 0, rank 1"), std::string::npos) << source;
}

// A launch whose pencils are one part each sorts them into the fields in the first stage:
// it compiles the runs stage alone, and the merge stage's stub only when a later
// launch's pencils split.
TEST(SortPrepare, APencilOfOnePartCompilesTheRunsStageAloneTheMergesWhenSplit) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_one_part", {sort<i64>("x")}, ""});
  const auto ascending = [](i64 a, i64 b) { return a < b; };
  const i64 short_length = 1000;
  const std::vector<i64> short_keys = random_keys<i64>(std::size_t(short_length), 21);
  Field short_field = runtime.allocate<i64>({short_length});
  short_field.copy_from(short_keys);
  const LaunchSummary prepared = kernel.prepare(Domain{short_length}, short_field);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_EQ(prepared.reduce_parts, 1u);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_FALSE(kernel.launch(Domain{short_length}, short_field).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(short_field.to_vector<i64>(),
            test::host_sort(short_keys, {short_length}, 0, ascending));

  const std::vector<i64> long_keys = random_keys<i64>(std::size_t(split_length), 22);
  Field long_field = runtime.allocate<i64>({split_length});
  long_field.copy_from(long_keys);
  const LaunchSummary split = kernel.launch(Domain{split_length}, long_field);
  EXPECT_TRUE(split.compiled);
  EXPECT_GT(split.reduce_parts, 1u);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(long_field.to_vector<i64>(), test::host_sort(long_keys, {split_length}, 0, ascending));
  EXPECT_EQ(runtime.counters().launches, 2u);
}

// Kernel::prepare fills caches other processes and machines read: where a segment is
// long enough to split on a machine with more workers, it compiles the merge stage's
// stub too, which a launch here, on one worker, does without.
TEST(SortPrepare, PrepareAlsoCompilesTheMergesOfAMachineWithMoreWorkers) {
  const std::vector<i64> counts = {8, 40000};  // 8 segments: one part each on one worker
  const std::vector<i64> keys = random_keys<i64>(std::size_t(8 * 40000), 23);
  const std::vector<i64> want =
      test::host_sort(keys, counts, 1, [](i64 a, i64 b) { return a < b; });
  const auto sorted_by = [&](unsigned workers, bool prepare_first) {
    RuntimeOptions options = test::cpu_memory_only_options();
    options.cpu_threads = workers;
    Runtime runtime(options);
    Kernel kernel = runtime.kernel({"sort_machines", {sort<i64>("x")}, ""});
    Field x = runtime.allocate<i64>({8, 40000});
    x.copy_from(keys);
    if (prepare_first) {
      EXPECT_TRUE(kernel.prepare(Domain{8, 40000}, x).compiled);
    }
    const std::uint64_t prepared = runtime.counters().compiles;
    const LaunchSummary launched = kernel.launch(Domain{8, 40000}, x);
    EXPECT_EQ(x.to_vector<i64>(), want) << workers;
    return std::tuple{prepared, runtime.counters().compiles, launched.reduce_parts};
  };
  // One worker aims at 4 parts: 8 segments need no split, and the launch no merges.
  EXPECT_EQ(sorted_by(1, false), (std::tuple{std::uint64_t(0), std::uint64_t(1), 1u}));
  // Five aim at 10: each segment splits in two, and the launch merges.
  EXPECT_EQ(sorted_by(5, false), (std::tuple{std::uint64_t(0), std::uint64_t(2), 2u}));
  // prepare on one worker compiles both stages, so a launch there compiles nothing.
  EXPECT_EQ(sorted_by(1, true), (std::tuple{std::uint64_t(2), std::uint64_t(2), 1u}));

  // Segments no longer than a part's least length (32768) split nowhere.
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"sort_short", {sort<i64>("x")}, ""});
  Field x = runtime.allocate<i64>({2, 32768});
  EXPECT_TRUE(kernel.prepare(Domain{2, 32768}, x).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

// A CPU part with a built-in order of integer, bool or real keys sorts by radix;
// custom orders by merges (the first stage's stub).
TEST(SortStubs, BuiltInOrdersSortPartsByRadixOthersByMerges) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto runs_call = [&](Param keys, ElementType type) {
    Kernel kernel = runtime.kernel({"sort_stage", {std::move(keys)}, ""});
    Field x = runtime.allocate(type, {64});
    const std::string source = kernel.stub_source(Domain{64}, {x});
    const bool radix = source.find("stubjit::radix_sort_run(") != std::string::npos;
    const bool merges = source.find("stubjit::sort_run(") != std::string::npos;
    EXPECT_NE(radix, merges) << source;
    return radix ? "radix" : "merges";
  };
  EXPECT_STREQ(runs_call(sort<float>("x"), ElementType::f32), "radix");
  EXPECT_STREQ(runs_call(sort<double>("x", SortOrder::descending), ElementType::f64), "radix");
  EXPECT_STREQ(runs_call(sort<std::int16_t>("x"), ElementType::i16), "radix");
  EXPECT_STREQ(runs_call(sort<bool>("x"), ElementType::boolean), "radix");
  EXPECT_STREQ(runs_call(sort<float16>("x"), ElementType::float16), "radix");
  EXPECT_STREQ(runs_call(sort<bfloat16>("x", SortOrder::descending), ElementType::bfloat16),
               "radix");
  EXPECT_STREQ(runs_call(sort<float>("x", "b < a"), ElementType::f32), "merges");
  EXPECT_STREQ(runs_call(sort<std::int64_t>("x", "a % 7 < b % 7"), ElementType::i64), "merges");
}

}  // namespace
}  // namespace stubjit
