// The narrow integers, uint64, bool, float16, bfloat16 and complex through the real
// CUDA and HIP stubs on the host emulator: a scalar, a specialized scalar, a projected
// field, a broadcast view and a written field, against the same arithmetic on the
// host. The emulator runs the prelude's float16 conversions in integer arithmetic
// (STUBJIT_SOFTWARE_HALF), the path no other backend here takes.
#include <gtest/gtest.h>

#include <complex>
#include <limits>
#include <memory>

#include "common/half_reference.hpp"

#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;

class EmulatedTypes : public ::testing::TestWithParam<Config> {
 protected:
  Runtime runtime() {
    RuntimeOptions options;
    options.backend = test::emulator::backend_name(GetParam());
    options.disk_cache = false;
    return Runtime(options);
  }

  // y = x + s + table(1) + k, narrowed to T as C++ converts.
  template <class T>
  void check_integer() {
    SCOPED_TRACE(name_of(element_type_v<T>));
    Runtime rt = runtime();
    Kernel add = rt.kernel(
        {"add",
         {scalar<T>("s"), specialized<T>("k"), in<T>("x"), in<T>("table", 1), inout<T>("y")},
         "y = x + s + table(1) + k;"});
    const std::size_t n = 50;
    std::vector<T> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = i % 5 == 0 ? std::numeric_limits<T>::max() : static_cast<T>(i * 29 + 1);
    const std::vector<T> table = {T(0), std::numeric_limits<T>::max()};
    Field dx = rt.allocate<T>({5, 10});
    Field dt = rt.allocate<T>({2});
    Field dy = rt.allocate<T>({5, 10});
    dx.copy_from(x);
    dt.copy_from(table);
    const T s = std::numeric_limits<T>::min(), k = T(3);
    add.launch(Domain{5, 10}, s, k, dx, dt, dy);
    std::vector<T> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<T>(x[i] + s + table[1] + k);
    EXPECT_EQ(dy.to_vector<T>(), expected);
  }
};

TEST_P(EmulatedTypes, NarrowIntegersUint64AndBool) {
  check_integer<std::int8_t>();
  check_integer<std::uint8_t>();
  check_integer<std::int16_t>();
  check_integer<std::uint16_t>();
  check_integer<std::uint64_t>();

  Runtime rt = runtime();
  Kernel pick = rt.kernel(
      {"pick",
       {specialized<bool>("invert"), in<bool>("x"), in<bool>("table", 1), inout<bool>("y")},
       "y = (x != invert) || table(0);"});
  std::vector<bool> x(30);
  for (std::size_t i = 0; i < 30; ++i) x[i] = i % 4 == 1;
  Field dx = rt.allocate<bool>({30});
  Field dt = rt.allocate<bool>({1});
  Field dy = rt.allocate<bool>({30});
  dx.copy_from(x);
  dt.copy_from(std::vector<bool>{false});
  for (const bool invert : {false, true}) {
    pick.launch(Domain{30}, invert, dx, dt, dy);
    const std::vector<bool> y = dy.to_vector<bool>();
    for (std::size_t i = 0; i < 30; ++i) EXPECT_EQ(y[i], x[i] != invert) << i;
  }
}

// Every float16 code to float and back through the stub, and y = x * s + table(1) + k
// rounded once (quarter values: the float arithmetic is exact).
TEST_P(EmulatedTypes, Float16AndBfloat16) {
  Runtime rt = runtime();
  std::vector<float16> codes(65536);
  for (std::uint32_t code = 0; code <= 0xffff; ++code)
    codes[code] = float16::from_bits(static_cast<std::uint16_t>(code));
  Field dh = rt.allocate<float16>({65536});
  Field df = rt.allocate<float>({65536});
  Field back = rt.allocate<float16>({65536});
  dh.copy_from(codes);
  Kernel round_trip = rt.kernel({"round_trip",
                                 {in<float16>("h"), inout<float>("f"), inout<float16>("again")},
                                 "f = h;\nagain = f * 3.0f;"});
  round_trip.launch(Domain{65536}, dh, df, back);
  const std::vector<float> f = df.to_vector<float>();
  const std::vector<float16> again = back.to_vector<float16>();
  for (std::uint32_t code = 0; code <= 0xffff; ++code) {
    const double value = test::value_of_code(test::binary16_format, std::uint16_t(code));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(f[code])) << code;
      EXPECT_TRUE(std::isnan(test::value_of_code(test::binary16_format, again[code].bits())))
          << code;  // NaN times 3, back to float16: still a NaN code
      continue;
    }
    ASSERT_EQ(f[code], value) << code;
    ASSERT_EQ(again[code].bits(), test::nearest_code(test::binary16_format, value * 3)) << code;
  }

  Kernel scaled = rt.kernel({"scaled",
                             {scalar<bfloat16>("s"), specialized<bfloat16>("k"), in<bfloat16>("x"),
                              in<bfloat16>("table", 1), inout<bfloat16>("y")},
                             "y = x * s + table(1) + k;"});
  std::vector<bfloat16> x(40);
  for (std::size_t i = 0; i < 40; ++i) x[i] = bfloat16(float(int(i * 37 % 255) - 127) / 4);
  Field dx = rt.allocate<bfloat16>({4, 10});
  Field dt = rt.allocate<bfloat16>({2});
  Field dy = rt.allocate<bfloat16>({4, 10});
  dx.copy_from(x);
  dt.copy_from(std::vector<bfloat16>{bfloat16(1.0f), bfloat16(-3.25f)});
  scaled.launch(Domain{4, 10}, bfloat16(17.25f), bfloat16(0.75f), dx, dt, dy);
  const std::vector<bfloat16> y = dy.to_vector<bfloat16>();
  for (std::size_t i = 0; i < 40; ++i) {
    const double exact = double(float(x[i])) * 17.25 - 3.25 + 0.75;
    EXPECT_EQ(y[i].bits(), test::nearest_code(test::bfloat16_format, exact)) << i;
  }
}

TEST_P(EmulatedTypes, ComplexFloatAndDouble) {
  Runtime rt = runtime();
  using C = std::complex<float>;
  using Z = std::complex<double>;
  Kernel mix = rt.kernel({"mix",
                          {scalar<Z>("z"), specialized<C>("k"), in<C>("x"), in<Z>("table", 1),
                           inout<Z>("y"), inout<double>("r")},
                          "const stubjit::complex<double> wide(x);\n"
                          "y = wide * z + table(1) / stubjit::complex<double>(k) - 1;\n"
                          "r = abs(wide) + norm(conj(y));"});
  std::vector<C> x(30);
  for (std::size_t i = 0; i < 30; ++i) x[i] = C(float(int(i % 7) - 3), float(int(i % 5)) / 2);
  Field dx = rt.allocate<C>({3, 10});
  Field dt = rt.allocate<Z>({2});
  Field dy = rt.allocate<Z>({3, 10});
  Field dr = rt.allocate<double>({3, 10});
  dx.copy_from(x);
  dt.copy_from(std::vector<Z>{Z(0, 0), Z(4, -2)});
  const Z z(0.5, -1.5);
  const C k(2, 1);
  mix.launch(Domain{3, 10}, z, k, dx, dt, dy, dr);
  const std::vector<Z> y = dy.to_vector<Z>();
  const std::vector<double> r = dr.to_vector<double>();
  for (std::size_t i = 0; i < 30; ++i) {
    const Z wide(x[i]);
    const Z expected = wide * z + Z(4, -2) / Z(k) - 1.0;
    EXPECT_NEAR(y[i].real(), expected.real(), 1e-12) << i;
    EXPECT_NEAR(y[i].imag(), expected.imag(), 1e-12) << i;
    EXPECT_NEAR(r[i], std::abs(wide) + std::norm(expected), 1e-11) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedTypes,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
