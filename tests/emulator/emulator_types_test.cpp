// The narrow integers, uint64 and bool through the real CUDA and HIP stubs on the host
// emulator: a scalar, a specialized scalar, a projected field, a broadcast view and a
// written field, against the same arithmetic on the host.
#include <gtest/gtest.h>

#include <limits>
#include <memory>

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

INSTANTIATE_TEST_SUITE_P(Emulators, EmulatedTypes,
                         ::testing::ValuesIn(test::emulator::configs_without_sanitizer()),
                         test::emulator::ConfigName());

}  // namespace
}  // namespace stubjit
