// For the GPU suite: a CUDA runtime; a skip that says why when there is no CUDA
// device; a failure when there is one and stubjit cannot use it.
//
// Whether a device is there is asked of the driver itself, not of stubjit (whose
// failures are what this suite exists to find): the suite skips only when the driver
// library stubjit would load (STUBJIT_CUDA_DRIVER_PATH, else libcuda.so.1) is absent,
// or when it reports no device (cuInit or cuDeviceGetCount answering
// CUDA_ERROR_NO_DEVICE, or a count of 0). Anything else that keeps stubjit from opening
// the device and allocating on it fails the test.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// The few driver calls the suite makes itself, from the library stubjit loads.
struct CudaDriverForTests {
  void* handle = nullptr;
  int (*init)(unsigned) = nullptr;
  int (*device_get_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*primary_ctx_retain)(void**, int) = nullptr;
  int (*primary_ctx_release)(int) = nullptr;
  int (*ctx_get_current)(void**) = nullptr;
  int (*ctx_set_current)(void*) = nullptr;
  std::string problem;  // why the library could not be opened, when it could not
};

inline const CudaDriverForTests& cuda_driver_for_tests() {
  static const CudaDriverForTests driver = [] {
    CudaDriverForTests d;
    const char* override_path = std::getenv("STUBJIT_CUDA_DRIVER_PATH");
    const std::string path = override_path && *override_path ? override_path : "libcuda.so.1";
    d.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) {
      const char* error = ::dlerror();
      d.problem = error ? error : path + ": cannot be opened";
      return d;
    }
    const auto find = [&](auto& function, const char* name) {
      function =
          reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(d.handle, name));
    };
    find(d.init, "cuInit");
    find(d.device_get_count, "cuDeviceGetCount");
    find(d.device_get, "cuDeviceGet");
    find(d.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    find(d.primary_ctx_release, "cuDevicePrimaryCtxRelease_v2");
    find(d.ctx_get_current, "cuCtxGetCurrent");
    find(d.ctx_set_current, "cuCtxSetCurrent");
    return d;
  }();
  return driver;
}

enum class CudaPresence { device, no_device };

// no_device (with `why`) only for an absent driver library or a driver that reports
// no device; `device` otherwise, also for a driver that fails in any other way.
inline CudaPresence cuda_presence(std::string& why) {
  constexpr int no_device = 100;  // CUDA_ERROR_NO_DEVICE
  const CudaDriverForTests& driver = cuda_driver_for_tests();
  if (!driver.handle) {
    why = "no CUDA driver library (" + driver.problem + ")";
    return CudaPresence::no_device;
  }
  if (!driver.init || !driver.device_get_count) return CudaPresence::device;  // stubjit says why
  if (driver.init(0) == no_device) {
    why = "the CUDA driver reports no device (cuInit: CUDA_ERROR_NO_DEVICE)";
    return CudaPresence::no_device;
  }
  int count = 0;
  const int r = driver.device_get_count(&count);
  if (r == no_device || (r == 0 && count == 0)) {
    why = "the CUDA driver reports no device (cuDeviceGetCount)";
    return CudaPresence::no_device;
  }
  return CudaPresence::device;
}

enum class CudaOpened { ok, no_device, broken };

// A runtime on the CUDA backend that could allocate; or no_device (skip) or broken
// (fail), with `why` set.
inline CudaOpened open_cuda(RuntimeOptions options, std::unique_ptr<Runtime>& runtime,
                            std::string& why) {
  if (cuda_presence(why) == CudaPresence::no_device) return CudaOpened::no_device;
  options.backend = "cuda";
  try {
    runtime = std::make_unique<Runtime>(options);
    // Compile-only (STUBJIT_CUDA_ARCH without a usable device) refuses to allocate.
    runtime->allocate<float>({1});
    return CudaOpened::ok;
  } catch (const Error& error) {
    runtime.reset();
    why = error.what();
    return CudaOpened::broken;
  }
}

}  // namespace stubjit::test

// Declares `runtime` (a std::unique_ptr<Runtime>); skips the test when there is no CUDA
// device, fails it when there is one that stubjit cannot open or allocate on.
#define CUDA_RUNTIME_OR_SKIP(runtime, options)                                              \
  std::unique_ptr<::stubjit::Runtime> runtime;                                              \
  std::string runtime##_why;                                                                \
  switch (::stubjit::test::open_cuda((options), runtime, runtime##_why)) {                  \
    case ::stubjit::test::CudaOpened::no_device:                                            \
      GTEST_SKIP() << "stubjit: no CUDA device: " << runtime##_why;                         \
    case ::stubjit::test::CudaOpened::broken:                                               \
      FAIL() << "stubjit cannot use the CUDA device the driver reports: " << runtime##_why; \
    case ::stubjit::test::CudaOpened::ok:                                                   \
      break;                                                                                \
  }                                                                                         \
  static_assert(true, "")
