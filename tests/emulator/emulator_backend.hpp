// A host emulator for the GPU dialects, as test-tree backends: the real CUDA- and
// HIP-dialect stubs, unchanged, compiled for the host with the CPU backend's
// in-process Clang and a shim header (gpu_shim.h), and every block of every dispatch
// of the real plan run with the real packed arguments and launch parameters.
//
// Registered backends (emulator_registration.cpp), one per configuration a test picks
// by RuntimeOptions::backend: emu_<dialect>_<index>[_ubsan], dialect cuda or hip,
// index i32 (32-bit stubs where the domain and fields fit, as on a GPU) or i64 (64-bit
// stubs only), _ubsan: compiled with -fsanitize=undefined, every finding a trap. The
// warp width is the plan's (DeviceLimits::warp_size, 32 or 64).
//
// What it cannot see: docs/testing.md ("The GPU emulator").
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/toolchain.hpp"

namespace stubjit::test::emulator {

enum class Dialect { cuda, hip };

struct Config {
  Dialect dialect = Dialect::cuda;
  bool index32 = true;
  bool ubsan = false;
};

// "emu_cuda_i32", "emu_hip_i64_ubsan", ...
std::string backend_name(const Config& config);
// Every configuration, in registration order.
std::vector<Config> all_configs();
// The configurations without -fsanitize=undefined (for suites that compare results).
std::vector<Config> configs_without_sanitizer();
// Names a parameterized test's instances by backend.
struct ConfigName {
  template <class ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return backend_name(info.param);
  }
};

std::unique_ptr<detail::Toolchain> make_toolchain(const Config& config);
std::unique_ptr<detail::Device> make_device(const Config& config);

// The description line of every stub the emulator's toolchains compiled in this
// process, oldest first ("stubjit stub for kernel 'saxpy': dialect cuda, mode spread,
// rank 4, index i32"): what tests check the dialect and index width by.
std::vector<std::string> compiled_stubs();

// Which parts of a segment publish their inclusive prefix in the emulated one-pass
// scans (kernels/stubjit/reduce.h, scan_part_prefix): every `period`-th from the first,
// none for 0. Every part (1, as on a GPU) unless a ScopedScanPrefixPeriod says other.
std::atomic<unsigned>& scan_prefix_period();
class ScopedScanPrefixPeriod {
 public:
  explicit ScopedScanPrefixPeriod(unsigned period)
      : saved_(scan_prefix_period().exchange(period)) {}
  ~ScopedScanPrefixPeriod() { scan_prefix_period().store(saved_); }
  ScopedScanPrefixPeriod(const ScopedScanPrefixPeriod&) = delete;
  ScopedScanPrefixPeriod& operator=(const ScopedScanPrefixPeriod&) = delete;

 private:
  unsigned saved_;
};

// How many parts of emulated one-pass scans have published their inclusive prefix
// since the process started (the shim counts them with __atomic builtins).
unsigned long long& published_prefixes();
inline unsigned long long scan_prefixes_published() {
  return __atomic_load_n(&published_prefixes(), __ATOMIC_RELAXED);
}

// Limits like a current GPU's (1024 threads a group); warp 32 for CUDA, 64 for HIP.
DeviceLimits gpu_like_limits(Dialect dialect);

}  // namespace stubjit::test::emulator
