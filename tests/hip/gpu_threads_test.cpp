// On an AMD GPU: stubjit used from a thread other than the one that opened the
// runtime works and leaves that thread's current device as the application selected
// it; a synchronous copy after a launch on a stream sees the launch's results without
// the stream being synchronized first.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "common/kernels.hpp"
#include "common/stream_order.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

int current_device() {
  int device = -1;
  EXPECT_EQ(test::hip_runtime_for_tests().get_device(&device), 0);
  return device;
}

// Allocates, copies, launches and synchronizes on `runtime`; checks the results and,
// after every call, that the thread's current device is still `expected`.
void use_runtime_expecting_device(Runtime& runtime, int expected) {
  const auto still = [&](const char* after) {
    EXPECT_EQ(current_device(), expected) << "after " << after;
  };
  const std::int64_t n = 4096;
  std::vector<float> x(n), y(n, 1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  Field fx = runtime.allocate<float>({n});
  still("allocate");
  Field fy = runtime.allocate<float>({n});
  fx.copy_from(x);
  still("copy_from");
  fy.copy_from(y);
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  saxpy.launch(Domain{n}, 2.0f, fx, fy);
  still("launch (compile and load)");
  saxpy.launch(Domain{n}, 2.0f, fx, fy);
  still("launch");
  const std::vector<float> out = fy.to_vector<float>();
  still("to_vector");
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 4.0f * x[i] + 1.0f) << i;
  Stream stream = runtime.create_stream();
  still("create_stream");
  std::vector<float> back(n, 0.0f);
  fy.copy_to_async(back.data(), back.size(), stream);
  still("copy_to_async");
  stream.synchronize();
  still("Stream::synchronize");
  EXPECT_EQ(back, out);
  runtime.synchronize();
  still("Runtime::synchronize");
}

TEST(HipThreads, LaunchesAndCopiesFromAnotherThread) {
  HIP_RUNTIME_OR_SKIP(runtime);
  std::thread application([&] { use_runtime_expecting_device(runtime, current_device()); });
  application.join();
}

TEST(HipThreads, TheApplicationsDeviceStaysSelected) {
  HIP_RUNTIME_OR_SKIP(runtime);  // device 0
  std::string why;
  if (test::hip_device_count(why) < 2)
    GTEST_SKIP() << "needs two AMD GPUs (the application on device 1)";
  std::thread application([&] {
    ASSERT_EQ(test::hip_runtime_for_tests().set_device(1), 0);  // the application's choice
    use_runtime_expecting_device(runtime, 1);
  });
  application.join();
  // Opening a runtime (device queries included) leaves the opening thread's choice.
  ASSERT_EQ(test::hip_runtime_for_tests().set_device(1), 0);
  HIP_RUNTIME_OR_SKIP(second);
  EXPECT_EQ(second.backend_name(), "hip");
  EXPECT_EQ(current_device(), 1) << "after opening a runtime on device 0";
  test::hip_runtime_for_tests().set_device(0);
}

TEST(HipGpu, SynchronousCopiesWaitForLaunchesOnAStream) {
  HIP_RUNTIME_OR_SKIP(runtime);
  test::expect_copy_after_stream_launch_sees_results(runtime);
}

}  // namespace
}  // namespace stubjit
