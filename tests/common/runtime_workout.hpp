// One pass over everything a GPU runtime does for an application — allocate, copy,
// compile, launch, stream copies, synchronize — with a check after every call. The
// CUDA and HIP suites use it to show that stubjit leaves the calling thread's current
// context / device as the application set it.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// `still(after)` runs after each call, naming the call; results are checked too.
inline void workout_checking_after_each_call(Runtime& runtime,
                                             const std::function<void(const char* after)>& still) {
  const std::int64_t n = 4096;
  std::vector<float> x(n), y(n, 1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  Field fx = runtime.allocate<float>({n});
  still("allocate");
  Field fy = runtime.allocate<float>({n});
  fx.copy_from(x);
  still("copy_from");
  fy.copy_from(y);
  Kernel saxpy = runtime.kernel(saxpy_kernel());
  saxpy.launch(Domain{n}, 2.0f, fx, fy);
  still("launch (compile and load)");
  saxpy.launch(Domain{n}, 2.0f, fx, fy);
  still("launch");
  const std::vector<float> out = fy.to_vector<float>();
  still("to_vector");
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[static_cast<std::size_t>(i)], 4.0f * x[static_cast<std::size_t>(i)] + 1.0f) << i;
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

}  // namespace stubjit::test
