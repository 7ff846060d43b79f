// Scan kernels (scan<T>) on the CPU backend, each against a prefix computed on the host
// without the library: inclusive and exclusive scans with every built-in combiner over
// the element types it takes, custom combiners, ranks 1 to 8 along each dimension,
// pencils split into parts (the two-stage launch), scans in place and from other
// fields, strided, Fortran-order and sub-box domains, empty and one-element domains,
// masks, bit-identical float scans across runs, every error (nothing written when a
// launch is refused), the caches and prepare.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/expect_refused.hpp"
#include "common/half_reference.hpp"
#include "common/kernels.hpp"
#include "common/scan_reference.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// Pencils longer than this are split into parts on the CPU (docs/patterns.md: 32768
// values a part at least).
constexpr i64 split_length = 100000;

// --- host references ---------------------------------------------------------------------

// The prefix of a rank-1 `values` (common/scan_reference.hpp).
template <class T, class Combine>
std::vector<T> host_prefix(const std::vector<T>& values, ScanKind kind, T identity,
                           Combine combine) {
  return test::host_scan(values, {i64(values.size())}, 0, kind, identity, combine);
}

// The prefix along `along` of a row-major array over `counts`, pencil by pencil.
template <class T, class Combine>
std::vector<T> host_prefix_along(const std::vector<T>& values, const std::vector<i64>& counts,
                                 int along, ScanKind kind, T identity, Combine combine) {
  return test::host_scan(values, counts, along, kind, identity, combine);
}

// Integers of a fixed pseudo-random sequence, in the whole range of T.
template <class T>
std::vector<T> random_ints(std::size_t n, u64 seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(rng());
  return values;
}

// Wrapping integer arithmetic, as the scan's (two's complement, in the unsigned type).
template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<u64>(static_cast<U>(a)) * static_cast<U>(b)));
}

const ScanKind both_kinds[] = {ScanKind::inclusive, ScanKind::exclusive};

std::string kind_name(ScanKind kind) { return name_of(kind); }

// A scan kernel of T with `combiner` whose body reads `x`: y = x.
template <class T>
KernelSource copy_scan(const std::string& name, Combiner combiner, ScanKind kind) {
  return {name, {in<T>("x"), scan<T>("y", combiner, kind)}, "y = x;"};
}

// Runs copy_scan of `values` (rank 1) and returns y; `split` expects the launch to split.
template <class T>
std::vector<T> run_scan(Runtime& runtime, const KernelSource& source, const std::vector<T>& values,
                        bool split) {
  Kernel kernel = runtime.kernel(source);
  const i64 n = i64(values.size());
  Field x = runtime.allocate<T>({n});
  Field y = runtime.allocate<T>({n});
  x.copy_from(values);
  const LaunchSummary summary = kernel.launch(Domain{n}, x, y);
  EXPECT_EQ(summary.reduce_parts > 1, split) << source.name << ": " << summary.reduce_parts;
  EXPECT_EQ(x.to_vector<T>(), values) << "the input changed";
  return y.to_vector<T>();
}

// --- combiners and element types ----------------------------------------------------------

template <class T>
void check_integer_combiners(Runtime& runtime, const std::string& type) {
  const std::vector<T> values = random_ints<T>(std::size_t(split_length), 7);
  struct Case {
    Combiner combiner;
    T identity;
    std::function<T(T, T)> combine;
  };
  const Case cases[] = {
      {Combiner::sum, T(0), wrap_add<T>},
      {Combiner::min, std::numeric_limits<T>::max(), [](T a, T b) { return b < a ? b : a; }},
      {Combiner::max, std::numeric_limits<T>::lowest(), [](T a, T b) { return a < b ? b : a; }},
      {Combiner::bit_xor, T(0), [](T a, T b) { return T(a ^ b); }},
      {Combiner::bit_or, T(0), [](T a, T b) { return T(a | b); }},
      {Combiner::bit_and, T(~T(0)), [](T a, T b) { return T(a & b); }},
  };
  for (const Case& c : cases) {
    for (const ScanKind kind : both_kinds) {
      // bit_or and bit_and saturate after a few values: scan values that rarely set
      // (or clear) a bit, so that every prefix differs from its neighbours'.
      std::vector<T> input = values;
      if (c.combiner == Combiner::bit_or)
        for (std::size_t k = 0; k < input.size(); ++k) input[k] = k % 4096 == 0 ? input[k] : T(0);
      if (c.combiner == Combiner::bit_and)
        for (std::size_t k = 0; k < input.size(); ++k)
          input[k] = k % 4096 == 0 ? input[k] : T(~T(0));
      const std::string name = "scan_" + type + "_" + name_of(c.combiner) + "_" + kind_name(kind);
      const std::vector<T> got =
          run_scan(runtime, copy_scan<T>(name, c.combiner, kind), input, true);
      EXPECT_EQ(got, host_prefix(input, kind, c.identity, c.combine)) << name;
    }
  }
  // Products: odd values, so that no prefix becomes 0; a pencil of its own.
  std::vector<T> odd = values;
  for (T& v : odd) v = T(v | T(1));
  for (const ScanKind kind : both_kinds) {
    const std::string name = "scan_" + type + "_product_" + kind_name(kind);
    EXPECT_EQ(run_scan(runtime, copy_scan<T>(name, Combiner::product, kind), odd, true),
              host_prefix(odd, kind, T(1), wrap_mul<T>))
        << name;
  }
}

TEST(ScanCombiners, EveryIntegerCombinerInclusiveAndExclusiveInParts) {
  Runtime runtime(test::cpu_memory_only_options());
  check_integer_combiners<std::int8_t>(runtime, "i8");
  check_integer_combiners<std::uint16_t>(runtime, "u16");
  check_integer_combiners<std::int32_t>(runtime, "i32");
  check_integer_combiners<std::uint32_t>(runtime, "u32");
  check_integer_combiners<std::int64_t>(runtime, "i64");
  check_integer_combiners<std::uint64_t>(runtime, "u64");
}

TEST(ScanCombiners, AnyAndAllOfBoolsAndTheirFirstChange) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::size_t n = std::size_t(split_length);
  for (const ScanKind kind : both_kinds) {
    // One true (any) or one false (all), late in the pencil: the prefix flips there.
    std::vector<bool> ones(n, false), zeros(n, true);
    ones[n * 3 / 4] = true;
    zeros[n / 3] = false;
    const std::vector<bool> any = run_scan(
        runtime, copy_scan<bool>("scan_any_" + kind_name(kind), Combiner::any, kind), ones, true);
    const std::vector<bool> all = run_scan(
        runtime, copy_scan<bool>("scan_all_" + kind_name(kind), Combiner::all, kind), zeros, true);
    EXPECT_EQ(any, host_prefix<bool>(ones, kind, false, [](bool a, bool b) { return a || b; }));
    EXPECT_EQ(all, host_prefix<bool>(zeros, kind, true, [](bool a, bool b) { return a && b; }));
  }
}

// Float sums: each prefix within a bound on its rounding that no order of combination
// exceeds (a loose one: the exact checks are the integer and complex ones).
template <class T>
void check_float_sums(Runtime& runtime, const std::string& type) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.5, 1.5);
  std::vector<T> values(static_cast<std::size_t>(split_length));
  for (T& v : values) v = T(rng() % 2 ? unit(rng) : -unit(rng));
  for (const ScanKind kind : both_kinds) {
    const std::vector<T> got = run_scan(
        runtime, copy_scan<T>("scan_" + type + "_sum_" + kind_name(kind), Combiner::sum, kind),
        values, true);
    long double running = 0, magnitude = 0;
    const long double eps = std::numeric_limits<T>::epsilon();
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (kind == ScanKind::inclusive) {
        running += values[k];
        magnitude += std::abs(static_cast<long double>(values[k]));
      }
      const long double bound = (long double)(k + 8) * eps * magnitude + 1e-30L;
      if (std::abs(static_cast<long double>(got[k]) - running) > bound) {
        ADD_FAILURE() << type << " " << kind_name(kind) << " prefix " << k << ": " << got[k]
                      << ", the host's " << double(running);
        break;
      }
      if (kind == ScanKind::exclusive) {
        running += values[k];
        magnitude += std::abs(static_cast<long double>(values[k]));
      }
    }
  }
}

TEST(ScanCombiners, FloatAndDoubleSumsNearTheHostsEveryPrefix) {
  Runtime runtime(test::cpu_memory_only_options());
  check_float_sums<float>(runtime, "f32");
  check_float_sums<double>(runtime, "f64");
}

TEST(ScanCombiners, MinAndMaxOfDoublesAreExact) {
  Runtime runtime(test::cpu_memory_only_options());
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> spread(-1e6, 1e6);
  std::vector<double> values(static_cast<std::size_t>(split_length));
  for (double& v : values) v = spread(rng);
  for (const ScanKind kind : both_kinds) {
    EXPECT_EQ(
        run_scan(runtime, copy_scan<double>("scan_min_" + kind_name(kind), Combiner::min, kind),
                 values, true),
        host_prefix(values, kind, std::numeric_limits<double>::infinity(),
                    [](double a, double b) { return b < a ? b : a; }));
    EXPECT_EQ(
        run_scan(runtime, copy_scan<double>("scan_max_" + kind_name(kind), Combiner::max, kind),
                 values, true),
        host_prefix(values, kind, -std::numeric_limits<double>::infinity(),
                    [](double a, double b) { return a < b ? b : a; }));
  }
}

TEST(ScanCombiners, ComplexSumsOfSmallIntegersAreExact) {
  Runtime runtime(test::cpu_memory_only_options());
  std::mt19937_64 rng(3);
  std::vector<std::complex<double>> values(static_cast<std::size_t>(split_length));
  for (auto& v : values) v = {double(i64(rng() % 9) - 4), double(i64(rng() % 7) - 3)};
  for (const ScanKind kind : both_kinds) {
    EXPECT_EQ(run_scan(runtime,
                       copy_scan<std::complex<double>>("scan_complex_" + kind_name(kind),
                                                       Combiner::sum, kind),
                       values, true),
              host_prefix(values, kind, std::complex<double>(0),
                          [](std::complex<double> a, std::complex<double> b) { return a + b; }));
  }
}

// float16, bfloat16 and complex<float> sums of small integers, exact in every order:
// each prefix compared with the host's as numbers (the small floats by their codes).
TEST(ScanCombiners, SmallFloatAndComplexFloatSumsAreExact) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::size_t n = 3000;
  // +1, -1, +2, -2, ...: every prefix is 0, 1 or 2, exact in both formats.
  std::vector<double> steps(n);
  for (std::size_t k = 0; k < n; ++k) steps[k] = (k % 2 ? -1.0 : 1.0) * double(1 + (k / 2) % 2);
  std::vector<double> want(n);
  double running = 0;
  for (std::size_t k = 0; k < n; ++k) want[k] = running += steps[k];
  const auto check = [&](auto zero, const std::string& name, auto to_value, auto from_value) {
    using T = decltype(zero);
    std::vector<T> values(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = from_value(steps[k]);
    const std::vector<T> got =
        run_scan(runtime, copy_scan<T>(name, Combiner::sum, ScanKind::inclusive), values, false);
    for (std::size_t k = 0; k < n; ++k) {
      if (to_value(got[k]) != want[k]) {
        ADD_FAILURE() << name << " prefix " << k << ": " << to_value(got[k]) << ", not " << want[k];
        return;
      }
    }
  };
  // The small floats from and to their codes (half_reference.hpp), never through the
  // library's conversions.
  check(
      float16{}, "scan_f16",
      [](float16 v) { return test::value_of_code(test::binary16_format, v.bits()); },
      [](double v) { return float16::from_bits(test::nearest_code(test::binary16_format, v)); });
  check(
      bfloat16{}, "scan_bf16",
      [](bfloat16 v) { return test::value_of_code(test::bfloat16_format, v.bits()); },
      [](double v) { return bfloat16::from_bits(test::nearest_code(test::bfloat16_format, v)); });
  check(
      std::complex<float>{}, "scan_c32",
      [](std::complex<float> v) { return v.imag() == -v.real() ? double(v.real()) : 1e300; },
      [](double v) { return std::complex<float>(float(v), float(-v)); });
}

TEST(ScanCombiners, CustomCombinerWithItsIdentity) {
  Runtime runtime(test::cpu_memory_only_options());
  // The running maximum of absolute values, from a custom expression.
  const std::vector<i64> values = random_ints<i64>(std::size_t(split_length), 21);
  std::vector<i64> small(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) small[k] = values[k] % 1000000;
  for (const ScanKind kind : both_kinds) {
    const KernelSource source{"scan_custom_" + kind_name(kind),
                              {in<i64>("x"), scan<i64>("y", "a > b ? a : b", "-1", kind)},
                              "y = x < 0 ? -x : x;"};
    std::vector<i64> magnitudes(small.size());
    for (std::size_t k = 0; k < small.size(); ++k)
      magnitudes[k] = small[k] < 0 ? -small[k] : small[k];
    EXPECT_EQ(run_scan(runtime, source, small, true),
              host_prefix<i64>(magnitudes, kind, -1, [](i64 a, i64 b) { return a > b ? a : b; }));
  }
}

// --- ranks, dimensions, domains --------------------------------------------------------------

// Values of every index of a row-major box: a hash of the position.
std::vector<i64> hashed(std::size_t n) {
  std::vector<i64> values(n);
  for (std::size_t k = 0; k < n; ++k) values[k] = i64((k * 0x9e3779b97f4a7c15ull) >> 40);
  return values;
}

TEST(ScanRanks, Ranks1To8AlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel({"scan_rank", {in<i64>("x"), scan<i64>("y", Combiner::sum)}, "y = x;"});
  Kernel exclusive =
      runtime.kernel({"scan_rank_ex",
                      {in<i64>("x"), scan<i64>("y", Combiner::sum, ScanKind::exclusive)},
                      "y = x;"});
  for (int rank = 1; rank <= 8; ++rank) {
    std::vector<i64> counts;
    for (int d = 0; d < rank; ++d) counts.push_back(rank <= 3 ? 5 + d : 2 + d % 2);
    std::size_t n = 1;
    for (const i64 c : counts) n *= std::size_t(c);
    std::vector<Dim> dims;
    for (const i64 c : counts) dims.push_back(Dim{0, c, 1});
    const Domain domain(dims);
    const std::vector<i64> values = hashed(n);
    Field x = runtime.allocate<i64>(counts);
    Field y = runtime.allocate<i64>(counts);
    x.copy_from(values);
    for (int along = -1; along < rank; ++along) {
      for (const ScanKind kind : both_kinds) {
        LaunchOptions options;
        options.reduce_dimension = along;
        (kind == ScanKind::inclusive ? kernel : exclusive).launch(options, domain, x, y);
        EXPECT_EQ(y.to_vector<i64>(),
                  host_prefix_along<i64>(values, counts, along < 0 ? rank - 1 : along, kind, 0,
                                         wrap_add<i64>))
            << "rank " << rank << " along " << along << " " << kind_name(kind);
      }
    }
  }
}

TEST(ScanRanks, ManyPencilsSplitAndNotAlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel({"scan_pencils", {in<i64>("x"), scan<i64>("y", Combiner::sum)}, "y = x;"});
  // Two long dimensions and a short one: along a long one, 3 * 70000 pencils... too
  // many to split; 3 pencils of 70000 (split into parts) along the other.
  const std::vector<i64> counts{3, 70000};
  const std::vector<i64> values = hashed(3 * 70000);
  Field x = runtime.allocate<i64>(counts);
  Field y = runtime.allocate<i64>(counts);
  x.copy_from(values);
  for (int along = 0; along < 2; ++along) {
    LaunchOptions options;
    options.reduce_dimension = along;
    const LaunchSummary summary = kernel.launch(options, Domain{3, 70000}, x, y);
    EXPECT_EQ(summary.reduce_parts > 1, along == 1) << summary.reduce_parts;
    EXPECT_EQ(y.to_vector<i64>(),
              host_prefix_along<i64>(values, counts, along, ScanKind::inclusive, 0, wrap_add<i64>))
        << "along " << along;
  }
}

TEST(ScanDomains, InPlaceWithAnEmptyBodyInclusiveAndExclusive) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<i64> values = hashed(std::size_t(split_length));
  for (const ScanKind kind : both_kinds) {
    Kernel kernel = runtime.kernel(
        {"scan_in_place_" + kind_name(kind), {scan<i64>("y", Combiner::sum, kind)}, ""});
    Field y = runtime.allocate<i64>({split_length});
    y.copy_from(values);
    EXPECT_GT(kernel.launch(Domain{split_length}, y).reduce_parts, 1u);
    EXPECT_EQ(y.to_vector<i64>(), host_prefix<i64>(values, kind, 0, wrap_add<i64>));
  }
}

TEST(ScanDomains, StridedSubBoxOfALargerFieldLeavesTheRest) {
  Runtime runtime(test::cpu_memory_only_options());
  // y(i) for i = 3, 5, ..., 3 + 2 * (n - 1): the value x(i) * i, scanned with the index.
  Kernel kernel = runtime.kernel(
      {"scan_strided", {index("i"), in<i64>("x"), scan<i64>("y", Combiner::sum)}, "y = x * i[0];"});
  const i64 n = 50000, extent = 3 + 2 * n + 7;
  const std::vector<i64> values = hashed(std::size_t(extent));
  Field x = runtime.allocate<i64>({extent});
  Field y = runtime.allocate<i64>({extent});
  x.copy_from(values);
  y.copy_from(std::vector<i64>(std::size_t(extent), -5));
  EXPECT_GT(kernel.launch(Domain(std::vector<Dim>{Dim{3, n, 2}}), x, y).reduce_parts, 1u);
  std::vector<i64> want(std::size_t(extent), -5);
  i64 running = 0;
  for (i64 k = 0; k < n; ++k) {
    const i64 i = 3 + 2 * k;
    running = wrap_add<i64>(running, wrap_mul<i64>(values[std::size_t(i)], i));
    want[std::size_t(i)] = running;
  }
  EXPECT_EQ(y.to_vector<i64>(), want);
}

TEST(ScanDomains, FortranOrderAlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel({"scan_fortran", {in<i64>("x"), scan<i64>("y", Combiner::sum)}, "y = x;"});
  // A column-major 4 x 6 x 5 array: the Fortran-order domain's dimension d is the
  // array's dimension d.
  const std::vector<i64> extents{4, 6, 5};
  const std::vector<i64> values = hashed(4 * 6 * 5);  // column-major storage
  Field x = runtime.allocate<i64>(extents, Layout::column_major);
  Field y = runtime.allocate<i64>(extents, Layout::column_major);
  x.copy_from(values);
  // Column-major storage over (4, 6, 5) is row-major storage over (5, 6, 4): dimension d
  // of the Fortran domain is dimension 2 - d there.
  const std::vector<i64> reversed{5, 6, 4};
  for (int along = 0; along < 3; ++along) {
    LaunchOptions options;
    options.reduce_dimension = along;
    kernel.launch(options, Domain({Dim{0, 4, 1}, Dim{0, 6, 1}, Dim{0, 5, 1}}, Order::fortran), x,
                  y);
    EXPECT_EQ(y.to_vector<i64>(), host_prefix_along<i64>(values, reversed, 2 - along,
                                                         ScanKind::inclusive, 0, wrap_add<i64>))
        << "along " << along;
  }
}

TEST(ScanDomains, EmptyDomainsWriteNothingAndOneElementDomainsTheirValueOrIdentity) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel inclusive =
      runtime.kernel(copy_scan<i64>("scan_one_in", Combiner::product, ScanKind::inclusive));
  Kernel exclusive =
      runtime.kernel(copy_scan<i64>("scan_one_ex", Combiner::product, ScanKind::exclusive));
  Field x = runtime.allocate<i64>({4, 3});
  Field y = runtime.allocate<i64>({4, 3});
  x.copy_from(hashed(12));
  const std::vector<i64> untouched(12, 77);
  for (Kernel* kernel : {&inclusive, &exclusive}) {
    y.copy_from(untouched);
    for (const Domain& empty : {Domain{0, 3}, Domain{4, 0}}) {
      for (int along : {0, 1}) {
        LaunchOptions options;
        options.reduce_dimension = along;
        EXPECT_EQ(kernel->launch(options, empty, x, y).dispatches, 0u);
        EXPECT_EQ(y.to_vector<i64>(), untouched);
      }
    }
  }
  // Pencils of one element: the value itself, or the identity (1).
  inclusive.launch(Domain{4, 1}, x, y);
  LaunchOptions down;
  down.reduce_dimension = 0;
  exclusive.launch(down, Domain{1, 3}, x, y);
  const std::vector<i64> xs = hashed(12);
  std::vector<i64> want = untouched;
  for (int r = 0; r < 4; ++r) want[std::size_t(r * 3)] = xs[std::size_t(r * 3)];
  for (int c = 0; c < 3; ++c) want[std::size_t(c)] = 1;
  EXPECT_EQ(y.to_vector<i64>(), want);
}

TEST(ScanDomains, MaskedIndicesKeepTheirElementAsTheirValue) {
  Runtime runtime(test::cpu_memory_only_options());
  // Where the mask is 0 the body does not run: the index contributes its element of y
  // as it was, and still receives its prefix.
  Kernel kernel =
      runtime.kernel({"scan_masked",
                      {mask<std::int32_t>("keep"), in<i64>("x"), scan<i64>("y", Combiner::sum)},
                      "y = x;"});
  const i64 n = split_length;  // split into parts: both stages skip the same indices
  std::vector<std::int32_t> keep(static_cast<std::size_t>(n));
  const std::vector<i64> xs = hashed(static_cast<std::size_t>(n));
  std::vector<i64> ys(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) {
    keep[std::size_t(k)] = k % 3 != 0;
    ys[std::size_t(k)] = 1000 + k;
  }
  Field m = runtime.allocate<std::int32_t>({n});
  Field x = runtime.allocate<i64>({n});
  Field y = runtime.allocate<i64>({n});
  m.copy_from(keep);
  x.copy_from(xs);
  y.copy_from(ys);
  EXPECT_GT(kernel.launch(Domain{n}, m, x, y).reduce_parts, 1u);
  std::vector<i64> contributed(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < std::size_t(n); ++k) contributed[k] = keep[k] ? xs[k] : ys[k];
  EXPECT_EQ(y.to_vector<i64>(),
            host_prefix<i64>(contributed, ScanKind::inclusive, 0, wrap_add<i64>));
}

TEST(ScanDeterminism, FloatScansAreTheSameBitsEveryRun) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(copy_scan<float>("scan_bits", Combiner::sum, ScanKind::inclusive));
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const i64 n = 1 << 20;
  std::vector<float> values(static_cast<std::size_t>(n));
  for (float& v : values) v = unit(rng);
  Field x = runtime.allocate<float>({n});
  Field y = runtime.allocate<float>({n});
  x.copy_from(values);
  EXPECT_GT(kernel.launch(Domain{n}, x, y).reduce_parts, 1u);
  const std::vector<float> first = y.to_vector<float>();
  for (int run = 0; run < 3; ++run) {
    y.copy_from(std::vector<float>(std::size_t(n), 0.0f));
    kernel.launch(Domain{n}, x, y);
    const std::vector<float> again = y.to_vector<float>();
    EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0)
        << "run " << run;
  }
}

// A long float pencil: each group's walk combines blocks from the identity and adds
// them to its carry, so every prefix stays near the exact one where one running float
// sum (std::inclusive_scan's order) drifts far from it once the sum dwarfs the values.
TEST(ScanAccuracy, LongFloatSumsStayNearTheExactPrefixes) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(copy_scan<float>("scan_long", Combiner::sum, ScanKind::inclusive));
  const i64 n = i64(1) << 22;
  std::vector<float> values(static_cast<std::size_t>(n));
  // Near 0.3: once a running float sum passes 2^20 or so, adding one rounds the same
  // way each time, and its error grows with every value.
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = 0.3f + float(k % 7) * 0.001f;
  Field x = runtime.allocate<float>({n});
  Field y = runtime.allocate<float>({n});
  x.copy_from(values);
  kernel.launch(Domain{n}, x, y);
  const std::vector<float> got = y.to_vector<float>();
  double exact = 0, worst = 0, worst_sequential = 0;
  float sequential = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    exact += double(values[k]);
    sequential += values[k];
    if (exact > 0) {
      worst = std::max(worst, std::abs(double(got[k]) - exact) / exact);
      worst_sequential = std::max(worst_sequential, std::abs(double(sequential) - exact) / exact);
    }
  }
  EXPECT_LT(worst, 1e-5);
  EXPECT_GT(worst_sequential, 1e-3) << "the data no longer shows the drift";
}

// --- errors ---------------------------------------------------------------------------------

using test::expect_refused;

TEST(ScanErrors, LaunchesThatCannotRunAreRefusedAndWriteNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel(copy_scan<double>("scan_refused", Combiner::sum, ScanKind::inclusive));
  Field x = runtime.allocate<double>({8, 4});
  Field y = runtime.allocate<double>({8, 4});
  Field y1 = runtime.allocate<double>({32});
  Field yf = runtime.allocate<float>({8, 4});
  x.copy_from(std::vector<double>(32, 1.0));
  const std::vector<double> untouched(32, 9.0);
  y.copy_from(untouched);
  y1.copy_from(untouched);
  LaunchOptions bad;
  bad.reduce_dimension = 2;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(bad, Domain{8, 4}, x, y);
                                },
                                {"scans dimension 2 of a rank-2"});
  bad.reduce_dimension = -2;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(bad, Domain{8, 4}, x, y);
                                },
                                {"scans dimension -2"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 4}, x, y1);
                                },
                                {"a field of the domain's rank (2)"});
  expect_refused<ArgumentError>(runtime, [&] { kernel.launch(Domain{8, 4}, x, yf); }, {"'y'"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 5}, x, y);
                                },
                                {"outside the field's extent"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  (void)kernel.reduce<double>(Domain{8, 4}, x);
                                },
                                {"a scan kernel"});
  const std::vector<double> constant(32, -8.0);
  Field read_only = runtime.wrap(constant.data(), {8, 4});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  kernel.launch(Domain{8, 4}, x, read_only);
                                },
                                {"got a read-only field"});
  EXPECT_EQ(constant, std::vector<double>(32, -8.0));
  EXPECT_EQ(y.to_vector<double>(), untouched);
  EXPECT_EQ(y1.to_vector<double>(), untouched);
}

TEST(ScanErrors, SignaturesThatCannotScanAreRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto refused = [&](Signature signature, const std::string& part) {
    try {
      runtime.kernel({"bad_scan", std::move(signature), ""});
      ADD_FAILURE() << "not refused: " << part;
    } catch (const SignatureError& error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    }
  };
  refused({scan<bool>("y", Combiner::sum)}, "does not take them");
  refused({scan<double>("y", Combiner::bit_xor)}, "does not take them");
  refused({scan<double>("y", Combiner::sum), result<double>("v", Combiner::sum)},
          "a reduce or scan kernel has one");
  refused({scan<double>("y", Combiner::custom)}, "needs a combine expression");
  Param ranked = scan<double>("y", Combiner::sum);
  ranked.rank = 1;
  refused({ranked}, "a scan's parameter has rank 0");
  Param no_combiner = inout<double>("y");
  no_combiner.scan = ScanKind::inclusive;
  refused({no_combiner}, "a scan without a combiner");
  Param unknown = scan<double>("y", Combiner::sum);
  unknown.scan = static_cast<ScanKind>(9);
  refused({unknown}, "which is no ScanKind");
  refused({group("g"), scan<double>("y", Combiner::sum)}, "not both");
  // The body of a split scan runs once per stage: no other field it could write.
  refused({inout<double>("z"), scan<double>("y", Combiner::sum)},
          "its only read-write parameter is its scan ('y')");
  refused({scan<double>("y", Combiner::sum), inout<double>("z", 1)}, "may run twice per index");
}

TEST(ScanErrors, ACombinerThatDoesNotCompileIsACompileErrorAndWritesNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"bad_scan_combine",
                                  {in<double>("x"), scan<double>("y", "a + not_declared(b)", "0")},
                                  "y = x;"});
  Field x = runtime.allocate<double>({16});
  Field y = runtime.allocate<double>({16});
  x.copy_from(std::vector<double>(16, 1.0));
  y.copy_from(std::vector<double>(16, 4.0));
  try {
    kernel.launch(Domain{16}, x, y);
    ADD_FAILURE() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("bad_scan_combine.combine:1:"), std::string::npos) << error.log();
  }
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(16, 4.0));
  EXPECT_EQ(runtime.counters().launches, 0u);
}

// --- caches and prepare ------------------------------------------------------------------------

TEST(ScanCache, BothStagesComeFromMemoryThenFromDisk) {
  const test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);
  const test::TempDir dir;
  RuntimeOptions options = test::cpu_options();
  options.cache_dir = dir.path();
  const std::vector<i64> values = hashed(std::size_t(split_length));
  const std::vector<i64> want = host_prefix<i64>(values, ScanKind::inclusive, 0, wrap_add<i64>);
  const auto run = [&](Runtime& runtime) {
    Kernel kernel =
        runtime.kernel(copy_scan<i64>("scan_cached", Combiner::sum, ScanKind::inclusive));
    Field x = runtime.allocate<i64>({split_length});
    Field y = runtime.allocate<i64>({split_length});
    x.copy_from(values);
    const LaunchSummary first = kernel.launch(Domain{split_length}, x, y);
    EXPECT_GT(first.reduce_parts, 1u);  // two stages
    EXPECT_FALSE(kernel.launch(Domain{split_length}, x, y).compiled);
    EXPECT_EQ(y.to_vector<i64>(), want);
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

TEST(ScanPrepare, PrepareCompilesBothStagesAndTheLaunchNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel(copy_scan<i64>("scan_prepared", Combiner::max, ScanKind::exclusive));
  Field x = runtime.allocate<i64>({split_length});
  Field y = runtime.allocate<i64>({split_length});
  const std::vector<i64> values = hashed(std::size_t(split_length));
  x.copy_from(values);
  const LaunchSummary prepared = kernel.prepare(Domain{split_length}, x, y);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_GT(prepared.reduce_parts, 1u);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(runtime.counters().launches, 0u);
  const LaunchSummary launched = kernel.launch(Domain{split_length}, x, y);
  EXPECT_FALSE(launched.compiled);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(y.to_vector<i64>(),
            host_prefix<i64>(values, ScanKind::exclusive, std::numeric_limits<i64>::lowest(),
                             [](i64 a, i64 b) { return a < b ? b : a; }));
  const std::string source = kernel.stub_source(Domain{split_length}, {x, y});
  EXPECT_NE(source.find(", scan along dimension 0, rank 1"), std::string::npos) << source;
}

}  // namespace
}  // namespace stubjit
