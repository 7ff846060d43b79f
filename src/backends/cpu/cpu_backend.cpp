#include "backends/cpu/cpu_backend.hpp"

#include "stubjit/error.hpp"

namespace stubjit::detail {

std::unique_ptr<Toolchain> cpu_toolchain_for(const std::string& target_id, const std::string&) {
#ifdef STUBJIT_NO_CPU_BACKEND
  throw BackendError("cannot compile for " + target_id +
                     ": built without the CPU backend (STUBJIT_CPU_BACKEND=OFF)");
#endif
  std::unique_ptr<Toolchain> toolchain = make_cpu_toolchain();
  if (toolchain->target_id() != target_id) {
    throw BackendError("the CPU backend compiles for the CPU it runs on (" +
                       toolchain->target_id() + "), not for " + target_id);
  }
  return toolchain;
}

OpenedBackend open_cpu_backend(const BackendConfig& config) {
  OpenedBackend opened;
#ifdef STUBJIT_NO_CPU_BACKEND
  (void)config;
  opened.reason = "built without the CPU backend (STUBJIT_CPU_BACKEND=OFF)";
  return opened;
#endif
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
