#include "runtime/runtime_state.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "backends/registry.hpp"
#include "backends/remote_toolchain.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/kernel_stubs.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

std::string known_backends(const std::vector<BackendEntry>& entries) {
  std::string names;
  for (const BackendEntry& entry : entries) names += (names.empty() ? "" : ", ") + entry.name;
  return names;
}

// Nothing can be queued without a device, so there is nothing to wait for.
class IdleStream final : public StreamState {
 public:
  void synchronize() override {}
};

constexpr std::size_t default_cached_stubs = 256;

std::size_t cached_stub_capacity(const RuntimeOptions& options) {
  if (options.memory_cache_stubs) return *options.memory_cache_stubs;
  const std::string text = env_or("STUBJIT_MEMORY_CACHE_STUBS", "");
  if (text.empty()) return default_cached_stubs;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || text[0] == '-') {
    logger().warn("STUBJIT_MEMORY_CACHE_STUBS={} is not a count; keeping {}", text,
                  default_cached_stubs);
    return default_cached_stubs;
  }
  return static_cast<std::size_t>(value);
}

constexpr std::chrono::milliseconds default_compile_timeout{120000};

std::chrono::milliseconds compile_time_limit(const RuntimeOptions& options) {
  if (options.compile_timeout)
    return std::max(*options.compile_timeout, std::chrono::milliseconds(0));
  const std::string text = env_or("STUBJIT_COMPILE_TIMEOUT", "");
  if (text.empty()) return default_compile_timeout;
  if (text == "off") return std::chrono::milliseconds(0);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds >= 0) || seconds > 1e9) {
    logger().warn("STUBJIT_COMPILE_TIMEOUT={} is not a number of seconds; keeping {} s", text,
                  default_compile_timeout.count() / 1000);
    return default_compile_timeout;
  }
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

// A compile-only backend for `target`, from the backend named `wanted` or, with none
// named, the first whose toolchain takes the target. No device is opened: a named
// target is for filling caches (of this machine or another), not for running.
SelectedBackend select_target(const std::vector<BackendEntry>& entries, const std::string& wanted,
                              const std::string& target) {
  std::string reasons;
  for (const BackendEntry& entry : entries) {
    if (!wanted.empty() && wanted != entry.name) continue;
    if (!entry.toolchain_for) {
      reasons += "\n  " + entry.name + ": cannot compile for a named target";
      continue;
    }
    try {
      std::unique_ptr<Toolchain> toolchain = entry.toolchain_for(target, "");
      const std::string why = "the runtime compiles for target " + target +
                              " (RuntimeOptions::target) without a device";
      logger().info("backend {} is compile-only: {}", entry.name, why);
      return {entry.name, std::move(toolchain), nullptr, why};
    } catch (const Error& error) {  // no compiler, or a target it does not know
      reasons += "\n  " + entry.name + ": " + error.what();
    }
  }
  if (reasons.empty())
    throw BackendError("unknown backend '" + wanted + "' (known: " + known_backends(entries) + ")");
  throw BackendError("no backend can compile for target '" + target + "':" + reasons);
}

}  // namespace

std::string unavailable_reason(const std::string& name, const OpenedBackend& opened) {
  if (!opened.toolchain || opened.device) return opened.reason;
  return opened.reason + " (it compiles for " + opened.toolchain->target_id() +
         " without a device when the '" + name + "' backend is named)";
}

SelectedBackend select_backend(const RuntimeOptions& options) {
  const BackendConfig config{options.device, options.cpu_threads};
  const std::vector<BackendEntry> entries = backend_registry();
  const std::string wanted =
      options.backend.empty() ? env_or("STUBJIT_BACKEND", "") : options.backend;
  if (!options.target.empty()) return select_target(entries, wanted, options.target);
  if (!wanted.empty()) {
    for (const BackendEntry& entry : entries) {
      if (wanted != entry.name) continue;
      OpenedBackend opened = entry.open(config);
      if (!opened.toolchain)
        throw BackendError("backend '" + wanted + "' is not available: " + opened.reason);
      if (!opened.device) {
        logger().info("backend {} is compile-only for {}: {}", wanted,
                      opened.toolchain->target_id(), opened.reason);
      }
      const std::string no_device = opened.device ? std::string() : opened.reason;
      return {entry.name, std::move(opened.toolchain), std::move(opened.device), no_device};
    }
    throw BackendError("unknown backend '" + wanted + "' (known: " + known_backends(entries) + ")");
  }
  // Automatic selection takes only a backend that can run what it compiles.
  std::string reasons;
  for (const BackendEntry& entry : entries) {
    OpenedBackend opened = entry.open(config);
    if (opened.toolchain && opened.device)
      return {entry.name, std::move(opened.toolchain), std::move(opened.device), {}};
    const std::string reason = unavailable_reason(entry.name, opened);
    logger().info("backend {} not available: {}", entry.name, reason);
    reasons += "\n  " + entry.name + ": " + reason;
  }
  throw BackendError("no backend is available:" + reasons);
}

RuntimeState::RuntimeState(RuntimeOptions opts)
    : options(std::move(opts)),
      stub_cache_capacity(cached_stub_capacity(options)),
      stubs(stub_cache_capacity) {
  SelectedBackend selected = select_backend(options);
  toolchain = std::move(selected.toolchain);
  // Compiles go to a worker process that can be stopped at the limit, for backends
  // whose toolchain a worker can make.
  const std::chrono::milliseconds limit = compile_time_limit(options);
  if (limit.count() > 0 && backend_named(selected.name).toolchain_for)
    toolchain = make_remote_toolchain(std::move(toolchain), selected.name, limit);
  device = std::move(selected.device);
  backend_name = selected.name;
  no_device = selected.no_device;
  device_limits = device ? device->limits() : toolchain->typical_limits();
  limits = options.limits ? *options.limits : device_limits;
  if (options.adjust_limits) options.adjust_limits(limits);
  limits_overridden = options.limits.has_value() || bool(options.adjust_limits);

  compiler_options = options.compiler_options;
  for (const std::string& directory : options.include_directories)
    compiler_options.push_back("-I" + directory);
  auto identity = std::make_shared<ToolchainIdentity>();
  identity->backend = backend_name;
  identity->target = toolchain->target_id();
  identity->compiler = toolchain->compiler_id();
  // Each option stays one item: the key length-prefixes them (stub_identity.hpp).
  identity->options = compiler_options;
  identity->generator = generator_fingerprint();
  seal(*identity);
  toolchain_identity = std::move(identity);

  dump_dir = options.dump_dir.empty() ? env_or("STUBJIT_DUMP_DIR", "") : options.dump_dir;
  default_stream = new_stream();
  // Binaries outlive their loaded modules in memory (4 for each stub kept loaded, and
  // never fewer than a kernel's table holds), so that a stub evicted and asked for
  // again loads without the compiler or the disk, even with no stubs kept loaded.
  const std::size_t kept = stub_cache_capacity > SIZE_MAX / 4 ? SIZE_MAX : 4 * stub_cache_capacity;
  binaries.add(make_memory_store(std::max(kept, KernelStubs::capacity)));
  // The disk cache is opened by its first use (DiskStore), not here: a runtime that
  // never compiles or looks up a stub never touches the disk.
  DiskCacheSettings settings = resolve_cache_settings(options);
  const std::vector<std::string> layer_roots = settings.layers;
  if (settings.enabled) {
    auto store = std::make_unique<DiskStore>(std::move(settings));
    disk = store.get();
    binaries.add(std::move(store));
  } else {
    logger().debug("disk cache off ({})", settings.disabled_reason);
  }
  // Read-only layers after the writable root: a stub the user compiled (or a layer's
  // entry that was rejected and compiled again) is found in the root first.
  for (const std::string& root : layer_roots) {
    auto layer = std::make_unique<LayerStore>(root);
    layers.push_back(layer.get());
    binaries.add(std::move(layer));
  }
  // Only when it is shown: describing the device may ask the hardware.
  if (logger().should_log(LogLevel::debug)) {
    logger().debug("runtime on backend {} ({}), target {}, compiler {}", backend_name,
                   device ? device->description() : "compile-only: " + no_device,
                   toolchain_identity->target, toolchain_identity->compiler);
  }
}

std::shared_ptr<StreamState> RuntimeState::new_stream() const {
  if (device) return device->create_stream();
  return std::make_shared<IdleStream>();
}

Device& RuntimeState::device_for(const char* action) const {
  if (device) return *device;
  throw BackendError("the " + backend_name + " backend is compile-only here (" + no_device +
                     "); it compiles stubs for " + toolchain->target_id() + " but cannot " +
                     action);
}

}  // namespace stubjit::detail
