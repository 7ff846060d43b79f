// Specialized scalars (stubjit::specialized<T>) on the CPU backend, end to end: each
// value is a stub of its own that holds the value as a constant, a value seen before
// compiles nothing, the constant is exact (floats bit for bit, integer extremes), a
// value without a literal (NaN, infinity) still gives the right result, and a
// signature that marks what cannot be specialized is refused before anything compiles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

// These tests count compiles.
RuntimeOptions memory_only() { return test::cpu_memory_only_options(); }

template <class T>
std::vector<T> values(const Field& field, std::size_t n) {
  std::vector<T> out(n);
  field.copy_to(out.data(), n);
  return out;
}

template <class T>
std::uint64_t bits_of(T value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}

// A loop bounded by the specialized value, on integers (exact on both sides).
KernelSource horner_kernel(bool specialize) {
  return {"horner",
          {specialize ? specialized<std::int32_t>("degree") : scalar<std::int32_t>("degree"),
           in<std::int32_t>("x"), inout<std::int32_t>("y")},
          "stubjit::i32 acc = 0;\n"
          "for (stubjit::i32 k = 0; k <= degree; ++k) acc = acc * 3 + x;\n"
          "y = acc;",
          "",
          {}};
}

std::int32_t horner_by_hand(std::int32_t degree, std::int32_t x) {
  std::int32_t acc = 0;  // the tests keep |acc| far below 2^31
  for (std::int32_t k = 0; k <= degree; ++k) acc = acc * 3 + x;
  return acc;
}

TEST(Specialize, EachValueIsAStubOfItsOwnAndAValueSeenBeforeCompilesNothing) {
  Runtime runtime(memory_only());
  Kernel horner = runtime.kernel(horner_kernel(true));
  const std::size_t n = 6 * 7 * 9;
  std::vector<std::int32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(i % 11) - 5;
  Field fx = runtime.allocate<std::int32_t>({6, 7, 9});
  Field fy = runtime.allocate<std::int32_t>({6, 7, 9});
  fx.copy_from(x);
  const auto expect = [&](std::int32_t degree) {
    std::vector<std::int32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = horner_by_hand(degree, x[i]);
    EXPECT_EQ(values<std::int32_t>(fy, n), want) << "degree " << degree;
  };
  const Domain domain{6, 7, 9};
  EXPECT_TRUE(horner.launch(domain, std::int32_t(3), fx, fy).compiled);
  expect(3);
  EXPECT_TRUE(horner.launch(domain, std::int32_t(5), fx, fy).compiled);
  expect(5);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_FALSE(horner.launch(domain, std::int32_t(3), fx, fy).compiled);
  expect(3);
  EXPECT_EQ(runtime.counters().compiles, 2u);
  // In every mode the planner can take: each its own stub, each right.
  for (Mode mode : {Mode::spread, Mode::multi}) {
    LaunchOptions options;
    options.mode = mode;
    horner.launch(options, domain, std::int32_t(4), fx, fy);
    expect(4);
  }
}

TEST(Specialize, TheStubHoldsTheValueAndNotAReadOfIt) {
  Runtime runtime(memory_only());
  Field fx = runtime.allocate<std::int32_t>({16});
  Field fy = runtime.allocate<std::int32_t>({16});
  const std::vector<Arg> args{std::int32_t(7), fx, fy};
  const std::string specialized_source =
      runtime.kernel(horner_kernel(true)).stub_source(Domain{16}, args);
  EXPECT_NE(specialized_source.find(" = (7);"), std::string::npos) << specialized_source;
  EXPECT_EQ(specialized_source.find("= stubjit_args.degree;"), std::string::npos);
  const std::string generic_source =
      runtime.kernel(horner_kernel(false)).stub_source(Domain{16}, args);
  EXPECT_NE(generic_source.find("= stubjit_args.degree;"), std::string::npos);
  EXPECT_EQ(generic_source.find(" = (7);"), std::string::npos);
  // stub_source compiles nothing.
  EXPECT_EQ(runtime.counters().compiles, 0u);
}

// `y = c;` stores the compiled-in constant: its bits must be the argument's.
template <class T>
void expect_stored_exactly(Runtime& runtime, T value, const std::string& literal) {
  Kernel store = runtime.kernel({"store_" + std::string(name_of(element_type_v<T>)),
                                 {specialized<T>("c"), inout<T>("y")},
                                 "y = c;",
                                 "",
                                 {}});
  Field fy = runtime.allocate<T>({5});
  fy.copy_from(std::vector<T>(5, T(1)));
  const std::vector<Arg> args{value, fy};
  const std::string source = store.stub_source(Domain{5}, args);
  if (!literal.empty()) {
    EXPECT_NE(source.find(" = " + literal + ";"), std::string::npos) << literal << "\n" << source;
  }
  store.launch_args(Domain{5}, args.data(), args.size());
  for (T got : values<T>(fy, 5)) EXPECT_EQ(bits_of(got), bits_of(value)) << literal;
}

TEST(Specialize, ConstantsAreExact) {
  Runtime runtime(memory_only());
  expect_stored_exactly<float>(runtime, 0.1f, "(0x1.99999ap-4f)");
  expect_stored_exactly<float>(runtime, -0.0f, "(-0x0p+0f)");
  expect_stored_exactly<float>(runtime, std::numeric_limits<float>::denorm_min(), "(0x1p-149f)");
  expect_stored_exactly<float>(runtime, std::numeric_limits<float>::max(), "(0x1.fffffep+127f)");
  expect_stored_exactly<double>(runtime, 0.1, "(0x1.999999999999ap-4)");
  expect_stored_exactly<double>(runtime, -std::numeric_limits<double>::denorm_min(),
                                "(-0x1p-1074)");
  expect_stored_exactly<std::int32_t>(runtime, std::numeric_limits<std::int32_t>::min(),
                                      "(-2147483647 - 1)");
  expect_stored_exactly<std::int32_t>(runtime, std::numeric_limits<std::int32_t>::max(),
                                      "(2147483647)");
  expect_stored_exactly<std::int64_t>(runtime, std::numeric_limits<std::int64_t>::min(),
                                      "(-9223372036854775807LL - 1)");
  expect_stored_exactly<std::int64_t>(runtime, -42, "(-42LL)");
  expect_stored_exactly<std::uint32_t>(runtime, std::numeric_limits<std::uint32_t>::max(),
                                       "4294967295u");
}

// A value that has no literal is read from the arguments, as if not specialized: the
// result is the same, and it is still a stub of its own.
TEST(Specialize, InfinityAndNanAreReadNotFolded) {
  Runtime runtime(memory_only());
  Kernel scale =
      runtime.kernel({"scale", {specialized<float>("c"), inout<float>("y")}, "y = y * c;", "", {}});
  Field fy = runtime.allocate<float>({4});
  for (float c :
       {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    fy.copy_from(std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f});
    const std::vector<Arg> args{c, fy};
    EXPECT_NE(scale.stub_source(Domain{4}, args).find("= stubjit_args.c;"), std::string::npos);
    EXPECT_TRUE(scale.launch_args(Domain{4}, args.data(), args.size()).compiled);
    const std::vector<float> got = values<float>(fy, 4);
    if (std::isnan(c)) {
      for (float v : got) EXPECT_TRUE(std::isnan(v));
    } else {
      EXPECT_EQ(got, (std::vector<float>{c, -c, c, c}));
    }
  }
}

TEST(Specialize, OnlyScalarsAndAtMostEight) {
  Runtime runtime(memory_only());
  Param field_marked = in<float>("x");
  field_marked.specialized = true;
  try {
    runtime.kernel({"bad", {field_marked, inout<float>("y")}, "y = x;", "", {}});
    FAIL() << "a specialized field was accepted";
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("parameter 'x' is marked specialized; only scalar"),
              std::string::npos)
        << error.what();
  }
  Signature nine;
  std::string body = "y = 0";
  for (int i = 0; i < 9; ++i) {
    nine.push_back(specialized<std::int32_t>("s" + std::to_string(i)));
    body += " + s" + std::to_string(i);
  }
  nine.push_back(inout<std::int32_t>("y"));
  try {
    runtime.kernel({"nine", nine, body + ";", "", {}});
    FAIL() << "nine specialized parameters were accepted";
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("'s8' is specialized parameter 9; at most 8"),
              std::string::npos)
        << error.what();
  }
  nine.erase(nine.begin() + 8);  // eight are fine
  Kernel eight =
      runtime.kernel({"eight", nine, "y = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;", "", {}});
  Field fy = runtime.allocate<std::int32_t>({3});
  eight.launch(Domain{3}, std::int32_t(1), std::int32_t(2), std::int32_t(3), std::int32_t(4),
               std::int32_t(5), std::int32_t(6), std::int32_t(7), std::int32_t(8), fy);
  EXPECT_EQ(values<std::int32_t>(fy, 3), std::vector<std::int32_t>(3, 36));
  EXPECT_EQ(runtime.counters().compiles, 1u);  // the refused ones compiled nothing
}

}  // namespace
}  // namespace stubjit
