// NVRTC for the CPU-only CUDA tests: loaded once; a skip with the reason when it is
// absent, or a failure when the build found it (STUBJIT_TEST_REQUIRE_NVRTC=1, set by
// tests/cuda/CMakeLists.txt), so that CI cannot pass by skipping.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "backends/cuda/nvrtc_library.hpp"
#include "stubjit/error.hpp"

namespace stubjit::test {

struct NvrtcForTests {
  std::shared_ptr<const detail::NvrtcLibrary> library;
  std::string problem;
};

inline const NvrtcForTests& nvrtc_for_tests() {
  static const NvrtcForTests loaded = [] {
    NvrtcForTests n;
    try {
      n.library = detail::load_nvrtc();
    } catch (const Error& error) {
      n.problem = error.what();
    }
    return n;
  }();
  return loaded;
}

inline bool nvrtc_required() {
  const char* value = std::getenv("STUBJIT_TEST_REQUIRE_NVRTC");
  return value && std::string(value) == "1";
}

}  // namespace stubjit::test

#define REQUIRE_NVRTC()                                                                      \
  do {                                                                                       \
    if (!::stubjit::test::nvrtc_for_tests().library) {                                       \
      if (::stubjit::test::nvrtc_required())                                                 \
        FAIL() << "NVRTC was found at build time but does not load: "                        \
               << ::stubjit::test::nvrtc_for_tests().problem;                                \
      GTEST_SKIP() << "NVRTC not available: " << ::stubjit::test::nvrtc_for_tests().problem; \
    }                                                                                        \
  } while (0)
