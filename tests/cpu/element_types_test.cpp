// The element types beyond float, double, int32, int64 and uint32 (int8, uint8, int16,
// uint16, uint64, bool), each through a scalar, a specialized scalar, a projected field,
// a broadcast view and a written field, on the CPU backend, against the same arithmetic
// on the host. Narrow integers wrap on the way back into their type, as C++ converts.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

template <class T>
class ElementTypes : public ::testing::Test {};

using NewIntegers =
    ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::uint64_t>;
TYPED_TEST_SUITE(ElementTypes, NewIntegers);

// Values that reach both ends of T.
template <class T>
std::vector<T> values_of(std::size_t n) {
  std::vector<T> values(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (k % 7 == 0)
      values[k] = std::numeric_limits<T>::max();
    else if (k % 7 == 1)
      values[k] = std::numeric_limits<T>::min();
    else
      values[k] = static_cast<T>(k * 37 + 3);
  }
  return values;
}

TYPED_TEST(ElementTypes, ThroughScalarsProjectionAndBroadcast) {
  using T = TypeParam;
  Runtime runtime(test::cpu_memory_only_options());
  const ElementType type = element_type_v<T>;
  ASSERT_EQ(size_of(type), sizeof(T));
  // y = x + s + table(k % 4), then the kernel's specialized twin adds s twice.
  Kernel add = runtime.kernel({"add",
                               {scalar<T>("s"), in<T>("x"), in<T>("table", 1), inout<T>("y")},
                               "y = x + s + table(k % 4);",
                               "static const int k = 5;"});
  Kernel twice = runtime.kernel({"twice", {specialized<T>("s"), inout<T>("y")}, "y = y + s + s;"});
  const std::size_t n = 6 * 9;
  const std::vector<T> x = values_of<T>(n);
  const std::vector<T> table = {T(1), std::numeric_limits<T>::max(), T(7), T(2)};
  Field dx = runtime.allocate<T>({6, 9});
  Field dt = runtime.allocate<T>({4});
  Field dy = runtime.allocate<T>({6, 9});
  dx.copy_from(x);
  dt.copy_from(table);
  dy.copy_from(std::vector<T>(n, T(0)));
  for (const T s : {T(3), std::numeric_limits<T>::max(), std::numeric_limits<T>::min()}) {
    SCOPED_TRACE(std::to_string(+s));
    add.launch(Domain{6, 9}, s, dx, dt, dy);
    std::vector<T> expected(n);
    for (std::size_t k = 0; k < n; ++k) expected[k] = static_cast<T>(x[k] + s + table[1]);
    ASSERT_EQ(dy.to_vector<T>(), expected);
    twice.launch(Domain{6, 9}, s, dy);
    for (T& v : expected) v = static_cast<T>(v + s + s);
    ASSERT_EQ(dy.to_vector<T>(), expected);
  }
  // The specialized value is a literal of the stub: an end of T, exactly.
  const bool is_signed = std::numeric_limits<T>::is_signed;
  const T end = is_signed ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  const std::string literal = type == ElementType::i8    ? "(-128)"
                              : type == ElementType::i16 ? "(-32768)"
                              : type == ElementType::u8  ? "255"
                              : type == ElementType::u16 ? "65535"
                                                         : "18446744073709551615ULL";
  const std::string source = twice.stub_source(Domain{6, 9}, {end, dy});
  EXPECT_NE(source.find(" = " + literal + ";"), std::string::npos) << source;
}

TEST(ElementTypesBool, ThroughScalarsProjectionAndBroadcast) {
  Runtime runtime(test::cpu_memory_only_options());
  ASSERT_EQ(size_of(ElementType::boolean), sizeof(bool));
  Kernel pick = runtime.kernel(
      {"pick",
       {scalar<bool>("invert"), in<bool>("x"), in<bool>("table", 1), inout<bool>("y")},
       "y = (x != invert) || table(2);"});
  Kernel flip =
      runtime.kernel({"flip", {specialized<bool>("on"), inout<bool>("y")}, "if (on) y = !y;"});
  std::vector<bool> x(40);
  for (std::size_t k = 0; k < 40; ++k) x[k] = k % 3 == 0;
  Field dx = runtime.allocate<bool>({40});
  Field dt = runtime.allocate<bool>({3});
  Field dy = runtime.allocate<bool>({40});
  dx.copy_from(x);  // std::vector<bool> packs bits: copy_from unpacks them
  dt.copy_from(std::vector<bool>{true, true, false});
  for (const bool invert : {false, true}) {
    pick.launch(Domain{40}, invert, dx, dt, dy);
    std::vector<bool> y = dy.to_vector<bool>();
    for (std::size_t k = 0; k < 40; ++k) ASSERT_EQ(y[k], x[k] != invert) << k;
    flip.launch(Domain{40}, true, dy);
    flip.launch(Domain{40}, false, dy);
    y = dy.to_vector<bool>();
    for (std::size_t k = 0; k < 40; ++k) ASSERT_EQ(y[k], x[k] == invert) << k;
  }
  EXPECT_EQ(runtime.counters().compiles, 3u);  // pick, and flip for true and for false
}

// atomic_add converts a literal of another type to its target's: atomic_add(total, 1)
// on an int64 total compiles (the value is not deduced from the literal).
TEST(ElementTypesAtomics, ALiteralOfAnotherTypeIsConverted) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel count = runtime.kernel(
      {"count",
       {inout<std::int64_t>("total", 1), inout<std::uint64_t>("big", 1), inout<double>("sum", 1)},
       "stubjit::atomic_add(total(0), 1);\n"
       "stubjit::atomic_add(big(0), 2);\n"
       "stubjit::atomic_add(sum(0), 1);"});
  Field total = runtime.allocate<std::int64_t>({1});
  Field big = runtime.allocate<std::uint64_t>({1});
  Field sum = runtime.allocate<double>({1});
  total.copy_from(std::vector<std::int64_t>{-5});
  big.copy_from(std::vector<std::uint64_t>{std::uint64_t(1) << 40});
  sum.copy_from(std::vector<double>{0.5});
  count.launch(Domain{1000}, total, big, sum);
  EXPECT_EQ(total.to_vector<std::int64_t>()[0], 995);
  EXPECT_EQ(big.to_vector<std::uint64_t>()[0], (std::uint64_t(1) << 40) + 2000);
  EXPECT_EQ(sum.to_vector<double>()[0], 1000.5);
}

}  // namespace
}  // namespace stubjit
