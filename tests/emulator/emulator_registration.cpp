// The emulator's backends, one per configuration (emulator_backend.hpp), each
// registered by one line at the end of this file.
#include "backends/registry.hpp"
#include "emulator/emulator_backend.hpp"

namespace stubjit::test::emulator {

std::string backend_name(const Config& config) {
  return std::string("emu_") + (config.dialect == Dialect::cuda ? "cuda" : "hip") +
         (config.index32 ? "_i32" : "_i64") + (config.ubsan ? "_ubsan" : "");
}

std::vector<Config> all_configs() {
  std::vector<Config> configs;
  for (bool ubsan : {false, true})
    for (Dialect dialect : {Dialect::cuda, Dialect::hip})
      for (bool index32 : {true, false}) configs.push_back({dialect, index32, ubsan});
  return configs;
}

std::vector<Config> configs_without_sanitizer() {
  std::vector<Config> configs;
  for (const Config& config : all_configs())
    if (!config.ubsan) configs.push_back(config);
  return configs;
}

DeviceLimits gpu_like_limits(Dialect dialect) {
  DeviceLimits limits;  // the defaults are a current NVIDIA GPU's
  limits.warp_size = dialect == Dialect::cuda ? 32 : 64;
  return limits;
}

std::atomic<unsigned>& scan_prefix_period() {
  static std::atomic<unsigned> period{1};
  return period;
}

unsigned long long& published_prefixes() {
  static unsigned long long count = 0;
  return count;
}

namespace {

template <Dialect dialect, bool index32, bool ubsan>
detail::OpenedBackend open_emulator(const detail::BackendConfig&) {
  const Config config{dialect, index32, ubsan};
  detail::OpenedBackend opened;
  opened.toolchain = make_toolchain(config);
  opened.device = make_device(config);
  return opened;
}

template <Dialect dialect, bool index32, bool ubsan>
bool register_emulator() {
  return detail::register_backend(
      {backend_name({dialect, index32, ubsan}), &open_emulator<dialect, index32, ubsan>});
}

}  // namespace

const bool emulators_registered = register_emulator<Dialect::cuda, true, false>() &&
                                  register_emulator<Dialect::cuda, false, false>() &&
                                  register_emulator<Dialect::hip, true, false>() &&
                                  register_emulator<Dialect::hip, false, false>() &&
                                  register_emulator<Dialect::cuda, true, true>() &&
                                  register_emulator<Dialect::cuda, false, true>() &&
                                  register_emulator<Dialect::hip, true, true>() &&
                                  register_emulator<Dialect::hip, false, true>();

}  // namespace stubjit::test::emulator
