// Field copies on a stream: the CPU backend runs them synchronously, in order with
// the launches on the same stream; misuse is a FieldError.
#include <gtest/gtest.h>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

TEST(AsyncCopy, RoundTripWithALaunchOnTheSameStream) {
  Runtime runtime(test::cpu_options());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::vector<float> x = {1, 2, 3, 4, 5};
  const std::vector<float> y = {10, 20, 30, 40, 50};
  std::vector<float> out(5, 0.0f);
  Field fx = runtime.allocate<float>({5});
  Field fy = runtime.allocate<float>({5});
  Stream stream = runtime.create_stream();
  fx.copy_from_async(x.data(), x.size(), stream);
  fy.copy_from_async(y.data(), y.size(), stream);
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  saxpy.launch(on_stream, Domain{5}, 2.0f, fx, fy);
  fy.copy_to_async(out.data(), out.size(), stream);
  stream.synchronize();
  EXPECT_EQ(out, (std::vector<float>{12, 24, 36, 48, 60}));
}

TEST(AsyncCopy, MisuseIsAFieldError) {
  Runtime runtime(test::cpu_options());
  Runtime other(test::cpu_options());
  Field field = runtime.allocate<float>({4});
  std::vector<float> host(4, 1.0f);
  Stream stream = runtime.create_stream();
  EXPECT_THROW(field.copy_from_async(host.data(), host.size(), Stream{}), FieldError);
  EXPECT_THROW(field.copy_from_async(host.data(), host.size(), other.create_stream()), FieldError);
  EXPECT_THROW(field.copy_from_async(host.data(), 3, stream), FieldError);
  std::vector<double> wrong(4, 1.0);
  EXPECT_THROW(field.copy_to_async(wrong.data(), wrong.size(), stream), FieldError);
  const std::vector<float> values = {1, 2, 3, 4};
  Field read_only = runtime.wrap(values.data(), {4});
  EXPECT_THROW(read_only.copy_from_async(host.data(), host.size(), stream), FieldError);
  Field transposed = runtime.wrap(host.data(), {2, 2}, {1, 3});  // gaps: not dense
  std::vector<float> two_by_two(4);
  EXPECT_THROW(transposed.copy_to_async(two_by_two.data(), 4, stream), FieldError);
  try {
    Field().copy_to_async(two_by_two.data(), 4, stream);
    FAIL();
  } catch (const FieldError& error) {
    EXPECT_NE(std::string(error.what()).find("null field"), std::string::npos);
  }
}

}  // namespace
}  // namespace stubjit
