// Shared by the CUDA and HIP GPU suites: a synchronous copy after a launch on a
// stream must see the launch's results without the stream being synchronized first
// (Field::copy_from/copy_to are ordered after work queued on the runtime's streams).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "stubjit/stubjit.hpp"

namespace stubjit::test {

constexpr int churn_rounds = 4096;

// Slow enough (churn_rounds 64-bit multiply-adds per element) that a copy not ordered after
// it reads the values from before it.
inline KernelSource churn_kernel() {
  return {"churn",
          {in<std::int64_t>("x"), inout<std::int64_t>("y")},
          "stubjit::u64 v = (stubjit::u64)x;\n"
          "for (int k = 0; k < " +
              std::to_string(churn_rounds) +
              "; ++k) v = v * 6364136223846793005ull + 1442695040888963407ull;\n"
              "y = (stubjit::i64)v;",
          "",
          {}};
}

inline std::int64_t churned(std::int64_t x) {
  std::uint64_t v = static_cast<std::uint64_t>(x);
  for (int k = 0; k < churn_rounds; ++k) v = v * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<std::int64_t>(v);
}

// Launches churn on a stream of `runtime`, reads the result with Field::to_vector at
// once, and checks it.
inline void expect_copy_after_stream_launch_sees_results(Runtime& runtime) {
  const std::int64_t n = std::int64_t(1) << 22;
  const auto size = static_cast<std::size_t>(n);
  std::vector<std::int64_t> x(size);
  std::iota(x.begin(), x.end(), 1);
  Field fx = runtime.allocate<std::int64_t>({n});
  Field fy = runtime.allocate<std::int64_t>({n});
  fx.copy_from(x);
  Kernel churn = runtime.kernel(churn_kernel());
  Stream stream = runtime.create_stream();
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  // The first launch compiles and loads the stub; the checked one is then queued at
  // once, and the copy right after it.
  fy.copy_from(std::vector<std::int64_t>(size, -1));
  churn.launch(on_stream, Domain{n}, fx, fy);
  stream.synchronize();
  fy.copy_from(std::vector<std::int64_t>(size, -1));
  churn.launch(on_stream, Domain{n}, fx, fy);
  const std::vector<std::int64_t> y = fy.to_vector<std::int64_t>();  // no stream.synchronize()
  for (std::size_t i = 0; i < size; ++i) ASSERT_NE(y[i], -1) << "element " << i << " is stale";
  for (std::size_t i = 0; i < size; i += 4099) ASSERT_EQ(y[i], churned(x[i])) << i;
  EXPECT_EQ(y.back(), churned(x.back()));
  stream.synchronize();
}

}  // namespace stubjit::test
