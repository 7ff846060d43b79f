// The GPU suite's main. `--stubjit-device-present` only answers, for scripts such as
// memcheck.sh, whether a CUDA device can be used (exit 0), there is none (exit 1), or
// the driver reports one that stubjit cannot open or allocate on (exit 2).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

#include "cuda/gpu_support.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--stubjit-device-present") == 0) {
      std::unique_ptr<stubjit::Runtime> runtime;
      std::string why;
      switch (stubjit::test::open_cuda({}, runtime, why)) {
        case stubjit::test::CudaOpened::ok:
          return 0;
        case stubjit::test::CudaOpened::no_device:
          std::cout << "no CUDA device: " << why << "\n";
          return 1;
        case stubjit::test::CudaOpened::broken:
          std::cout << "a CUDA device is present but stubjit cannot use it: " << why << "\n";
          return 2;
      }
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
