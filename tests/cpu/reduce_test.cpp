// Reduce kernels (result<T>) on the CPU backend, each against a computation on the
// host that never asks the library: every combiner with every element type it takes
// (and a SignatureError for every one it does not), ranks 1 to 8 over the whole domain
// and along each dimension, strided and Fortran-order domains, C += A*B, empty and
// one-element domains, segments split into parts, more than 2^31 indices, masks and
// filters, custom combiners, every error (nothing written when a launch is refused),
// the caches, and prepare / stub_source / plan / binary.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/expect_refused.hpp"
#include "common/half_reference.hpp"
#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// --- host references ------------------------------------------------------------------

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = is_complex<T>::value;
template <class T>
constexpr bool is_small_float_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <class T>
constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !is_bool_v<T>;

const Combiner builtin_combiners[] = {Combiner::sum,     Combiner::product, Combiner::min,
                                      Combiner::max,     Combiner::bit_and, Combiner::bit_or,
                                      Combiner::bit_xor, Combiner::any,     Combiner::all};

// Which built-in combiners take which element types, as signature.hpp documents them.
template <class T>
bool documented_takes(Combiner combiner) {
  switch (combiner) {
    case Combiner::sum:
    case Combiner::product:
      return !is_bool_v<T>;
    case Combiner::min:
    case Combiner::max:
      return !is_bool_v<T> && !is_complex_v<T>;
    case Combiner::bit_and:
    case Combiner::bit_or:
    case Combiner::bit_xor:
      return is_int_v<T> || is_bool_v<T>;
    case Combiner::any:
    case Combiner::all:
      return is_bool_v<T>;
    default:
      return false;
  }
}

// Small floats from and to their codes (half_reference.hpp), never through the
// library's conversions.
template <class T>
const test::SmallFloatFormat& format_of() {
  return std::is_same_v<T, float16> ? test::binary16_format : test::bfloat16_format;
}
template <class T>
T small_float(double value) {
  return T::from_bits(test::nearest_code(format_of<T>(), value));
}
template <class T>
double value_of(T value) {
  return test::value_of_code(format_of<T>(), value.bits());
}

template <class T>
std::vector<unsigned char> bits_of(const T& value) {
  std::vector<unsigned char> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

// Integers printed as numbers (not characters) by the expectations.
template <class T>
auto printable(T value) {
  if constexpr (is_bool_v<T>)
    return value;
  else if constexpr (std::is_signed_v<T>)
    return static_cast<long long>(value);
  else
    return static_cast<unsigned long long>(value);
}

// Values for `combiner` that make a wrong result visible: a missing, doubled or
// misplaced element changes the result by far more than a float's rounding.
template <class T>
std::vector<T> values_for(Combiner combiner, std::size_t n, std::mt19937_64& rng) {
  std::vector<T> values;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto sign = [&] { return rng() % 2 ? -1.0 : 1.0; };
  for (std::size_t k = 0; k < n; ++k) {
    if constexpr (is_bool_v<T>) {
      if (combiner == Combiner::bit_xor)
        values.push_back(rng() % 2 == 1);
      else if (combiner == Combiner::all || combiner == Combiner::bit_and)
        values.push_back(k != n / 3);  // one false
      else
        values.push_back(k == n * 3 / 4);  // one true
    } else if constexpr (is_int_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U ones = std::numeric_limits<U>::max();
      const U random = static_cast<U>(rng());
      U value = random;  // sums wrap, min and max span the range, xor
      if (combiner == Combiner::product) value = static_cast<U>(random | 1u);  // odd: never 0
      if (combiner == Combiner::bit_and) {
        // Never the sign bit: the result keeps it, as the identity must.
        const int bits[] = {1, 2, int(8 * sizeof(T)) - 2};
        value = rng() % 4 == 0 ? static_cast<U>(ones ^ (U(1) << bits[rng() % 3])) : ones;
      }
      if (combiner == Combiner::bit_or) value = static_cast<U>(random & U(0x5a5a5a5a5a5a5a5aull));
      values.push_back(static_cast<T>(value));
    } else if constexpr (is_small_float_v<T>) {
      // Exact in both formats, whatever the order of combination.
      double value = 0;
      if (combiner == Combiner::sum) value = sign() * double(1 + rng() % 2);
      if (combiner == Combiner::product) value = k % 10 == 0 ? (k % 20 == 0 ? 2.0 : 0.5) : -1.0;
      if (combiner == Combiner::min || combiner == Combiner::max)
        value = double(i64(rng() % 101) - 50);
      values.push_back(small_float<T>(value));
    } else if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      if (combiner == Combiner::product) {
        values.push_back(std::polar(R(1), R(sign() * (0.1 + 0.1 * unit(rng)))));
      } else {
        values.push_back(T(R(sign() * (0.5 + unit(rng))), R(sign() * (0.5 + unit(rng)))));
      }
    } else {
      if (combiner == Combiner::sum) values.push_back(T(sign() * (0.5 + unit(rng))));
      if (combiner == Combiner::product)
        values.push_back(T(rng() % 2 ? 0.9 + 0.05 * unit(rng) : 1.05 + 0.05 * unit(rng)));
      if (combiner == Combiner::min || combiner == Combiner::max)
        values.push_back(T(200.0 * unit(rng) - 100.0));
    }
  }
  return values;
}

// The exact reduction of integers and bools: sums and products wrap.
template <class T>
T host_exact(Combiner combiner, const std::vector<T>& values) {
  if constexpr (is_bool_v<T>) {
    bool acc = combiner == Combiner::all || combiner == Combiner::bit_and;
    for (const bool x : values) {
      if (combiner == Combiner::all || combiner == Combiner::bit_and) acc = acc && x;
      if (combiner == Combiner::any || combiner == Combiner::bit_or) acc = acc || x;
      if (combiner == Combiner::bit_xor) acc = acc != x;
    }
    return acc;
  } else {
    using U = std::make_unsigned_t<T>;
    if (combiner == Combiner::min) {
      T acc = std::numeric_limits<T>::max();
      for (const T x : values) acc = x < acc ? x : acc;
      return acc;
    }
    if (combiner == Combiner::max) {
      T acc = std::numeric_limits<T>::lowest();
      for (const T x : values) acc = x > acc ? x : acc;
      return acc;
    }
    u64 acc = combiner == Combiner::product ? 1 : combiner == Combiner::bit_and ? ~u64(0) : 0;
    for (const T x : values) {
      const u64 v = static_cast<U>(x);
      if (combiner == Combiner::sum) acc += v;
      if (combiner == Combiner::product) acc *= v;
      if (combiner == Combiner::bit_and) acc &= v;
      if (combiner == Combiner::bit_or) acc |= v;
      if (combiner == Combiner::bit_xor) acc ^= v;
    }
    return static_cast<T>(static_cast<U>(acc));
  }
}

// Expects `got` to be the reduction of `values` with `combiner`: exact for integers,
// bools, small floats (values exact by construction), min and max; sums and products
// of floats within a bound on their rounding that no order of combination exceeds.
template <class T>
void expect_reduced(Combiner combiner, const std::vector<T>& values, const T& got,
                    const std::string& what) {
  const double n = double(values.size());
  if constexpr (is_int_v<T> || is_bool_v<T>) {
    EXPECT_EQ(printable(got), printable(host_exact(combiner, values))) << what;
  } else if constexpr (is_small_float_v<T>) {
    double want = combiner == Combiner::product ? 1.0
                  : combiner == Combiner::min   ? INFINITY
                  : combiner == Combiner::max   ? -INFINITY
                                                : 0.0;
    for (const T x : values) {
      const double v = value_of(x);
      if (combiner == Combiner::sum) want += v;
      if (combiner == Combiner::product) want *= v;
      if (combiner == Combiner::min) want = std::min(want, v);
      if (combiner == Combiner::max) want = std::max(want, v);
    }
    EXPECT_EQ(value_of(got), want) << what;
  } else if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const long double eps = std::numeric_limits<R>::epsilon();
    std::complex<long double> want = combiner == Combiner::product ? 1.0L : 0.0L;
    long double re_magnitude = 0, im_magnitude = 0;
    for (const T x : values) {
      const std::complex<long double> v(x.real(), x.imag());
      if (combiner == Combiner::sum) want += v;
      if (combiner == Combiner::product) want *= v;
      re_magnitude += std::fabs(v.real());
      im_magnitude += std::fabs(v.imag());
    }
    const long double re_tolerance =
        combiner == Combiner::sum ? (n + 8) * eps * re_magnitude : 8 * (n + 8) * eps;
    const long double im_tolerance =
        combiner == Combiner::sum ? (n + 8) * eps * im_magnitude : 8 * (n + 8) * eps;
    EXPECT_NEAR(double(got.real()), double(want.real()), double(re_tolerance)) << what;
    EXPECT_NEAR(double(got.imag()), double(want.imag()), double(im_tolerance)) << what;
  } else {
    const long double eps = std::numeric_limits<T>::epsilon();
    if (combiner == Combiner::min || combiner == Combiner::max) {
      T want = combiner == Combiner::min ? T(INFINITY) : T(-INFINITY);
      for (const T x : values)
        want = combiner == Combiner::min ? std::min(want, x) : std::max(want, x);
      EXPECT_EQ(got, want) << what;
      return;
    }
    long double want = combiner == Combiner::product ? 1.0L : 0.0L, magnitude = 0;
    for (const T x : values) {
      if (combiner == Combiner::sum) want += x;
      if (combiner == Combiner::product) want *= x;
      magnitude += std::fabs(static_cast<long double>(x));
    }
    const long double tolerance =
        combiner == Combiner::sum ? (n + 8) * eps * magnitude : 2 * (n + 8) * eps * std::fabs(want);
    EXPECT_NEAR(double(got), double(want), double(tolerance)) << what;
  }
}

// --- every combiner x every element type ----------------------------------------------

template <class T>
struct TypeName;
#define STUBJIT_TYPE_NAME(type, text)         \
  template <>                                 \
  struct TypeName<type> {                     \
    static constexpr const char* name = text; \
  }
STUBJIT_TYPE_NAME(float, "f32");
STUBJIT_TYPE_NAME(double, "f64");
STUBJIT_TYPE_NAME(std::int8_t, "i8");
STUBJIT_TYPE_NAME(std::uint8_t, "u8");
STUBJIT_TYPE_NAME(std::int16_t, "i16");
STUBJIT_TYPE_NAME(std::uint16_t, "u16");
STUBJIT_TYPE_NAME(std::int32_t, "i32");
STUBJIT_TYPE_NAME(std::uint32_t, "u32");
STUBJIT_TYPE_NAME(std::int64_t, "i64");
STUBJIT_TYPE_NAME(std::uint64_t, "u64");
STUBJIT_TYPE_NAME(bool, "bool");
STUBJIT_TYPE_NAME(float16, "f16");
STUBJIT_TYPE_NAME(bfloat16, "bf16");
STUBJIT_TYPE_NAME(std::complex<float>, "c32");
STUBJIT_TYPE_NAME(std::complex<double>, "c64");
#undef STUBJIT_TYPE_NAME

struct TypeNames {
  template <class T>
  static std::string GetName(int) {
    return TypeName<T>::name;
  }
};

template <class T>
class ReduceCombiners : public ::testing::Test {};
using ElementTypes =
    ::testing::Types<float, double, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t,
                     std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, bool, float16,
                     bfloat16, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(ReduceCombiners, ElementTypes, TypeNames);

// Each combiner the type takes: Kernel::reduce against the host, twice with the same
// bits, and a launch combining into a field's value; each one it does not take is a
// SignatureError at Runtime::kernel.
TYPED_TEST(ReduceCombiners, EveryCombinerTheTypeTakesAgainstTheHost) {
  using T = TypeParam;
  Runtime runtime(test::cpu_memory_only_options());
  std::mt19937_64 rng(20261212);
  // Not a multiple of 8: the lanes' remainder runs too.
  const std::size_t n = is_small_float_v<T> ? 101 : 1003;
  int taken = 0;
  for (const Combiner combiner : builtin_combiners) {
    const std::string what = std::string(TypeName<T>::name) + " " + name_of(combiner);
    SCOPED_TRACE(what);
    const KernelSource source{"reduce_" + std::string(name_of(combiner)) + "_" + TypeName<T>::name,
                              {in<T>("x"), result<T>("v", combiner)},
                              "v = x;"};
    if (!documented_takes<T>(combiner)) {
      try {
        runtime.kernel(source);
        ADD_FAILURE() << "a combiner the type does not take was accepted";
      } catch (const SignatureError& error) {
        EXPECT_NE(std::string(error.what()).find("which does not take them"), std::string::npos)
            << error.what();
        EXPECT_NE(std::string(error.what()).find(name_of(combiner)), std::string::npos)
            << error.what();
      }
      continue;
    }
    ++taken;
    Kernel kernel = runtime.kernel(source);
    const std::vector<T> values = values_for<T>(combiner, n, rng);
    Field x = runtime.allocate<T>({i64(n)});
    x.copy_from(values);
    const T first = kernel.template reduce<T>(Domain{i64(n)}, x);
    const T second = kernel.template reduce<T>(Domain{i64(n)}, x);
    EXPECT_EQ(bits_of(first), bits_of(second)) << "two runs differ";
    expect_reduced(combiner, values, first, what);

    // Combine mode into a rank-0 field: its value is one more operand.
    const T initial = values[n / 2];
    Field into = runtime.allocate<T>({});
    into.copy_from(std::vector<T>{initial});
    const LaunchSummary summary = kernel.launch(Domain{i64(n)}, x, into);
    EXPECT_EQ(summary.reduce_parts, 1u);
    std::vector<T> with_initial = values;
    with_initial.push_back(initial);
    expect_reduced<T>(combiner, with_initial, T(into.template to_vector<T>()[0]),
                      what + " combined");
  }
  const int expected_taken = is_bool_v<T> ? 5 : is_int_v<T> ? 7 : is_complex_v<T> ? 2 : 4;
  EXPECT_EQ(taken, expected_taken);
}

// --- ranks, dimensions, strides and orders --------------------------------------------

// An order-sensitive hash of a logical index, summed (u64, wrapping) by the kernels
// below: a visit of the wrong index, a missing or a doubled one changes the sum.
u64 hash_of(const std::vector<i64>& index) {
  u64 h = 0x12345;
  for (const i64 v : index) h = (h ^ u64(v + 1000)) * 0x100000001b3ull;
  return h;
}
const char* const hash_body = R"(
stubjit::u64 h = 0x12345;
for (int d = 0; d < i.rank; ++d) h = (h ^ stubjit::u64(i[d] + 1000)) * 0x100000001b3ull;
v = h;
)";

KernelSource hash_kernel(int result_rank) {
  return {"hash_sum_r" + std::to_string(result_rank),
          {index("i"), result<u64>("v", Combiner::sum, result_rank)},
          hash_body};
}

// Calls f(positions, logical index) for each index of `dims`, row-major.
void for_each_index(
    const std::vector<Dim>& dims,
    const std::function<void(const std::vector<i64>&, const std::vector<i64>&)>& f) {
  for (const Dim& dim : dims)
    if (dim.count == 0) return;
  std::vector<i64> at(dims.size(), 0), logical(dims.size());
  while (true) {
    for (std::size_t d = 0; d < dims.size(); ++d) logical[d] = dims[d].first + dims[d].step * at[d];
    f(at, logical);
    std::size_t d = dims.size();
    while (d > 0) {
      --d;
      if (++at[d] < dims[d].count) break;
      at[d] = 0;
      if (d == 0) return;
    }
  }
}

// The host's sums of the hash: for each index of the kept dimensions (row-major in
// their order) when `along` >= 0, else one sum.
std::vector<u64> host_hash_sums(const std::vector<Dim>& dims, int along) {
  std::size_t size = 1;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (int(d) != along) size *= std::size_t(dims[d].count);
  std::vector<u64> sums(along < 0 ? 1 : size, 0);
  for_each_index(dims, [&](const std::vector<i64>& at, const std::vector<i64>& logical) {
    std::size_t flat = 0;
    if (along >= 0)
      for (std::size_t d = 0; d < dims.size(); ++d)
        if (int(d) != along) flat = flat * std::size_t(dims[d].count) + std::size_t(at[d]);
    sums[flat] += hash_of(logical);
  });
  return sums;
}

std::vector<i64> kept_extents(const std::vector<Dim>& dims, int along) {
  std::vector<i64> extents;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (int(d) != along) extents.push_back(dims[d].count);
  return extents;
}

// Dimensions of rank `rank` with firsts and steps of every sign.
std::vector<Dim> strided_dims(const std::vector<i64>& counts) {
  std::vector<Dim> dims;
  for (std::size_t d = 0; d < counts.size(); ++d) {
    const i64 steps[] = {1, -2, 3};
    dims.push_back(Dim{5 - 3 * i64(d), counts[d], steps[d % 3]});
  }
  return dims;
}

// Column-major storage of a row-major vector over `extents`.
template <class T>
std::vector<T> column_major(const std::vector<T>& row_major, const std::vector<i64>& extents) {
  std::vector<T> out(row_major.size());
  std::vector<i64> at(extents.size(), 0);
  for (std::size_t flat = 0; flat < row_major.size(); ++flat) {
    i64 offset = 0, stride = 1;
    for (std::size_t d = 0; d < extents.size(); ++d) {
      offset += at[d] * stride;
      stride *= extents[d];
    }
    out[std::size_t(offset)] = row_major[flat];
    for (std::size_t d = extents.size(); d-- > 0;) {
      if (++at[d] < extents[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

TEST(ReduceRanks, WholeDomainOfRanks1To8WithFirstsAndSteps) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(hash_kernel(0));
  const std::vector<std::vector<i64>> shapes = {{1000},
                                                {37, 29},
                                                {7, 9, 11},
                                                {3, 5, 4, 7},
                                                {2, 3, 4, 5, 3},
                                                {2, 3, 2, 3, 2, 5},
                                                {2, 1, 3, 2, 3, 2, 4},
                                                {2, 3, 1, 2, 3, 2, 2, 3}};
  for (const std::vector<i64>& counts : shapes) {
    const std::vector<Dim> dims = strided_dims(counts);
    const Domain domain(dims);
    SCOPED_TRACE(domain.to_string());
    const u64 want = host_hash_sums(dims, -1)[0];
    EXPECT_EQ(kernel.reduce<u64>(domain), want);
    // Combine mode into a field holding 5, and assign mode over a field holding 7.
    Field total = runtime.allocate<u64>({});
    total.copy_from(std::vector<u64>{5});
    const LaunchSummary summary = kernel.launch(domain, total);
    EXPECT_EQ(summary.reduce_parts, 1u);
    EXPECT_EQ(total.to_vector<u64>()[0], want + 5);
    total.copy_from(std::vector<u64>{7});
    LaunchOptions assign;
    assign.reduce_update = ReduceUpdate::assign;
    kernel.launch(assign, domain, total);
    EXPECT_EQ(total.to_vector<u64>()[0], want);
  }
}

TEST(ReduceRanks, AlongEachDimensionOfRanks2And3And8) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<std::vector<i64>> shapes = {{37, 29}, {7, 9, 11}, {2, 3, 1, 2, 3, 2, 2, 3}};
  for (const std::vector<i64>& counts : shapes) {
    const int rank = int(counts.size());
    Kernel kernel = runtime.kernel(hash_kernel(rank - 1));
    for (const bool strided : {false, true}) {
      std::vector<Dim> dims;
      for (const i64 count : counts) dims.push_back(Dim{0, count, 1});
      if (strided) dims = strided_dims(counts);
      const Domain domain(dims);
      for (int along = -1; along < rank; ++along) {
        const int eliminated = along < 0 ? rank - 1 : along;
        SCOPED_TRACE(domain.to_string() + " along " + std::to_string(along));
        const std::vector<u64> want = host_hash_sums(dims, eliminated);
        Field sums = runtime.allocate<u64>(kept_extents(dims, eliminated));
        sums.copy_from(std::vector<u64>(want.size(), 3));
        LaunchOptions options;
        options.reduce_dimension = along;
        // Combine: 3 + the sum; then assign over it.
        kernel.launch(options, domain, sums);
        std::vector<u64> combined = want;
        for (u64& v : combined) v += 3;
        EXPECT_EQ(sums.to_vector<u64>(), combined);
        options.reduce_update = ReduceUpdate::assign;
        kernel.launch(options, domain, sums);
        EXPECT_EQ(sums.to_vector<u64>(), want);
      }
    }
  }
}

// A result that is a view (transposed, strided): each kept index's element is where
// the view puts it.
TEST(ReduceRanks, AlongADimensionIntoATransposedView) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(hash_kernel(2));
  const std::vector<Dim> dims = strided_dims({6, 5, 4});
  Field storage = runtime.allocate<u64>({4, 6});  // (k, i): the view is (i, k)
  storage.copy_from(std::vector<u64>(24, 0));
  LaunchOptions options;
  options.reduce_dimension = 1;
  options.reduce_update = ReduceUpdate::assign;
  kernel.launch(options, Domain(dims), storage.transpose(0, 1));
  const std::vector<u64> want = host_hash_sums(dims, 1);  // row-major over (i, k)
  const std::vector<u64> got = storage.to_vector<u64>();
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(got[k * 6 + i], want[i * 4 + k]) << i << "," << k;
}

// Fortran order: dimension d is still dimension d of the index and of the result's
// kept dimensions, whether the launch runs it reversed or not; result fields of either
// layout.
TEST(ReduceRanks, FortranOrderWholeAndAlongEachDimension) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<Dim> dims = {Dim{2, 5, 1}, Dim{10, 4, -2}, Dim{-3, 3, 2}};
  const Domain fortran(dims, Order::fortran);
  Kernel whole = runtime.kernel(hash_kernel(0));
  EXPECT_EQ(whole.reduce<u64>(fortran), host_hash_sums(dims, -1)[0]);
  Kernel along = runtime.kernel(hash_kernel(2));
  for (int d = 0; d < 3; ++d) {
    for (const Layout layout : {Layout::row_major, Layout::column_major}) {
      SCOPED_TRACE("along " + std::to_string(d) +
                   (layout == Layout::row_major ? " row-major" : " column-major"));
      const std::vector<i64> extents = kept_extents(dims, d);
      Field sums = runtime.allocate<u64>(extents, layout);
      sums.copy_from(std::vector<u64>(std::size_t(sums.size()), 0));
      LaunchOptions options;
      options.reduce_dimension = d;
      along.launch(options, fortran, sums);
      const std::vector<u64> want = host_hash_sums(dims, d);
      EXPECT_EQ(sums.to_vector<u64>(),
                layout == Layout::row_major ? want : column_major(want, extents));
    }
  }

  // A projected column-major field, which makes the launch run in memory order.
  const std::vector<i64> extents = {5, 4, 3};
  std::vector<double> x(60);  // row-major values x(i, j, k) = 100 i + 10 j + k + 1
  for (i64 i = 0; i < 5; ++i)
    for (i64 j = 0; j < 4; ++j)
      for (i64 k = 0; k < 3; ++k)
        x[std::size_t((i * 4 + j) * 3 + k)] = double(100 * i + 10 * j + k + 1);
  Field fx = runtime.allocate<double>(extents, Layout::column_major);
  fx.copy_from(column_major(x, extents));
  const Domain box(std::vector<Dim>{Dim{0, 5, 1}, Dim{0, 4, 1}, Dim{0, 3, 1}}, Order::fortran);
  Kernel total = runtime.kernel(
      {"fortran_total", {in<double>("x"), result<double>("s", Combiner::sum)}, "s = x;"});
  EXPECT_EQ(total.reduce<double>(box, fx), std::accumulate(x.begin(), x.end(), 0.0));
  Kernel sums = runtime.kernel(
      {"fortran_sums", {in<double>("x"), result<double>("s", Combiner::sum, 2)}, "s = x;"});
  for (int d = 0; d < 3; ++d) {
    for (const Layout layout : {Layout::row_major, Layout::column_major}) {
      SCOPED_TRACE("projected, along " + std::to_string(d) +
                   (layout == Layout::row_major ? " row-major" : " column-major"));
      std::vector<i64> kept;
      for (int e = 0; e < 3; ++e)
        if (e != d) kept.push_back(extents[std::size_t(e)]);
      std::vector<double> want(std::size_t(kept[0] * kept[1]), 0.0);
      for (i64 i = 0; i < 5; ++i)
        for (i64 j = 0; j < 4; ++j)
          for (i64 k = 0; k < 3; ++k) {
            const i64 at[] = {i, j, k};
            std::vector<i64> q;
            for (int e = 0; e < 3; ++e)
              if (e != d) q.push_back(at[e]);
            want[std::size_t(q[0] * kept[1] + q[1])] += x[std::size_t((i * 4 + j) * 3 + k)];
          }
      Field s = runtime.allocate<double>(kept, layout);
      s.copy_from(std::vector<double>(want.size(), 0.0));
      LaunchOptions options;
      options.reduce_dimension = d;
      sums.launch(options, box, fx, s);
      EXPECT_EQ(s.to_vector<double>(),
                layout == Layout::row_major ? want : column_major(want, kept));
    }
  }
}

// --- C += A*B ----------------------------------------------------------------------------

KernelSource matmul_kernel() {
  return {
      "matmul",
      {index("p"), in<double>("a", 2), in<double>("b", 2), result<double>("c", Combiner::sum, 2)},
      "c = a(p[0], p[2]) * b(p[2], p[1]);"};
}

struct Matmul {
  i64 m, n, k;
  std::vector<double> a, b, c0;
};

Matmul make_matmul(i64 m, i64 n, i64 k) {
  Matmul mm{m, n, k, {}, {}, {}};
  std::mt19937_64 rng(7);
  // Small integers: every sum is exact in any order.
  for (i64 e = 0; e < m * k; ++e) mm.a.push_back(double(i64(rng() % 9) - 4));
  for (i64 e = 0; e < k * n; ++e) mm.b.push_back(double(i64(rng() % 7) - 3));
  for (i64 e = 0; e < m * n; ++e) mm.c0.push_back(double(i64(rng() % 100)));
  return mm;
}

std::vector<double> host_matmul(const Matmul& mm, bool keep_c) {
  std::vector<double> c = keep_c ? mm.c0 : std::vector<double>(mm.c0.size(), 0.0);
  for (i64 i = 0; i < mm.m; ++i)
    for (i64 j = 0; j < mm.n; ++j) {
      double sum = 0;
      for (i64 l = 0; l < mm.k; ++l)
        sum += mm.a[std::size_t(i * mm.k + l)] * mm.b[std::size_t(l * mm.n + j)];
      c[std::size_t(i * mm.n + j)] += sum;
    }
  return c;
}

TEST(ReduceMatmul, CPlusEqualsABAlongKInCombineAndAssignModes) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel matmul = runtime.kernel(matmul_kernel());
  const Matmul mm = make_matmul(13, 11, 37);
  Field a = runtime.allocate<double>({mm.m, mm.k});
  Field b = runtime.allocate<double>({mm.k, mm.n});
  Field c = runtime.allocate<double>({mm.m, mm.n});
  a.copy_from(mm.a);
  b.copy_from(mm.b);
  c.copy_from(mm.c0);
  LaunchOptions options;
  options.reduce_dimension = 2;
  const LaunchSummary summary = matmul.launch(options, Domain{mm.m, mm.n, mm.k}, a, b, c);
  EXPECT_EQ(summary.reduce_parts, 1u);
  EXPECT_EQ(summary.mode, Mode::spread);
  EXPECT_EQ(c.to_vector<double>(), host_matmul(mm, true));  // C's values kept
  // Again with the default dimension (the last): C += A*B once more.
  matmul.launch(Domain{mm.m, mm.n, mm.k}, a, b, c);
  std::vector<double> twice = host_matmul(mm, true);
  const std::vector<double> product = host_matmul(mm, false);
  for (std::size_t e = 0; e < twice.size(); ++e) twice[e] += product[e];
  EXPECT_EQ(c.to_vector<double>(), twice);
  options.reduce_update = ReduceUpdate::assign;
  matmul.launch(options, Domain{mm.m, mm.n, mm.k}, a, b, c);
  EXPECT_EQ(c.to_vector<double>(), product);
}

// A long k over few elements of C: each element's segment split into parts, the last
// group to arrive combining them.
TEST(ReduceMatmul, LongKSplitIntoParts) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel matmul = runtime.kernel(matmul_kernel());
  const Matmul mm = make_matmul(2, 3, 70001);
  Field a = runtime.allocate<double>({mm.m, mm.k});
  Field b = runtime.allocate<double>({mm.k, mm.n});
  Field c = runtime.allocate<double>({mm.m, mm.n});
  a.copy_from(mm.a);
  b.copy_from(mm.b);
  c.copy_from(mm.c0);
  const LaunchSummary summary = matmul.launch(Domain{mm.m, mm.n, mm.k}, a, b, c);
  EXPECT_GT(summary.reduce_parts, 1u);
  EXPECT_EQ(c.to_vector<double>(), host_matmul(mm, true));
  LaunchOptions assign;
  assign.reduce_update = ReduceUpdate::assign;
  matmul.launch(assign, Domain{mm.m, mm.n, mm.k}, a, b, c);
  EXPECT_EQ(c.to_vector<double>(), host_matmul(mm, false));
}

// --- empty, one-element, split and many segments ----------------------------------------

// Every combiner's identity from an empty domain, through Kernel::reduce; a launch in
// combine mode leaves its field, one in assign mode writes the identity.
TEST(ReduceEmpty, EveryCombinersIdentityAndTheFieldLeftOrAssigned) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto check = [&](auto identity, Param param, const std::string& helpers = "") {
    using T = decltype(identity);
    SCOPED_TRACE(to_string(param));
    Kernel kernel =
        runtime.kernel({"empty_" + std::string(name_of(param.combiner)) + "_" + TypeName<T>::name,
                        {index("i"), param},
                        "v = 1;",
                        helpers});
    for (const Domain& domain : {Domain{0}, Domain{4, 0, 3}, Domain::loops({{1, 0}})}) {
      EXPECT_EQ(bits_of(kernel.reduce<T>(domain)), bits_of(identity)) << domain.to_string();
      Field field = runtime.allocate<T>({});
      // A value that is no identity: 1 is for product and all, so 0 there.
      const bool one_is_identity =
          param.combiner == Combiner::product || param.combiner == Combiner::all;
      const T sentinel = T(one_is_identity ? 0 : 1);
      field.copy_from(std::vector<T>{sentinel});
      kernel.launch(domain, field);
      EXPECT_EQ(bits_of(T(field.to_vector<T>()[0])), bits_of(sentinel)) << "combine changed it";
      LaunchOptions assign;
      assign.reduce_update = ReduceUpdate::assign;
      kernel.launch(assign, domain, field);
      EXPECT_EQ(bits_of(T(field.to_vector<T>()[0])), bits_of(identity)) << "assign";
    }
  };
  check(std::int32_t(0), result<std::int32_t>("v", Combiner::sum));
  check(double(1), result<double>("v", Combiner::product));
  check(std::numeric_limits<std::int16_t>::max(), result<std::int16_t>("v", Combiner::min));
  check(std::numeric_limits<std::uint64_t>::max(), result<std::uint64_t>("v", Combiner::min));
  check(float(INFINITY), result<float>("v", Combiner::min));
  check(std::numeric_limits<std::int8_t>::lowest(), result<std::int8_t>("v", Combiner::max));
  check(std::uint8_t(0), result<std::uint8_t>("v", Combiner::max));
  check(double(-INFINITY), result<double>("v", Combiner::max));
  check(std::uint32_t(0xffffffffu), result<std::uint32_t>("v", Combiner::bit_and));
  check(std::int64_t(-1), result<std::int64_t>("v", Combiner::bit_and));
  check(true, result<bool>("v", Combiner::bit_and));
  check(std::int64_t(0), result<std::int64_t>("v", Combiner::bit_or));
  check(std::uint16_t(0), result<std::uint16_t>("v", Combiner::bit_xor));
  check(false, result<bool>("v", Combiner::any));
  check(true, result<bool>("v", Combiner::all));
  check(std::int32_t(-77), result<std::int32_t>("v", "a + b + 77", "-77"));
}

TEST(ReduceEmpty, AlongAnEmptyDimensionEachElementIsLeftOrAssigned) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"empty_along", {index("i"), result<double>("v", Combiner::min, 1)}, "v = -5;"});
  Field field = runtime.allocate<double>({3});
  field.copy_from(std::vector<double>{1, 2, 3});
  kernel.launch(Domain{3, 0}, field);  // three empty segments
  EXPECT_EQ(field.to_vector<double>(), (std::vector<double>{1, 2, 3}));
  LaunchOptions assign;
  assign.reduce_update = ReduceUpdate::assign;
  kernel.launch(assign, Domain{3, 0}, field);
  EXPECT_EQ(field.to_vector<double>(), std::vector<double>(3, INFINITY));
  // No segment at all: nothing to write.
  Field none = runtime.allocate<double>({0});
  EXPECT_EQ(kernel.launch(assign, Domain{0, 4}, none).dispatches, 0u);
  LaunchOptions first;
  first.reduce_dimension = 0;
  field.copy_from(std::vector<double>{1, 2, 3});
  kernel.launch(first, Domain{0, 3}, field);  // along the empty dimension 0: kept {3}
  EXPECT_EQ(field.to_vector<double>(), (std::vector<double>{1, 2, 3}));
}

// An empty domain whose empty dimension is not the first, its stub compiled without
// optimization: the part's first position is not raised over a count of 0 (at -O3
// Clang happened to move that division out of the way; at -O0 it was a SIGFPE).
TEST(ReduceEmpty, AnEmptyInnerDimensionDividesByNothingAtO0) {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.compiler_options = {"-O0"};
  Runtime runtime(options);
  Kernel sum =
      runtime.kernel({"sum_o0", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"});
  Field x = runtime.allocate<float>({4, 0, 3});
  EXPECT_EQ(sum.reduce<float>(Domain{4, 0, 3}, x), 0.0f);
  EXPECT_EQ(sum.reduce<float>(Domain{4, 3, 0}, runtime.allocate<float>({4, 3, 0})), 0.0f);
}

TEST(ReduceEdges, OneElementDomains) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel whole = runtime.kernel(hash_kernel(0));
  for (const std::vector<i64>& counts : std::vector<std::vector<i64>>{{1}, {1, 1, 1}}) {
    const std::vector<Dim> dims = strided_dims(counts);
    EXPECT_EQ(whole.reduce<u64>(Domain(dims)), host_hash_sums(dims, -1)[0]);
  }
  Kernel along = runtime.kernel(hash_kernel(1));
  const std::vector<Dim> dims = strided_dims({1, 1});
  Field one = runtime.allocate<u64>({1});
  one.copy_from(std::vector<u64>{10});
  along.launch(Domain(dims), one);
  EXPECT_EQ(one.to_vector<u64>()[0], host_hash_sums(dims, 1)[0] + 10);
}

// Segments split into parts (few segments, long ones), whole domain and along a
// dimension, rank 1 and rank 3 (parts that start and end inside rows); floats give
// the same bits every run and with any number of worker threads.
TEST(ReduceParts, SegmentsSplitIntoPartsAgainstTheHost) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel whole = runtime.kernel(hash_kernel(0));
  for (const std::vector<i64>& counts :
       std::vector<std::vector<i64>>{{100003}, {7, 130, 151}, {5, 3, 11, 401}}) {
    const std::vector<Dim> dims = strided_dims(counts);
    SCOPED_TRACE(Domain(dims).to_string());
    Field total = runtime.allocate<u64>({});
    total.copy_from(std::vector<u64>{9});
    const LaunchSummary summary = whole.launch(Domain(dims), total);
    EXPECT_GT(summary.reduce_parts, 1u);
    EXPECT_EQ(total.to_vector<u64>()[0], host_hash_sums(dims, -1)[0] + 9);
  }
  Kernel along = runtime.kernel(hash_kernel(1));
  for (const int d : {0, 1}) {
    std::vector<i64> counts = {3, 3};
    counts[std::size_t(d)] = 200001;
    const std::vector<Dim> dims = strided_dims(counts);
    SCOPED_TRACE(Domain(dims).to_string() + " along " + std::to_string(d));
    Field sums = runtime.allocate<u64>({3});
    sums.copy_from(std::vector<u64>{1, 2, 3});
    LaunchOptions options;
    options.reduce_dimension = d;
    const LaunchSummary summary = along.launch(options, Domain(dims), sums);
    EXPECT_GT(summary.reduce_parts, 1u);
    std::vector<u64> want = host_hash_sums(dims, d);
    for (std::size_t e = 0; e < 3; ++e) want[e] += e + 1;
    EXPECT_EQ(sums.to_vector<u64>(), want);
    // Again: the arrival counters were left at 0 for the next launch.
    options.reduce_update = ReduceUpdate::assign;
    along.launch(options, Domain(dims), sums);
    EXPECT_EQ(sums.to_vector<u64>(), host_hash_sums(dims, d));
  }
}

TEST(ReduceParts, FloatSumsAreBitIdenticalAcrossRunsAndThreadCounts) {
  const i64 n = 300007;
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<float> xf(static_cast<std::size_t>(n));
  std::vector<double> xd(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < xf.size(); ++k) {
    xd[k] = unit(rng) * std::pow(10.0, double(rng() % 7));  // magnitudes 1 to 1e6
    xf[k] = float(xd[k]);
  }
  const auto run = [&](unsigned threads) {
    RuntimeOptions options = test::cpu_memory_only_options();
    options.cpu_threads = threads;
    Runtime runtime(options);
    Kernel sf =
        runtime.kernel({"sum_f32", {in<float>("x"), result<float>("v", Combiner::sum)}, "v = x;"});
    Kernel sd = runtime.kernel(
        {"sum_f64", {in<double>("x"), result<double>("v", Combiner::sum)}, "v = x;"});
    Field fxf = runtime.wrap(xf.data(), {n});
    Field fxd = runtime.wrap(xd.data(), {n});
    Field rf = runtime.allocate<float>({});
    LaunchOptions assign;
    assign.reduce_update = ReduceUpdate::assign;
    EXPECT_GT(sf.launch(assign, Domain{n}, fxf, rf).reduce_parts, 1u);
    const float f = rf.to_vector<float>()[0];
    EXPECT_EQ(bits_of(sf.reduce<float>(Domain{n}, fxf)), bits_of(f)) << "two runs differ";
    const double d = sd.reduce<double>(Domain{n}, fxd);
    EXPECT_EQ(bits_of(sd.reduce<double>(Domain{n}, fxd)), bits_of(d)) << "two runs differ";
    return std::make_pair(f, d);
  };
  const auto [f1, d1] = run(1);
  const auto [f4, d4] = run(4);
  const auto [f0, d0] = run(0);
  EXPECT_EQ(bits_of(f1), bits_of(f4));
  EXPECT_EQ(bits_of(f1), bits_of(f0));
  EXPECT_EQ(bits_of(d1), bits_of(d4));
  EXPECT_EQ(bits_of(d1), bits_of(d0));
  long double want_f = 0, want_d = 0, magnitude = 0;
  for (std::size_t k = 0; k < xf.size(); ++k) {
    want_f += xf[k];
    want_d += xd[k];
    magnitude += std::fabs(xd[k]);
  }
  EXPECT_NEAR(double(f1), double(want_f),
              double((n + 8) * std::numeric_limits<float>::epsilon() * magnitude));
  EXPECT_NEAR(d1, double(want_d),
              double((n + 8) * std::numeric_limits<double>::epsilon() * magnitude));
}

TEST(ReduceParts, ManySegmentsEachItsOwnGroup) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel along = runtime.kernel(hash_kernel(1));
  for (const int d : {0, 1}) {
    const std::vector<Dim> dims = d == 1 ? strided_dims({1000, 37}) : strided_dims({37, 1000});
    Field sums = runtime.allocate<u64>({1000});
    sums.copy_from(std::vector<u64>(1000, 0));
    LaunchOptions options;
    options.reduce_dimension = d;
    EXPECT_EQ(along.launch(options, Domain(dims), sums).reduce_parts, 1u);
    EXPECT_EQ(sums.to_vector<u64>(), host_hash_sums(dims, d));
  }
}

// Small grid limits: the groups laid over a grid rounded up past the last of them
// (each group runs once, its partials and arrivals by its number); more groups than
// the grid holds are a PlanError, as for a group kernel, and nothing is written.
TEST(ReduceParts, GroupsOverASmallGrid) {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.adjust_limits = [](DeviceLimits& limits) { limits.max_grid = {7, 7, 7}; };
  Runtime runtime(options);
  Kernel along = runtime.kernel(hash_kernel(1));
  for (const std::vector<i64>& counts :
       std::vector<std::vector<i64>>{{300, 37}, {5, 200001}, {40, 70000}}) {
    const std::vector<Dim> dims = strided_dims(counts);
    SCOPED_TRACE(Domain(dims).to_string());
    Field sums = runtime.allocate<u64>({counts[0]});
    sums.copy_from(std::vector<u64>(std::size_t(counts[0]), 0));
    const LaunchSummary summary = along.launch(Domain(dims), sums);
    const u64 groups = u64(counts[0]) * summary.reduce_parts;
    const Plan plan = along.plan(Domain(dims));
    ASSERT_EQ(plan.dispatches.size(), 1u);
    const Dispatch& dispatch = plan.dispatches[0];
    EXPECT_EQ(u64(dispatch.linear_end - dispatch.linear_begin), groups);
    if (counts[0] == 300) {
      EXPECT_GT(dispatch.grid[0] * dispatch.grid[1] * dispatch.grid[2], groups)
          << "the grid covers the groups exactly: this case tests nothing";
    }
    EXPECT_EQ(sums.to_vector<u64>(), host_hash_sums(dims, 1));
  }
  Field many = runtime.allocate<u64>({1000});
  many.copy_from(std::vector<u64>(1000, 5));
  EXPECT_THROW(along.launch(Domain{1000, 3}, many), PlanError);
  EXPECT_EQ(many.to_vector<u64>(), std::vector<u64>(1000, 5));
}

// A Fortran-order domain whose segments are split: the reversed run and the parts.
TEST(ReduceParts, FortranOrderSplitIntoParts) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<Dim> dims = {Dim{3, 70001, -1}, Dim{0, 3, 2}};
  const Domain fortran(dims, Order::fortran);
  Kernel whole = runtime.kernel(hash_kernel(0));
  EXPECT_EQ(whole.reduce<u64>(fortran), host_hash_sums(dims, -1)[0]);
  Kernel along = runtime.kernel(hash_kernel(1));
  for (const int d : {0, 1}) {
    SCOPED_TRACE(d);
    Field sums = runtime.allocate<u64>({dims[std::size_t(1 - d)].count});
    sums.copy_from(std::vector<u64>(std::size_t(sums.size()), 0));
    LaunchOptions options;
    options.reduce_dimension = d;
    const LaunchSummary summary = along.launch(options, fortran, sums);
    if (d == 0) {
      EXPECT_GT(summary.reduce_parts, 1u);
    }
    EXPECT_EQ(sums.to_vector<u64>(), host_hash_sums(dims, d));
  }
}

// Launches from several threads at once, each with its own partials and arrivals.
TEST(ReduceParts, ConcurrentLaunchesOfASplitReduction) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel along = runtime.kernel(hash_kernel(1));
  const std::vector<Dim> dims = strided_dims({3, 100001});
  const std::vector<u64> want = host_hash_sums(dims, 1);
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Field sums = runtime.allocate<u64>({3});
      LaunchOptions assign;
      assign.reduce_update = ReduceUpdate::assign;
      for (int r = 0; r < 8; ++r) {
        along.launch(assign, Domain(dims), sums);
        if (sums.to_vector<u64>() != want) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

// --- more than 2^31 indices ----------------------------------------------------------------

TEST(ReduceLarge, MoreThan2To31IndicesCountedExactly) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto started = std::chrono::steady_clock::now();
  Kernel odd =
      runtime.kernel({"count_odd", {index("i"), result<i64>("n", Combiner::sum)}, "n = i[0] & 1;"});
  // i = -5 + 3k, odd for even k: ceil(count / 2) of them.
  const i64 count = (i64(1) << 31) + 7;
  EXPECT_EQ(odd.reduce<i64>(Domain(std::vector<Dim>{Dim{-5, count, 3}})), (count + 1) / 2);
  Kernel ones =
      runtime.kernel({"count_all", {index("i"), result<i64>("n", Combiner::sum)}, "n = 1;"});
  EXPECT_EQ(ones.reduce<i64>(Domain{65536, 32769}), i64(65536) * 32769);
  // Along a dimension: per row a, the k < length with (a + k) odd.
  Kernel parity = runtime.kernel(
      {"count_parity", {index("i"), result<i64>("n", Combiner::sum, 1)}, "n = (i[0] + i[1]) & 1;"});
  const i64 length = (i64(1) << 31) / 3 + 5;
  Field counts = runtime.allocate<i64>({3});
  counts.copy_from(std::vector<i64>{0, 0, 0});
  EXPECT_GT(parity.launch(Domain{3, length}, counts).reduce_parts, 1u);
  EXPECT_EQ(counts.to_vector<i64>(), (std::vector<i64>{length / 2, (length + 1) / 2, length / 2}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  RecordProperty("seconds", std::to_string(seconds));  // for the record, never asserted
}

// --- arguments around the result ----------------------------------------------------------

// The result anywhere in the signature, between scalars (one specialized) and fields:
// Kernel::reduce puts its own field in the result's place.
TEST(ReduceArguments, TheResultAmongScalarsAndFields) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"mixed",
                                  {scalar<double>("k"), result<double>("v", Combiner::sum),
                                   in<double>("x"), specialized<std::int32_t>("m")},
                                  "v = k * x + m;"});
  std::vector<double> x(257);
  for (std::size_t e = 0; e < x.size(); ++e) x[e] = double(e % 17);
  const double sum_x = std::accumulate(x.begin(), x.end(), 0.0);
  Field fx = runtime.wrap(x.data(), {257});
  EXPECT_EQ(kernel.reduce<double>(Domain{257}, 2.0, fx, std::int32_t(3)), 2 * sum_x + 3 * 257);
  EXPECT_EQ(kernel.reduce<double>(Domain{257}, 0.5, fx, std::int32_t(-1)), 0.5 * sum_x - 257);
  Field v = runtime.allocate<double>({});
  v.copy_from(std::vector<double>{1.0});
  kernel.launch(Domain{257}, 2.0, v, fx, std::int32_t(3));
  EXPECT_EQ(v.to_vector<double>()[0], 1 + 2 * sum_x + 3 * 257);
  // A rank-0 result takes the whole domain whatever reduce_dimension says.
  LaunchOptions ignored;
  ignored.reduce_dimension = 7;
  EXPECT_EQ(kernel.reduce<double>(ignored, Domain{257}, 2.0, fx, std::int32_t(3)),
            2 * sum_x + 3 * 257);
}

// Specialize::background: the first launch runs the generic stub, later ones the
// specialized one; both give the host's value.
TEST(ReduceArguments, BackgroundSpecialization) {
  Runtime runtime(test::cpu_memory_only_options());
  KernelSource source{"scaled_sum",
                      {specialized<i64>("k"), in<i64>("x"), result<i64>("v", Combiner::sum, 1)},
                      "v = k * x;"};
  source.specialize = Specialize::background;
  Kernel kernel = runtime.kernel(source);
  std::vector<i64> x(60);
  std::iota(x.begin(), x.end(), -20);
  Field fx = runtime.wrap(x.data(), {6, 10});
  Field sums = runtime.allocate<i64>({6});
  std::vector<i64> want(6, 0);
  for (std::size_t e = 0; e < 60; ++e) want[e / 10] += 5 * x[e];
  LaunchOptions assign;
  assign.reduce_update = ReduceUpdate::assign;
  EXPECT_TRUE(kernel.launch(assign, Domain{6, 10}, i64(5), fx, sums).generic);
  EXPECT_EQ(sums.to_vector<i64>(), want);
  kernel.finish_specializing();
  sums.copy_from(std::vector<i64>(6, 0));
  EXPECT_FALSE(kernel.launch(assign, Domain{6, 10}, i64(5), fx, sums).generic);
  EXPECT_EQ(sums.to_vector<i64>(), want);
}

// --- masks and filters --------------------------------------------------------------------

TEST(ReduceFilters, MaskedIndicesContributeNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel masked = runtime.kernel(
      {"masked_min",
       {mask<std::int32_t>("keep"), in<double>("x"), result<double>("m", Combiner::min)},
       "m = x;"});
  const i64 n = 1000;
  std::vector<std::int32_t> keep(static_cast<std::size_t>(n));
  std::vector<double> x(static_cast<std::size_t>(n));
  double want = INFINITY;
  for (i64 k = 0; k < n; ++k) {
    keep[std::size_t(k)] = k % 3 != 0 ? std::int32_t(k % 5 + 1) : 0;
    x[std::size_t(k)] = k % 3 == 0 ? -1000.0 - double(k) : double((k * 37) % 101) - 50.0;
    if (k % 3 != 0) want = std::min(want, x[std::size_t(k)]);
  }
  Field fkeep = runtime.wrap(keep.data(), {n});
  Field fx = runtime.wrap(x.data(), {n});
  EXPECT_EQ(masked.reduce<double>(Domain{n}, fkeep, fx), want);

  // Along a dimension: sums of the kept elements per row.
  Kernel row_sums = runtime.kernel(
      {"masked_rows",
       {mask<std::int32_t>("keep"), in<double>("x"), result<double>("s", Combiner::sum, 1)},
       "s = x;"});
  Field keep2 = runtime.wrap(keep.data(), {20, 50});
  Field x2 = runtime.wrap(x.data(), {20, 50});
  Field sums = runtime.allocate<double>({20});
  sums.copy_from(std::vector<double>(20, 0.0));
  row_sums.launch(Domain{20, 50}, keep2, x2, sums);
  std::vector<double> want_rows(20, 0.0);
  for (std::size_t k = 0; k < 1000; ++k)
    if (keep[k]) want_rows[k / 50] += x[k];
  EXPECT_EQ(sums.to_vector<double>(), want_rows);

  // Masked to nothing: the identity.
  const std::vector<std::int32_t> none(std::size_t(n), 0);
  Field fnone = runtime.wrap(none.data(), {n});
  EXPECT_EQ(masked.reduce<double>(Domain{n}, fnone, fx), INFINITY);
}

TEST(ReduceFilters, FilteredIndicesContributeNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::string filter = "i[0] % 4 != 1 && i[1] <= i[0]";
  const auto passes = [](i64 a, i64 b) { return a % 4 != 1 && b <= a; };
  KernelSource whole{
      "filtered_sum", {index("i"), result<i64>("s", Combiner::sum)}, "s = i[0] * 100 + i[1];"};
  whole.filter = filter;
  KernelSource along{
      "filtered_rows", {index("i"), result<i64>("s", Combiner::max, 1)}, "s = i[0] * 100 + i[1];"};
  along.filter = filter;
  Kernel k_whole = runtime.kernel(whole);
  Kernel k_along = runtime.kernel(along);
  const std::vector<Dim> dims = {Dim{0, 40, 1}, Dim{39, 40, -1}};
  i64 want = 0;
  std::vector<i64> want_max(40, std::numeric_limits<i64>::lowest());
  for (i64 a = 0; a < 40; ++a)
    for (i64 kb = 0; kb < 40; ++kb) {
      const i64 b = 39 - kb;
      if (!passes(a, b)) continue;
      want += a * 100 + b;
      want_max[std::size_t(a)] = std::max(want_max[std::size_t(a)], a * 100 + b);
    }
  EXPECT_EQ(k_whole.reduce<i64>(Domain(dims)), want);
  Field rows = runtime.allocate<i64>({40});
  rows.copy_from(std::vector<i64>(40, 7));
  LaunchOptions assign;
  assign.reduce_update = ReduceUpdate::assign;
  k_along.launch(assign, Domain(dims), rows);
  EXPECT_EQ(rows.to_vector<i64>(), want_max);  // rows 1, 5, ...: the identity

  // Filtered to nothing: the identity, and a combined field unchanged.
  KernelSource nothing = whole;
  nothing.name = "filtered_out";
  nothing.filter = "i[0] < 0";
  Kernel k_nothing = runtime.kernel(nothing);
  EXPECT_EQ(k_nothing.reduce<i64>(Domain{10, 10}), 0);
  Field total = runtime.allocate<i64>({});
  total.copy_from(std::vector<i64>{42});
  k_nothing.launch(Domain{10, 10}, total);
  EXPECT_EQ(total.to_vector<i64>()[0], 42);
}

// --- custom combiners ------------------------------------------------------------------

TEST(ReduceCustom, GcdWithAHelperWholeAlongAndInParts) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::string helpers = R"(
stubjit::i64 gcd64(stubjit::i64 a, stubjit::i64 b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) { const stubjit::i64 t = a % b; a = b; b = t; }
  return a;
})";
  Kernel gcd = runtime.kernel(
      {"gcd", {in<i64>("x"), result<i64>("g", "gcd64(a, b)", "0")}, "g = x;", helpers});
  const i64 n = 100003;  // split into parts
  std::mt19937_64 rng(5);
  std::vector<i64> x(static_cast<std::size_t>(n));
  for (i64& v : x) v = 6 * i64(1 + rng() % 1000000) * ((rng() % 2) ? 1 : -1);
  x[std::size_t(n / 2)] = 6 * 35;  // with the rest, the gcd is 6 for all but bad luck
  i64 want = 0;
  for (const i64 v : x) want = std::gcd(want, v);
  Field fx = runtime.wrap(x.data(), {n});
  Field g = runtime.allocate<i64>({});
  g.copy_from(std::vector<i64>{0});
  EXPECT_GT(gcd.launch(Domain{n}, fx, g).reduce_parts, 1u);
  EXPECT_EQ(g.to_vector<i64>()[0], want);
  EXPECT_EQ(gcd.reduce<i64>(Domain{n}, fx), want);
  // Combine mode: gcd(30, all of them).
  g.copy_from(std::vector<i64>{30});
  gcd.launch(Domain{n}, fx, g);
  EXPECT_EQ(g.to_vector<i64>()[0], std::gcd(want, i64(30)));

  Kernel rows =
      runtime.kernel({"custom_max",
                      {in<double>("x"), result<double>("m", "a > b ? a : b", "-1e300", 1)},
                      "m = x;"});
  std::vector<double> y(600);
  for (std::size_t k = 0; k < y.size(); ++k) y[k] = double((k * 7919) % 1009) - 500.0;
  Field fy = runtime.wrap(y.data(), {20, 30});
  Field m = runtime.allocate<double>({30});
  LaunchOptions options;
  options.reduce_dimension = 0;  // the max of each column
  options.reduce_update = ReduceUpdate::assign;
  rows.launch(options, Domain{20, 30}, fy, m);
  std::vector<double> want_max(30, -1e300);
  for (std::size_t k = 0; k < y.size(); ++k) want_max[k % 30] = std::max(want_max[k % 30], y[k]);
  EXPECT_EQ(m.to_vector<double>(), want_max);
}

// A custom combiner's expressions are compiled as the kernel's own: an error in either
// is a CompileError whose log names the kernel's .combine (or .identity) line, and
// nothing is written.
TEST(ReduceCustom, ACombinerThatDoesNotCompileIsACompileErrorAndWritesNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Field x = runtime.allocate<double>({16});
  x.copy_from(std::vector<double>(16, 1.0));
  Field out = runtime.allocate<double>({});
  out.copy_from(std::vector<double>{123.0});
  const auto expect_compile_error = [&](const KernelSource& source, const std::string& where) {
    Kernel kernel = runtime.kernel(source);
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        kernel.launch(Domain{16}, x, out);
        ADD_FAILURE() << "expected CompileError";
      } catch (const CompileError& error) {
        EXPECT_EQ(error.kernel(), source.name);
        EXPECT_NE(error.log().find(where), std::string::npos) << error.log();
        EXPECT_NE(error.log().find("not_declared"), std::string::npos) << error.log();
      }
    }
    EXPECT_THROW(kernel.reduce<double>(Domain{16}, x), CompileError);
    EXPECT_EQ(out.to_vector<double>()[0], 123.0) << "written by a launch that failed";
  };
  expect_compile_error(
      {"bad_combine", {in<double>("x"), result<double>("v", "a + not_declared(b)", "0")}, "v = x;"},
      "bad_combine.combine:1:");
  expect_compile_error(
      {"bad_identity", {in<double>("x"), result<double>("v", "a + b", "\nnot_declared")}, "v = x;"},
      "bad_identity.identity:2:");
  EXPECT_EQ(runtime.counters().launches, 0u);
}

// --- errors ------------------------------------------------------------------------------

using test::expect_refused;

TEST(ReduceErrors, LaunchesThatCannotRunAreRefusedAndWriteNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel rows = runtime.kernel(
      {"row_sums", {in<double>("x"), result<double>("s", Combiner::sum, 1)}, "s = x;"});
  Kernel total =
      runtime.kernel({"total", {in<double>("x"), result<double>("t", Combiner::sum)}, "t = x;"});
  Kernel plain = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<double>({3, 4});
  x.copy_from(std::vector<double>(12, 1.0));
  Field x3 = runtime.allocate<double>({3, 4, 5});
  x3.copy_from(std::vector<double>(60, 1.0));
  Field s3 = runtime.allocate<double>({3});
  Field s4 = runtime.allocate<double>({4});
  Field s5 = runtime.allocate<double>({5});
  Field t = runtime.allocate<double>({});
  const auto fill = [&] {
    s3.copy_from(std::vector<double>(3, -8.0));
    s4.copy_from(std::vector<double>(4, -8.0));
    s5.copy_from(std::vector<double>(5, -8.0));
    t.copy_from(std::vector<double>{-8.0});
  };
  const auto untouched = [&] {
    EXPECT_EQ(s3.to_vector<double>(), std::vector<double>(3, -8.0));
    EXPECT_EQ(s4.to_vector<double>(), std::vector<double>(4, -8.0));
    EXPECT_EQ(s5.to_vector<double>(), std::vector<double>(5, -8.0));
    EXPECT_EQ(t.to_vector<double>(), std::vector<double>{-8.0});
  };
  fill();

  LaunchOptions beyond;
  beyond.reduce_dimension = 2;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(beyond, Domain{3, 4}, x, s3);
                                },
                                {"reduces dimension 2 of a rank-2 domain", "0 to 1, or -1"});
  LaunchOptions below;
  below.reduce_dimension = -2;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(below, Domain{3, 4}, x, s3);
                                },
                                {"reduces dimension -2"});
  expect_refused<ArgumentError>(
      runtime,
      [&] {
        rows.launch(Domain{3, 4, 5}, x3, s3);
      },
      {"result 's'", "has rank 1; over a rank-3 domain", "rank 0 (the whole domain) or 2"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(Domain{3, 4}, x, s4);
                                },
                                {"its extent 0 is 4", "dimension 0", "has 3 indices"});
  LaunchOptions first;
  first.reduce_dimension = 0;
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(first, Domain{3, 4}, x, s3);
                                },
                                {"its extent 0 is 3", "dimension 1", "has 4 indices"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(Domain{3, 4}, x, t);
                                },
                                {"it takes a field of rank 1"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  total.reduce<float>(Domain{3, 4}, x);
                                },
                                {"Kernel::reduce<float>", "'t' is double"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.reduce<double>(Domain{3, 4}, x);
                                },
                                {"reduces along a dimension", "rank 1"});
  expect_refused<ArgumentError>(runtime, [&] { plain.reduce<float>(Domain{3}, 1.0f); },
                                {"has no result"});
  // The count leaves the result out: it is Kernel::reduce's own.
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  total.reduce<double>(Domain{3, 4});
                                },
                                {"takes 1 argument (x; the result 't' is its own), got 0"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  total.reduce<double>(Domain{3, 4}, x, x);
                                },
                                {"takes 1 argument (x; the result 't' is its own), got 2"});

  const double constant[3] = {-8.0, -8.0, -8.0};
  Field read_only = runtime.wrap(static_cast<const double*>(constant), {3});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(Domain{3, 4}, x, read_only);
                                },
                                {"'s' is read-write; got a read-only field"});
  EXPECT_EQ(constant[0], -8.0);
  Field floats = runtime.allocate<float>({3});
  floats.copy_from(std::vector<float>(3, -8.0f));
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(Domain{3, 4}, x, floats);
                                },
                                {"result<double, sum, rank 1> s", "got"});
  EXPECT_EQ(floats.to_vector<float>(), std::vector<float>(3, -8.0f));
  LaunchOptions tile;
  tile.tile = Tile{2};
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(tile, Domain{3, 4}, x, s3);
                                },
                                {"reduce kernel", "takes no tile"});
  LaunchOptions bad_update;
  bad_update.reduce_update = static_cast<ReduceUpdate>(7);
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(bad_update, Domain{3, 4}, x, s3);
                                },
                                {"which is no ReduceUpdate"});
  // A broadcast view (stride 0) as the result: its elements would be one.
  Field one = runtime.allocate<double>({1});
  one.copy_from(std::vector<double>{-8.0});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  rows.launch(Domain{3, 4}, x, one.slice(0, 0).spread(0, 3));
                                },
                                {"stride 0"});
  EXPECT_EQ(one.to_vector<double>()[0], -8.0);
  // The result bound to a field the kernel also reads.
  Kernel reads = runtime.kernel(
      {"reads_result", {in<double>("y"), result<double>("r", Combiner::sum)}, "r = y;"});
  expect_refused<AliasError>(runtime, [&] { reads.launch(Domain{4}, t, t); }, {});
  untouched();
  EXPECT_EQ(runtime.counters().compiles, 0u);
}

TEST(ReduceErrors, SignaturesThatCannotReduceAreRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto refused = [&](Signature signature, const std::string& part) {
    SCOPED_TRACE(part);
    const KernelSource source{"bad", std::move(signature), "(void)0;"};
    expect_refused<SignatureError>(runtime, [&] { runtime.kernel(source); }, {part});
  };
  refused({result<float>("a", Combiner::sum), result<float>("b", Combiner::max)},
          "has two results ('a' and 'b')");
  refused({group("g"), result<float>("v", Combiner::sum)},
          "a reduce kernel runs its body per element");
  refused({result<float>("v", Combiner::sum), tile_index("t")}, "a reduce kernel is not tiled");
  refused({result<bool>("v", Combiner::min)}, "combines bool values with min");
  refused({result<float>("v", Combiner::any)}, "combines float values with any");
  refused({result<double>("v", Combiner::bit_and)}, "combines double values with bit_and");
  refused({result<std::complex<double>>("v", Combiner::max)}, "with max, which does not take them");
  refused({result<double>("v", " \t", "0")}, "needs a combine expression");
  refused({result<double>("v", "a + b", "\n ")}, "needs a combine expression");
  refused({result<double>("v", "", "")}, "needs a combine expression");
  Param summed = result<double>("v", Combiner::sum);
  summed.combine = "a + b";
  refused({summed}, "only a result with a custom combiner has them");
  Param with_identity = result<double>("v", Combiner::max);
  with_identity.identity = "0";
  refused({with_identity}, "only a result with a custom combiner has them");
  Param plain = in<double>("x");
  plain.combine = "a + b";
  refused({plain}, "only a result with a custom combiner has them");
  Param read_only = in<double>("x");
  read_only.combiner = Combiner::sum;
  refused({read_only}, "only a result (result<T>) has one");
  Param scalar_result = scalar<double>("s");
  scalar_result.combiner = Combiner::sum;
  refused({scalar_result}, "only a result (result<T>) has one");
  refused({result<double>("v", Combiner::sum, 8)}, "a result has rank 0 (the whole domain) to 7");
  Param unknown = result<double>("v", Combiner::sum);
  unknown.combiner = static_cast<Combiner>(40);
  refused({unknown}, "which is no Combiner");
}

// --- caches, prepare, stub_source, plan ------------------------------------------------

TEST(ReduceCache, StubsComeFromMemoryThenFromDisk) {
  const test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);
  const test::TempDir dir;
  RuntimeOptions options = test::cpu_options();
  options.cache_dir = dir.path();
  const auto run = [&](Runtime& runtime) {
    Kernel matmul = runtime.kernel(matmul_kernel());
    const Matmul mm = make_matmul(4, 5, 6);
    Field a = runtime.allocate<double>({mm.m, mm.k});
    Field b = runtime.allocate<double>({mm.k, mm.n});
    Field c = runtime.allocate<double>({mm.m, mm.n});
    a.copy_from(mm.a);
    b.copy_from(mm.b);
    c.copy_from(mm.c0);
    LaunchOptions assign;
    assign.reduce_update = ReduceUpdate::assign;
    const LaunchSummary first = matmul.launch(assign, Domain{mm.m, mm.n, mm.k}, a, b, c);
    EXPECT_FALSE(matmul.launch(assign, Domain{mm.m, mm.n, mm.k}, a, b, c).compiled);
    EXPECT_EQ(c.to_vector<double>(), host_matmul(mm, false));
    return first.compiled;
  };
  {
    Runtime first(options);
    EXPECT_TRUE(run(first));
    EXPECT_EQ(first.counters().compiles, 1u);
    EXPECT_EQ(first.counters().memory_hits, 1u);
  }
  Runtime second(options);
  EXPECT_FALSE(run(second));
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 1u);
}

TEST(ReduceCache, EachDimensionAndUpdateModeGetsItsStubOnce) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel along = runtime.kernel(hash_kernel(1));
  Field f = runtime.allocate<u64>({4});
  LaunchOptions options;
  options.reduce_dimension = 0;
  EXPECT_TRUE(along.launch(options, Domain{5, 4}, f).compiled);
  EXPECT_FALSE(along.launch(options, Domain{7, 4}, f).compiled);
  options.reduce_update = ReduceUpdate::assign;  // a launch value, not a stub's
  EXPECT_FALSE(along.launch(options, Domain{9, 4}, f).compiled);
  EXPECT_EQ(f.to_vector<u64>(), host_hash_sums({Dim{0, 9, 1}, Dim{0, 4, 1}}, 0));
  options.reduce_dimension = 1;
  EXPECT_TRUE(along.launch(options, Domain{4, 5}, f).compiled);
  EXPECT_EQ(runtime.counters().compiles, 2u);
}

TEST(ReducePrepare, PrepareStubSourcePlanAndBinary) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel total =
      runtime.kernel({"total", {in<double>("x"), result<double>("t", Combiner::sum)}, "t = x;"});
  const i64 n = 100000;
  Field x = runtime.allocate<double>({n});
  x.copy_from(std::vector<double>(std::size_t(n), 0.5));
  Field t = runtime.allocate<double>({});
  t.copy_from(std::vector<double>{4.0});
  const LaunchSummary prepared = total.prepare(Domain{n}, x, t);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_GT(prepared.reduce_parts, 1u);
  EXPECT_EQ(t.to_vector<double>()[0], 4.0) << "prepare ran the kernel";
  EXPECT_EQ(runtime.counters().launches, 0u);
  const LaunchSummary launched = total.launch(Domain{n}, x, t);
  EXPECT_FALSE(launched.compiled);
  EXPECT_EQ(launched.reduce_parts, prepared.reduce_parts);
  EXPECT_EQ(t.to_vector<double>()[0], 4.0 + 0.5 * double(n));
  EXPECT_FALSE(total.prepare(Domain{n}, x, t).compiled);

  const std::string whole = total.stub_source(Domain{n}, {x, t});
  EXPECT_NE(whole.find("reduce of the whole domain"), std::string::npos) << whole.substr(0, 300);
  EXPECT_NE(whole.find("The combiner: sum of double values"), std::string::npos);
  Kernel rows = runtime.kernel(
      {"row_sums", {in<double>("x"), result<double>("s", Combiner::sum, 1)}, "s = x;"});
  Field x2 = runtime.allocate<double>({3, 5});
  Field s = runtime.allocate<double>({5});
  LaunchOptions first;
  first.reduce_dimension = 0;
  EXPECT_NE(rows.stub_source(Domain{3, 5}, {x2, s}, first).find("along dimension 0"),
            std::string::npos);

  // The plan: the groups of the whole domain (parts of one segment), or of each row.
  const Plan plan = total.plan(Domain{n});
  EXPECT_EQ(plan.mode, Mode::spread);
  i64 groups = 0;
  for (const Dispatch& d : plan.dispatches) groups += d.linear_end - d.linear_begin;
  EXPECT_EQ(u64(groups), prepared.reduce_parts);
  const Plan row_plan = rows.plan(Domain{3, 5});
  groups = 0;
  for (const Dispatch& d : row_plan.dispatches) groups += d.linear_end - d.linear_begin;
  EXPECT_EQ(groups, 3);

  const StubBinary binary = total.binary(Domain{n}, {x, t});
  EXPECT_EQ(binary.format, "elf-shared-object");
  EXPECT_FALSE(binary.entry.empty());
  EXPECT_FALSE(binary.bytes.empty());
  EXPECT_EQ(runtime.counters().compiles, 1u);  // binary found the prepared stub
  EXPECT_EQ(t.to_vector<double>()[0], 4.0 + 0.5 * double(n));
}

}  // namespace
}  // namespace stubjit
