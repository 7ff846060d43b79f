// A whole application for the whole-process figures (bench/whole_process.py): creates
// a CPU runtime, launches KERNELS distinct kernels once each over 1024 floats, checks
// every result, exits. Run with a populated disk cache it is the warm start a user
// waits for; with an empty one, the cold start. bench/peers/occa_warm_start.cpp is the
// same program written for OCCA.
//
//   bench_warm_start_program KERNELS [--expect-warm]
//
// --expect-warm: fail (exit 3) unless every stub came from the disk cache, so a warm
// figure can never be a silent recompile.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stubjit/stubjit.hpp"

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 1;
  const bool expect_warm = argc > 2 && std::string(argv[2]) == "--expect-warm";
  constexpr std::int64_t n = 1024;
  try {
    stubjit::RuntimeOptions options;
    options.backend = "cpu";
    stubjit::Runtime runtime(options);
    std::vector<float> x(n), y(n);
    for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i);
    stubjit::Field fx = runtime.wrap(x.data(), {n});
    stubjit::Field fy = runtime.wrap(y.data(), {n});
    for (int k = 0; k < kernels; ++k) {
      stubjit::Kernel add = runtime.kernel(
          {"add" + std::to_string(k),
           {stubjit::scalar<float>("a"), stubjit::in<float>("x"), stubjit::inout<float>("y")},
           "y = a * x + " + std::to_string(k) + ".0f;"});
      add.launch(stubjit::Domain{n}, 2.0f, fx, fy);
      for (std::int64_t i = 0; i < n; i += 97) {
        const float want = 2.0f * static_cast<float>(i) + static_cast<float>(k);
        if (y[static_cast<std::size_t>(i)] != want) {
          std::fprintf(stderr, "wrong result in kernel %d at %lld\n", k, static_cast<long long>(i));
          return 1;
        }
      }
    }
    if (expect_warm && runtime.counters().compiles != 0) {
      std::fprintf(stderr, "expected a warm start, but %llu stubs were compiled\n",
                   static_cast<unsigned long long>(runtime.counters().compiles));
      return 3;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  return 0;
}
