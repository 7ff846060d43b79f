// float16, bfloat16, complex<float> and complex<double> on the CPU backend: their
// conversions (host and kernel) against an independent rounding reference, and each
// type through a scalar, a specialized scalar, a projected field, a broadcast view and
// a written field, against the same arithmetic on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/half_reference.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::bfloat16_format;
using test::binary16_format;
using test::nearest_code;
using test::SmallFloatFormat;
using test::value_of_code;

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

// Floats to convert: every exponent, with fractions that land on, just beside and
// exactly between the 16-bit codes (ties), subnormal results and overflow included.
std::vector<float> probe_floats() {
  std::vector<float> values;
  for (std::uint32_t exponent = 0; exponent < 255; ++exponent) {
    for (std::uint32_t fraction :
         {0x000000u, 0x000001u, 0x000fffu, 0x001000u, 0x001001u, 0x002000u, 0x003000u, 0x7fffffu,
          0x400000u, 0x7fe000u, 0x007fffu, 0x008000u, 0x008001u, 0x018000u, 0x2aaaaau}) {
      for (std::uint32_t sign : {0u, 0x80000000u})
        values.push_back(float_of(sign | exponent << 23 | fraction));
    }
  }
  values.push_back(float_of(0x7f800000u));  // infinities
  values.push_back(float_of(0xff800000u));
  // NaNs whose rounding alone would give an infinity or a carry into the sign.
  for (std::uint32_t nan : {0x7f800001u, 0x7fffffffu, 0xffbfffffu, 0xff800001u, 0x7fc00000u})
    values.push_back(float_of(nan));
  return values;
}

// The code the reference gives, or any NaN code for a NaN.
void expect_code(const SmallFloatFormat& format, float from, std::uint16_t got) {
  if (std::isnan(from)) {
    EXPECT_TRUE(std::isnan(value_of_code(format, got))) << std::hexfloat << from;
    return;
  }
  EXPECT_EQ(got, nearest_code(format, from)) << std::hexfloat << from;
}

TEST(HalfTypes, HostConversionsRoundToNearestEven) {
  // Hand-checked codes first: 1, -2.5, the largest finite, the first value that rounds
  // to infinity, the smallest subnormal, a tie that stays even, one that goes up.
  EXPECT_EQ(float16(1.0f).bits(), 0x3c00);
  EXPECT_EQ(float16(-2.5f).bits(), 0xc100);
  EXPECT_EQ(float16(65504.0f).bits(), 0x7bff);
  EXPECT_EQ(float16(65520.0f).bits(), 0x7c00);
  EXPECT_EQ(float16(std::ldexp(1.0f, -24)).bits(), 0x0001);
  EXPECT_EQ(float16(std::ldexp(1.0f, -25)).bits(), 0x0000);
  EXPECT_EQ(float16(1.0f + std::ldexp(1.0f, -11)).bits(), 0x3c00);
  EXPECT_EQ(float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits(), 0x3c02);
  EXPECT_EQ(bfloat16(1.0f).bits(), 0x3f80);
  EXPECT_EQ(bfloat16(float_of(0x3f808000u)).bits(), 0x3f80);  // tie, even
  EXPECT_EQ(bfloat16(float_of(0x3f818000u)).bits(), 0x3f82);  // tie, up to even
  EXPECT_EQ(bfloat16(float_of(0x7f7fffffu)).bits(), 0x7f80);  // rounds to infinity
  EXPECT_FLOAT_EQ(float(float16::from_bits(0x3555)), 0.333251953125f);
  EXPECT_TRUE(std::isnan(float(float16(NAN))));
  EXPECT_TRUE(std::isnan(float(bfloat16(NAN))));

  for (const float value : probe_floats()) {
    expect_code(binary16_format, value, float16(value).bits());
    expect_code(bfloat16_format, value, bfloat16(value).bits());
  }
  for (std::uint32_t code = 0; code <= 0xffff; ++code) {
    const auto bits = static_cast<std::uint16_t>(code);
    const double half = value_of_code(binary16_format, bits);
    const double brain = value_of_code(bfloat16_format, bits);
    if (std::isnan(half))
      EXPECT_TRUE(std::isnan(float(float16::from_bits(bits))));
    else
      ASSERT_EQ(float(float16::from_bits(bits)), half) << code;
    if (std::isnan(brain))
      EXPECT_TRUE(std::isnan(float(bfloat16::from_bits(bits))));
    else
      ASSERT_EQ(float(bfloat16::from_bits(bits)), brain) << code;
  }
#if STUBJIT_HOST_HAS_FLOAT16
  // The compiler's own _Float16 is a second reference, and the same element type.
  static_assert(element_type_v<_Float16> == ElementType::float16);
  for (const float value : probe_floats()) {
    if (std::isnan(value)) continue;
    const _Float16 theirs = static_cast<_Float16>(value);
    std::uint16_t bits;
    std::memcpy(&bits, &theirs, 2);
    EXPECT_EQ(float16(value).bits(), bits) << std::hexfloat << value;
  }
#endif
}

// The kernels' conversions, both ways, for every code and the probe floats.
TEST(HalfTypes, KernelConversionsMatchTheReference) {
  Runtime runtime(test::cpu_memory_only_options());
  const std::vector<float> floats = probe_floats();
  const auto n = static_cast<std::int64_t>(floats.size());
  Field from = runtime.allocate<float>({n});
  from.copy_from(floats);
  Field halves = runtime.allocate<float16>({n});
  Field brains = runtime.allocate<bfloat16>({n});
  Kernel narrow = runtime.kernel(
      {"narrow", {in<float>("x"), inout<float16>("h"), inout<bfloat16>("b")}, "h = x;\nb = x;"});
  narrow.launch(Domain{n}, from, halves, brains);
  const std::vector<float16> h = halves.to_vector<float16>();
  const std::vector<bfloat16> b = brains.to_vector<bfloat16>();
  for (std::size_t k = 0; k < floats.size(); ++k) {
    expect_code(binary16_format, floats[k], h[k].bits());
    expect_code(bfloat16_format, floats[k], b[k].bits());
  }

  std::vector<float16> every_half(65536);
  std::vector<bfloat16> every_brain(65536);
  for (std::uint32_t code = 0; code <= 0xffff; ++code) {
    every_half[code] = float16::from_bits(static_cast<std::uint16_t>(code));
    every_brain[code] = bfloat16::from_bits(static_cast<std::uint16_t>(code));
  }
  Field codes16 = runtime.allocate<float16>({65536});
  Field codes_b = runtime.allocate<bfloat16>({65536});
  Field wide16 = runtime.allocate<float>({65536});
  Field wide_b = runtime.allocate<float>({65536});
  codes16.copy_from(every_half);
  codes_b.copy_from(every_brain);
  Kernel widen =
      runtime.kernel({"widen",
                      {in<float16>("h"), in<bfloat16>("b"), inout<float>("fh"), inout<float>("fb")},
                      "fh = h;\nfb = b;"});
  widen.launch(Domain{65536}, codes16, codes_b, wide16, wide_b);
  const std::vector<float> fh = wide16.to_vector<float>();
  const std::vector<float> fb = wide_b.to_vector<float>();
  for (std::uint32_t code = 0; code <= 0xffff; ++code) {
    const auto bits = static_cast<std::uint16_t>(code);
    const double half = value_of_code(binary16_format, bits);
    const double brain = value_of_code(bfloat16_format, bits);
    if (std::isnan(half))
      EXPECT_TRUE(std::isnan(fh[code])) << code;
    else
      ASSERT_EQ(fh[code], half) << code;
    if (std::isnan(brain))
      EXPECT_TRUE(std::isnan(fb[code])) << code;
    else
      ASSERT_EQ(fb[code], brain) << code;
  }
}

// y = x * s + table(1) + k in float, rounded once into the 16-bit type. The inputs
// are quarters below 64 in magnitude, so the float arithmetic is exact and the one
// rounding is the reference's.
template <class H>
void check_half_arithmetic(const SmallFloatFormat& format) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel(
      {"scaled",
       {scalar<H>("s"), specialized<H>("k"), in<H>("x"), in<H>("table", 1), inout<H>("y")},
       "y = x * s + table(1) + k;\ny += 0.0f;"});
  const std::size_t n = 7 * 11;
  std::vector<H> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = H(static_cast<float>(int(i * 37 % 255) - 127) / 4);
  const std::vector<H> table = {H(100.0f), H(-3.25f)};
  Field dx = runtime.allocate<H>({7, 11});
  Field dt = runtime.allocate<H>({2});
  Field dy = runtime.allocate<H>({7, 11});
  dx.copy_from(x);
  dt.copy_from(table);
  for (const float s : {0.5f, -3.0f, 17.25f}) {
    SCOPED_TRACE(s);
    const H k = H(0.75f);
    kernel.launch(Domain{7, 11}, H(s), k, dx, dt, dy);
    const std::vector<H> y = dy.to_vector<H>();
    for (std::size_t i = 0; i < n; ++i) {
      const double exact = double(float(x[i])) * s + double(float(table[1])) + 0.75;
      ASSERT_EQ(y[i].bits(), nearest_code(format, exact)) << i << " " << exact;
    }
  }
  // The specialized value is compiled in by its bits.
  const std::string source = kernel.stub_source(Domain{7, 11}, {H(1.0f), H(-2.0f), dx, dt, dy});
  const std::string bits = std::to_string(H(-2.0f).bits());
  EXPECT_NE(source.find("::from_bits(" + bits + ")"), std::string::npos) << source;
}

TEST(HalfTypes, ThroughScalarsProjectionAndBroadcast) {
  check_half_arithmetic<float16>(binary16_format);
  check_half_arithmetic<bfloat16>(bfloat16_format);
}

template <class T>
void expect_near(std::complex<T> got, std::complex<T> expected, double tolerance) {
  const double scale = 1 + std::abs(expected);
  EXPECT_NEAR(got.real(), expected.real(), tolerance * scale) << got << " vs " << expected;
  EXPECT_NEAR(got.imag(), expected.imag(), tolerance * scale) << got << " vs " << expected;
}

// Complex arithmetic and functions against std::complex.
template <class T>
void check_complex(double tolerance) {
  using C = std::complex<T>;
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel =
      runtime.kernel({"mix",
                      {scalar<C>("s"), specialized<C>("k"), in<C>("x"), in<C>("table", 1),
                       inout<C>("y"), inout<T>("r")},
                      "y = x * s + table(1) / k - conj(x) * 2 + 1;\n"
                      "y -= x / (table(0) + s);\n"
                      "r = abs(x) + norm(s) + real(y) - imag(k) + x.real() * x.imag();"});
  const std::size_t n = 5 * 9;
  std::vector<C> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = C(static_cast<T>(int(i * 13 % 17) - 8) / 2, static_cast<T>(int(i * 7 % 11) - 5) / 4);
  const std::vector<C> table = {C(3, -4), C(T(0.5), 2)};
  Field dx = runtime.allocate<C>({5, 9});
  Field dt = runtime.allocate<C>({2});
  Field dy = runtime.allocate<C>({5, 9});
  Field dr = runtime.allocate<T>({5, 9});
  dx.copy_from(x);
  dt.copy_from(table);
  const C k(T(1.5), T(-2));
  for (const C s : {C(2, 1), C(T(-0.25), 3)}) {
    kernel.launch(Domain{5, 9}, s, k, dx, dt, dy, dr);
    const std::vector<C> y = dy.to_vector<C>();
    const std::vector<T> r = dr.to_vector<T>();
    for (std::size_t i = 0; i < n; ++i) {
      C expected = x[i] * s + table[1] / k - std::conj(x[i]) * T(2) + T(1);
      expected -= x[i] / (table[0] + s);
      expect_near(y[i], expected, tolerance);
      const T r_expected =
          std::abs(x[i]) + std::norm(s) + expected.real() - k.imag() + x[i].real() * x[i].imag();
      EXPECT_NEAR(r[i], r_expected, tolerance * (1 + std::abs(r_expected))) << i;
    }
  }
  // Both parts of the specialized value, exactly.
  const std::string source =
      kernel.stub_source(Domain{5, 9}, {C(1, 0), C(T(1.5), T(-2)), dx, dt, dy, dr});
  const std::string suffix = std::is_same_v<T, float> ? "f" : "";
  const std::string literal = std::string("stubjit::complex<") +
                              (std::is_same_v<T, float> ? "float" : "double") + ">((0x1.8p+0" +
                              suffix + "), (-0x1p+1" + suffix + "))";
  EXPECT_NE(source.find(literal), std::string::npos) << source;
}

TEST(ComplexTypes, ThroughScalarsProjectionAndBroadcast) {
  check_complex<float>(1e-5);
  check_complex<double>(1e-12);
}

// A complex<double> scalar takes a 16-byte slot: the scalars after it still arrive
// whole, whichever types sit around it.
TEST(ComplexTypes, SixteenByteScalarSlotsKeepTheirNeighbours) {
  Runtime runtime(test::cpu_memory_only_options());
  using Z = std::complex<double>;
  Kernel kernel = runtime.kernel({"slots",
                                  {scalar<float>("a"), scalar<Z>("z"), scalar<std::int8_t>("c"),
                                   scalar<Z>("w"), scalar<std::complex<float>>("v"), inout<Z>("y")},
                                  "y = z * a + w * double(c) + stubjit::complex<double>(v);"});
  Field dy = runtime.allocate<Z>({3});
  kernel.launch(Domain{3}, 2.0f, Z(1, -1), std::int8_t(-3), Z(0.5, 4), std::complex<float>(7, 8),
                dy);
  for (const Z& y : dy.to_vector<Z>()) {
    EXPECT_EQ(y, Z(2, -2) + Z(-1.5, -12) + Z(7, 8));
  }
}

// Each specialized complex<double> value (both of its words) is a stub of its own; a
// value seen before compiles nothing.
TEST(ComplexTypes, EachSpecializedValueHasItsOwnStub) {
  Runtime runtime(test::cpu_memory_only_options());
  using Z = std::complex<double>;
  Kernel kernel = runtime.kernel({"times", {specialized<Z>("k"), inout<Z>("y")}, "y = y * k;"});
  Field dy = runtime.allocate<Z>({4});
  dy.copy_from(std::vector<Z>(4, Z(1, 0)));
  EXPECT_TRUE(kernel.launch(Domain{4}, Z(0, 1), dy).compiled);
  EXPECT_TRUE(kernel.launch(Domain{4}, Z(0, 2), dy).compiled);  // differs in the high word
  EXPECT_FALSE(kernel.launch(Domain{4}, Z(0, 1), dy).compiled);
  for (const Z& y : dy.to_vector<Z>()) EXPECT_EQ(y, Z(0, -2));  // 1 * i * 2i * i
  EXPECT_EQ(runtime.counters().compiles, 2u);
}

// One 16-bit format converts to the other (through float); a complex compares with a
// real; abs is infinite when a part is, as std::abs (hypot) is, NaN or not.
TEST(ComplexTypes, ConversionsComparisonsAndInfiniteMagnitudes) {
  Runtime runtime(test::cpu_memory_only_options());
  using Z = std::complex<double>;
  Kernel kernel =
      runtime.kernel({"mixed",
                      {in<bfloat16>("b"), inout<float16>("h"), in<Z>("z"), inout<double>("a"),
                       inout<bool>("zero")},
                      "h = b;\na = abs(z);\nzero = z == 0.0 && 0.0 == z && !(z != 0.0);"});
  const std::vector<bfloat16> b = {bfloat16(1.0f), bfloat16::from_bits(0x4049) /* 3.140625 */,
                                   bfloat16::from_bits(0x477f) /* 65280 */,
                                   bfloat16::from_bits(0x4780) /* 65536: beyond float16 */};
  const double inf = INFINITY;
  const std::vector<Z> z = {Z(0, 0), Z(3, -4), Z(inf, NAN), Z(NAN, -inf)};
  Field db = runtime.allocate<bfloat16>({4});
  Field dh = runtime.allocate<float16>({4});
  Field dz = runtime.allocate<Z>({4});
  Field da = runtime.allocate<double>({4});
  Field dzero = runtime.allocate<bool>({4});
  db.copy_from(b);
  dz.copy_from(z);
  kernel.launch(Domain{4}, db, dh, dz, da, dzero);
  const std::vector<float16> h = dh.to_vector<float16>();
  const std::vector<double> a = da.to_vector<double>();
  const std::vector<bool> zero = dzero.to_vector<bool>();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(h[i].bits(),
              nearest_code(binary16_format, value_of_code(bfloat16_format, b[i].bits())))
        << i;
    EXPECT_EQ(a[i], std::abs(z[i])) << i;
    EXPECT_EQ(zero[i], i == 0) << i;
  }
  // The host types convert alike.
  EXPECT_EQ(float16(bfloat16::from_bits(0x4049)).bits(), nearest_code(binary16_format, 3.140625));
}

TEST(ComplexTypes, AMaskOfComplexIsRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  try {
    runtime.kernel({"masked", {mask<std::complex<float>>("m"), inout<float>("y")}, "y = 1;"});
    FAIL() << "a complex mask was accepted";
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("mask of complex<float>"), std::string::npos)
        << error.what();
  }
}

TEST(HalfTypes, AMaskOfFloat16FiltersItsZeros) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel kernel = runtime.kernel({"masked", {mask<float16>("m"), inout<float>("y")}, "y = m;"});
  const std::vector<float16> m = {float16(0.0f), float16(-0.0f), float16(2.5f), float16(0.0f)};
  Field dm = runtime.allocate<float16>({4});
  Field dy = runtime.allocate<float>({4});
  dm.copy_from(m);
  dy.copy_from(std::vector<float>(4, 9.0f));
  kernel.launch(Domain{4}, dm, dy);
  EXPECT_EQ(dy.to_vector<float>(), (std::vector<float>{9.0f, 9.0f, 2.5f, 9.0f}));
}

}  // namespace
}  // namespace stubjit
