#include "backends/cpu/cpu_backend.hpp"

#include "stubjit/error.hpp"

namespace stubjit::detail {

std::unique_ptr<Toolchain> cpu_toolchain_for(const std::string& target_id) {
  std::unique_ptr<Toolchain> toolchain = make_cpu_toolchain();
  if (toolchain->target_id() != target_id) {
    throw BackendError("the CPU backend compiles for the CPU it runs on (" +
                       toolchain->target_id() + "), not for " + target_id);
  }
  return toolchain;
}

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
