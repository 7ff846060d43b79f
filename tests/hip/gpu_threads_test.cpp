// On an AMD GPU: stubjit used from a thread other than the one that opened the
// runtime works and leaves that thread's current device as the application selected
// it; a synchronous copy after a launch on a stream sees the launch's results without
// the stream being synchronized first.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "common/kernels.hpp"
#include "common/runtime_workout.hpp"
#include "common/stream_order.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

int current_device() {
  int device = -1;
  EXPECT_EQ(test::hip_runtime_for_tests().get_device(&device), 0);
  return device;
}

// Uses `runtime` for everything and checks after every call that the thread's
// current device is still `expected`.
void use_runtime_expecting_device(Runtime& runtime, int expected) {
  test::workout_checking_after_each_call(runtime, [&](const char* after) {
    EXPECT_EQ(current_device(), expected) << "after " << after;
  });
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
