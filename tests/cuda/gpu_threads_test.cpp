// On a CUDA GPU: stubjit used from a thread other than the one that opened the
// runtime leaves that thread's current context as the application set it; a
// synchronous copy after a launch on a stream sees the launch's results without the
// stream being synchronized first.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "common/kernels.hpp"
#include "common/runtime_workout.hpp"
#include "common/stream_order.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

// The context current on the calling thread, as the driver reports it.
void* current_context() {
  void* context = nullptr;
  test::cuda_driver_for_tests().ctx_get_current(&context);
  return context;
}

// Uses `runtime` for everything and checks after every call that the thread's
// current context is still `expected`.
void use_runtime_expecting_context(Runtime& runtime, void* expected) {
  test::workout_checking_after_each_call(runtime, [&](const char* after) {
    EXPECT_EQ(current_context(), expected) << "after " << after;
  });
}

TEST(CudaContext, AnotherThreadWithoutAContextKeepsNone) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  const test::CudaDriverForTests& driver = test::cuda_driver_for_tests();
  ASSERT_TRUE(driver.ctx_get_current && driver.ctx_set_current);
  std::thread application([&] {
    ASSERT_EQ(driver.ctx_set_current(nullptr), 0);
    use_runtime_expecting_context(*runtime, nullptr);
    // A runtime opened on this thread leaves it without a context as well.
    RuntimeOptions options;
    options.backend = "cuda";
    Runtime second(options);
    EXPECT_EQ(current_context(), nullptr) << "after opening a runtime";
    use_runtime_expecting_context(second, nullptr);
  });
  application.join();
}

// Needs a second device; gpu-check.sh accepts the CudaTwoDevices suite skipping on a
// machine with one.
TEST(CudaTwoDevices, TheApplicationsDeviceStaysCurrent) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  const test::CudaDriverForTests& driver = test::cuda_driver_for_tests();
  int count = 0;
  ASSERT_EQ(driver.device_get_count(&count), 0);
  if (count < 2) GTEST_SKIP() << "needs two CUDA devices (the application on device 1)";
  std::thread application([&] {
    int device1 = 0;
    void* context1 = nullptr;
    ASSERT_EQ(driver.device_get(&device1, 1), 0);
    ASSERT_EQ(driver.primary_ctx_retain(&context1, device1), 0);
    ASSERT_EQ(driver.ctx_set_current(context1), 0);     // what cudaSetDevice(1) does
    use_runtime_expecting_context(*runtime, context1);  // the runtime is on device 0
    driver.ctx_set_current(nullptr);
    driver.primary_ctx_release(device1);
  });
  application.join();
}

TEST(CudaMemory, SynchronousCopiesWaitForLaunchesOnAStream) {
  CUDA_RUNTIME_OR_SKIP(runtime, RuntimeOptions{});
  test::expect_copy_after_stream_launch_sees_results(*runtime);
}

}  // namespace
}  // namespace stubjit
