#include "backends/cpu/cpu_backend.hpp"

namespace stubjit::detail {

OpenedBackend open_cpu_backend(const BackendConfig& config) {
  OpenedBackend opened;
  try {
    opened.toolchain = make_cpu_toolchain();
    opened.device = make_cpu_device(config.cpu_threads);
  } catch (const std::exception& error) {
    opened = OpenedBackend{};
    opened.reason = error.what();
  }
  return opened;
}

}  // namespace stubjit::detail
