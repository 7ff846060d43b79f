#include "runtime/runtime_state.hpp"

#include "codegen/identifier.hpp"
#include "runtime/env.hpp"
#include "runtime/log.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

std::string known_backends() {
  std::string names;
  for (const BackendEntry& entry : backend_registry())
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  return names;
}

}  // namespace

std::unique_ptr<Backend> select_backend(const RuntimeOptions& options) {
  const BackendConfig config{options.device, options.cpu_threads};
  const std::string wanted =
      options.backend.empty() ? env_or("STUBJIT_BACKEND", "") : options.backend;
  if (!wanted.empty()) {
    for (const BackendEntry& entry : backend_registry()) {
      if (wanted != entry.name) continue;
      BackendConfig named = config;
      named.named = true;
      BackendProbe probe = entry.open(named);
      if (!probe.backend)
        throw BackendError("backend '" + wanted + "' is not available: " + probe.reason);
      return std::move(probe.backend);
    }
    throw BackendError("unknown backend '" + wanted + "' (known: " + known_backends() + ")");
  }
  std::string reasons;
  for (const BackendEntry& entry : backend_registry()) {
    BackendProbe probe = entry.open(config);
    if (probe.backend) return std::move(probe.backend);
    logger().info("backend {} not available: {}", entry.name, probe.reason);
    reasons += std::string("\n  ") + entry.name + ": " + probe.reason;
  }
  throw BackendError("no backend is available:" + reasons);
}

RuntimeState::RuntimeState(RuntimeOptions opts)
    : backend(select_backend(opts)), options(std::move(opts)) {
  device_limits = backend->limits();
  limits = options.limits ? *options.limits : device_limits;
  // Each option stays one item: the key length-prefixes them (cache_key.hpp).
  toolchain = ToolchainIdentity{backend->name(), backend->target_id(), backend->compiler_id(),
                                options.compiler_options};
  dump_dir = options.dump_dir.empty() ? env_or("STUBJIT_DUMP_DIR", "") : options.dump_dir;
  default_stream = backend->create_stream();
  disk = DiskCache::open(resolve_cache_settings(options));
  logger().debug("runtime on backend {} ({}), target {}, compiler {}", backend->name(),
                 backend->device_description(), toolchain.target, toolchain.compiler);
}

KernelState::KernelState(std::shared_ptr<RuntimeState> rt, KernelSource src)
    : runtime(std::move(rt)), source(std::move(src)) {
  validate_kernel_source(source);
  identity = identify(source);
}

}  // namespace stubjit::detail
