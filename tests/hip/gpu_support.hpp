// For the HIP GPU suite: a runtime on the AMD GPU; a skip that says why when there is
// no AMD GPU; a failure when there is one and stubjit cannot use it.
//
// Whether a device is there is asked of the HIP runtime itself, not of stubjit (whose
// failures are what the suite exists to find): the suite skips only when no HIP
// runtime library can be opened (the names stubjit tries: libamdhip64.so.7, .6, .5,
// libamdhip64.so, also under $ROCM_PATH/lib and /opt/rocm/lib), or when it reports no
// device (hipGetDeviceCount answering hipErrorNoDevice, or a count of 0). Anything else
// that keeps stubjit from opening the device and allocating on it fails the test.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// The few HIP runtime calls the suite makes itself.
struct HipRuntimeForTests {
  void* handle = nullptr;
  std::string file;
  int (*get_device_count)(int*) = nullptr;
  int (*get_device)(int*) = nullptr;
  int (*set_device)(int) = nullptr;
  std::string problem;  // why none could be opened, when none could
};

inline const HipRuntimeForTests& hip_runtime_for_tests() {
  static const HipRuntimeForTests runtime = [] {
    HipRuntimeForTests r;
    const std::vector<std::string> names = {"libamdhip64.so.7", "libamdhip64.so.6",
                                            "libamdhip64.so.5", "libamdhip64.so"};
    std::vector<std::string> dirs;
    if (const char* rocm = std::getenv("ROCM_PATH"); rocm && *rocm)
      dirs.push_back(std::string(rocm) + "/lib/");
    dirs.push_back("/opt/rocm/lib/");
    std::vector<std::string> candidates = names;
    for (const std::string& dir : dirs)
      for (const std::string& name : names) candidates.push_back(dir + name);
    for (const std::string& candidate : candidates) {
      r.handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!r.handle) continue;
      r.file = candidate;
      r.get_device_count = reinterpret_cast<int (*)(int*)>(::dlsym(r.handle, "hipGetDeviceCount"));
      r.get_device = reinterpret_cast<int (*)(int*)>(::dlsym(r.handle, "hipGetDevice"));
      r.set_device = reinterpret_cast<int (*)(int)>(::dlsym(r.handle, "hipSetDevice"));
      return r;
    }
    r.problem = "none of libamdhip64.so.7, .6, .5, libamdhip64.so opens";
    return r;
  }();
  return runtime;
}

// Devices the HIP runtime reports: 0 (with `why`) only when there is no runtime
// library or it reports none; -1 when it fails otherwise (stubjit will say why).
inline int hip_device_count(std::string& why) {
  constexpr int no_device = 100;  // hipErrorNoDevice
  const HipRuntimeForTests& runtime = hip_runtime_for_tests();
  if (!runtime.handle) {
    why = "no HIP runtime library (" + runtime.problem + ")";
    return 0;
  }
  if (!runtime.get_device_count) return -1;
  int count = 0;
  const int r = runtime.get_device_count(&count);
  if (r == no_device || (r == 0 && count == 0)) {
    why = "the HIP runtime (" + runtime.file + ") reports no device";
    return 0;
  }
  return r == 0 ? count : -1;
}

enum class HipOpened { ok, no_device, broken };

// A runtime on the AMD GPU that could allocate; or no_device (skip) or broken (fail),
// with `why` set. STUBJIT_HIP_ARCH is cleared so that a compile-only backend cannot
// stand in for a device.
inline HipOpened open_hip(std::optional<Runtime>& runtime, std::string& why,
                          std::optional<DeviceLimits> limits = std::nullopt) {
  if (hip_device_count(why) == 0) return HipOpened::no_device;
  ::unsetenv("STUBJIT_HIP_ARCH");
  RuntimeOptions options;
  options.backend = "hip";
  options.disk_cache = false;
  options.limits = limits;
  try {
    runtime.emplace(options);
    runtime->allocate<float>({1});
    return HipOpened::ok;
  } catch (const Error& error) {
    runtime.reset();
    why = error.what();
    return HipOpened::broken;
  }
}

}  // namespace stubjit::test

// Declares `name` (a Runtime&) on the AMD GPU; skips the test when there is none,
// fails it when there is one that stubjit cannot open or allocate on. Optional: the
// limits to plan with.
#define HIP_RUNTIME_OR_SKIP(name, ...)                                                       \
  std::optional<::stubjit::Runtime> name##_holder;                                           \
  std::string name##_reason;                                                                 \
  switch (::stubjit::test::open_hip(name##_holder, name##_reason, ##__VA_ARGS__)) {          \
    case ::stubjit::test::HipOpened::no_device:                                              \
      GTEST_SKIP() << "no AMD GPU: " << name##_reason;                                       \
    case ::stubjit::test::HipOpened::broken:                                                 \
      FAIL() << "stubjit cannot use the AMD GPU the HIP runtime reports: " << name##_reason; \
    case ::stubjit::test::HipOpened::ok:                                                     \
      break;                                                                                 \
  }                                                                                          \
  ::stubjit::Runtime& name = *name##_holder
