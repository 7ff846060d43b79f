// What the emulated GPU suites of the group, reduce and scan patterns share: each
// emulator configuration with the warp width its plans assume (HIP: 64 as on CDNA, and
// 32 as on RDNA, through the runtime's limits), a fixture that makes its runtime, and a
// guard that lowers the largest group the shared GPU checks launch (each emulated GPU
// thread of a block is a fiber with its own stack, and each barrier a round of them).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test::emulator {

struct WarpCase {
  Config config;
  std::uint32_t warp;
};

inline std::vector<WarpCase> warp_cases() {
  std::vector<WarpCase> cases;
  for (const Config& config : configs_without_sanitizer()) {
    if (config.dialect == Dialect::cuda) {
      cases.push_back({config, 32});
    } else {
      cases.push_back({config, 64});
      cases.push_back({config, 32});
    }
  }
  return cases;
}

struct WarpCaseName {
  std::string operator()(const ::testing::TestParamInfo<WarpCase>& info) const {
    return backend_name(info.param.config) + "_warp" + std::to_string(info.param.warp);
  }
};

class WarpCaseTest : public ::testing::TestWithParam<WarpCase> {
 protected:
  Runtime make_runtime() const {
    RuntimeOptions options;
    options.backend = backend_name(GetParam().config);
    options.disk_cache = false;
    options.limits = gpu_like_limits(GetParam().config.dialect);
    options.limits->warp_size = GetParam().warp;
    return Runtime(options);
  }
};

// Sets `largest` (a check header's largest_group()) for its scope.
class ScopedLargestGroup {
 public:
  ScopedLargestGroup(std::uint32_t& largest, std::uint32_t value)
      : largest_(largest), saved_(largest) {
    largest_ = value;
  }
  ~ScopedLargestGroup() { largest_ = saved_; }
  ScopedLargestGroup(const ScopedLargestGroup&) = delete;
  ScopedLargestGroup& operator=(const ScopedLargestGroup&) = delete;

 private:
  std::uint32_t& largest_;
  std::uint32_t saved_;
};

}  // namespace stubjit::test::emulator
