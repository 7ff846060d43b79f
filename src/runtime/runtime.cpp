#include "stubjit/runtime.hpp"

#include "runtime/runtime_state.hpp"
#include "stubjit/error.hpp"

namespace stubjit {

Runtime::Runtime(RuntimeOptions options)
    : state_(std::make_shared<detail::RuntimeState>(std::move(options))) {}

std::vector<BackendStatus> Runtime::probe_backends() {
  std::vector<BackendStatus> statuses;
  for (const detail::BackendEntry& entry : detail::backend_registry()) {
    BackendStatus status;
    status.name = entry.name;
    detail::BackendProbe probe = entry.open(detail::BackendConfig{});
    status.available = probe.backend != nullptr;
    status.detail = probe.backend
                        ? probe.backend->device_description() + "; target " +
                              probe.backend->target_id() + "; " + probe.backend->compiler_id()
                        : probe.reason;
    statuses.push_back(std::move(status));
  }
  return statuses;
}

const std::string& Runtime::backend_name() const { return state_->toolchain.backend; }
std::string Runtime::target_id() const { return state_->toolchain.target; }
std::string Runtime::compiler_id() const { return state_->toolchain.compiler; }
const DeviceLimits& Runtime::limits() const { return state_->limits; }

Kernel Runtime::kernel(KernelSource source) {
  Kernel kernel;
  kernel.state_ = std::make_shared<detail::KernelState>(state_, std::move(source));
  return kernel;
}

Stream Runtime::create_stream() {
  Stream stream;
  stream.state_ = state_->backend->create_stream();
  stream.runtime_ = state_;
  return stream;
}

void Runtime::synchronize() { state_->backend->synchronize(); }

CacheCounters Runtime::counters() const {
  CacheCounters counters;
  counters.compiles = state_->compiles.load(std::memory_order_relaxed);
  counters.memory_hits = state_->memory_hits.load(std::memory_order_relaxed);
  counters.launches = state_->launches.load(std::memory_order_relaxed);
  counters.disk_hits = state_->disk_hits.load(std::memory_order_relaxed);
  counters.disk_writes = state_->disk_writes.load(std::memory_order_relaxed);
  counters.disk_rejected = state_->disk_rejected.load(std::memory_order_relaxed);
  return counters;
}

std::string Runtime::cache_dir() const { return state_->disk ? state_->disk->root() : ""; }

}  // namespace stubjit
