#include <gtest/gtest.h>

#include <cstring>

#include "bind/arg_layout.hpp"
#include "bind/bind.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

TEST(ArgLayout, SlotsAreEightByteAlignedInSignatureOrder) {
  const Signature signature = {scalar<float>("a"), index("i"), in<double>("x", 1),
                               inout<float>("y")};
  const std::vector<Binding> bindings = {Binding::scalar, Binding::index, Binding::projection,
                                         Binding::projection};
  const ArgLayout layout = arg_layout(signature, bindings, 2);
  EXPECT_EQ(layout.offset[0], 0u);
  EXPECT_EQ(layout.offset[2], 8u);               // after the scalar; index takes none
  EXPECT_EQ(layout.offset[3], 8u + 8 + 16 * 3);  // x: rank 1 param over rank 2 = rank 3
  EXPECT_EQ(layout.size, 8u + 56 + 8 + 16 * 2);
  EXPECT_EQ(arg_layout({index("i")}, {Binding::index}, 1).size, 8u);  // never empty
}

TEST(Bind, PacksScalarsAndFieldDescriptors) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  std::vector<float> x(12), y(12);
  const Field fx = runtime.wrap(static_cast<const float*>(x.data()), {3, 4});
  const Field fy = runtime.wrap(y.data(), {3, 4});
  const Signature signature = {scalar<float>("a"), in<float>("x"), inout<float>("y")};
  const Arg args[] = {2.5f, fx, fy};
  BoundArgs bound;
  bind_arguments(signature, Domain{3, 4}, args, 3, fy.owner(), bound);
  ASSERT_TRUE(bound.bindings ==
              BindingList({Binding::scalar, Binding::projection, Binding::projection}));
  ASSERT_EQ(bound.packed.size(), 88u);
  float a = 0;
  std::memcpy(&a, bound.packed.data(), sizeof a);
  EXPECT_EQ(a, 2.5f);
  const float* x_data = nullptr;
  std::int64_t x_desc[4];
  std::memcpy(&x_data, bound.packed.data() + 8, 8);
  std::memcpy(x_desc, bound.packed.data() + 16, 32);
  EXPECT_EQ(x_data, x.data());
  EXPECT_EQ(x_desc[0], 3);  // extents
  EXPECT_EQ(x_desc[1], 4);
  EXPECT_EQ(x_desc[2], 4);  // row-major strides
  EXPECT_EQ(x_desc[3], 1);
  EXPECT_TRUE(bound.fits_int32);
}

TEST(Bind, LargeFieldsRuleOutThe32BitIndex) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  float element = 0;
  // A wrapped 1-element view whose stride reaches past int32 (never dereferenced).
  const Field far = runtime.wrap(&element, {2}, {std::int64_t(1) << 31});
  const Signature signature = {in<float>("x", 1)};
  const Arg args[] = {far};
  BoundArgs bound;
  bind_arguments(signature, Domain{4}, args, 1, far.owner(), bound);
  EXPECT_EQ(bound.bindings[0], Binding::broadcast);
  EXPECT_FALSE(bound.fits_int32);
}

TEST(Bind, The32BitIndexNeedsEveryNarrowedValueToFit) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  const Signature index_only = {index("i")};
  BoundArgs bound;
  const auto fits = [&](const Domain& domain) {
    bind_arguments(index_only, domain, nullptr, 0, nullptr, bound);
    return bound.fits_int32;
  };
  EXPECT_TRUE(fits(Domain{1000, 1000}));
  constexpr std::int64_t max32 = 2147483647;
  // Both ends fit, but the step does not: i32(step) would be truncated.
  EXPECT_FALSE(fits(Domain({Dim{-max32, 2, 4294967294}})));
  // One index whose step alone is beyond int32.
  EXPECT_FALSE(fits(Domain({Dim{0, 1, std::int64_t(1) << 40}})));
  // Ends fit, the distance between them does not: step * position overflows.
  EXPECT_FALSE(fits(Domain({Dim{max32, 3, -max32}})));
  EXPECT_TRUE(fits(Domain({Dim{max32, 2, -max32}})));

  // A stride-0 view reaches one element but has 10^10 of them: View::size() would
  // overflow an int32.
  std::int32_t element = 0;
  const Field huge_view = runtime.wrap(&element, {100000, 100000}, {0, 0});
  const Signature broadcast = {in<std::int32_t>("v", 2)};
  const Arg args[] = {huge_view};
  bind_arguments(broadcast, Domain{4}, args, 1, huge_view.owner(), bound);
  EXPECT_FALSE(bound.fits_int32);
  const Field small_view = runtime.wrap(&element, {1000, 1000}, {0, 0});
  const Arg small_args[] = {small_view};
  bind_arguments(broadcast, Domain{4}, small_args, 1, small_view.owner(), bound);
  EXPECT_TRUE(bound.fits_int32);
}

}  // namespace
}  // namespace stubjit::detail
