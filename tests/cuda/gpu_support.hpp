// For the GPU suite: a CUDA runtime, or a skip that says why there is none.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// A runtime on the CUDA backend; null with `why` set when there is no usable device.
inline std::unique_ptr<Runtime> open_cuda(RuntimeOptions options, std::string& why) {
  options.backend = "cuda";
  try {
    auto runtime = std::make_unique<Runtime>(options);
    // Compile-only (STUBJIT_CUDA_ARCH without a device) refuses to allocate.
    runtime->allocate<float>({1});
    return runtime;
  } catch (const BackendError& error) {
    why = error.what();
    return nullptr;
  }
}

}  // namespace stubjit::test

// Declares `runtime` (a std::unique_ptr<Runtime>) or skips the test with the reason.
#define CUDA_RUNTIME_OR_SKIP(runtime, options)              \
  std::string runtime##_why;                                \
  std::unique_ptr<::stubjit::Runtime> runtime =             \
      ::stubjit::test::open_cuda((options), runtime##_why); \
  if (runtime) {                                            \
  } else                                                    \
    GTEST_SKIP() << "stubjit: no CUDA device: " << runtime##_why
