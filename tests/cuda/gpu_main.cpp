// The GPU suite's main. `--stubjit-device-present` only answers whether a CUDA device
// can be used (exit 0) or not (exit 1), for scripts such as memcheck.sh.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

#include "cuda/gpu_support.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--stubjit-device-present") == 0) {
      std::string why;
      const bool present = stubjit::test::open_cuda({}, why) != nullptr;
      if (!present) std::cout << "no CUDA device: " << why << "\n";
      return present ? 0 : 1;
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
