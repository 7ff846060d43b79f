#include "stubjit/runtime.hpp"

#include "backends/registry.hpp"
#include "runtime/kernel_state.hpp"
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
    const detail::OpenedBackend opened = entry.open(detail::BackendConfig{});
    status.available = opened.toolchain && opened.device;
    status.detail = status.available
                        ? opened.device->description() + "; target " +
                              opened.toolchain->target_id() + "; " + opened.toolchain->compiler_id()
                        : detail::unavailable_reason(entry.name, opened);
    statuses.push_back(std::move(status));
  }
  return statuses;
}

const std::string& Runtime::backend_name() const { return state_->backend_name; }
std::string Runtime::target_id() const { return state_->toolchain_identity->target; }
std::string Runtime::compiler_id() const { return state_->toolchain_identity->compiler; }
const DeviceLimits& Runtime::limits() const { return state_->limits; }

Kernel Runtime::kernel(KernelSource source) {
  Kernel kernel;
  kernel.state_ = std::make_shared<detail::KernelState>(state_, std::move(source));
  return kernel;
}

Stream Runtime::create_stream() {
  Stream stream;
  stream.state_ = state_->new_stream();
  stream.runtime_ = state_;
  return stream;
}

void Runtime::synchronize() {
  if (state_->device) state_->device->synchronize();
}

CacheCounters Runtime::counters() const {
  CacheCounters counters;
  counters.compiles = state_->compiles.load(std::memory_order_relaxed);
  counters.compile_failures = state_->compile_failures.load(std::memory_order_relaxed);
  counters.memory_hits = state_->memory_hits.total();
  counters.launches = state_->launches.total();
  if (detail::DiskStore* disk = state_->disk) {
    // Pending writes first, so that disk_writes counts every entry this runtime has
    // compiled so far (and the entries are on disk when it says so).
    disk->flush();
    counters.disk_hits = disk->counters().hits.load(std::memory_order_relaxed);
    counters.disk_writes = disk->counters().writes.load(std::memory_order_relaxed);
    counters.disk_rejected = disk->counters().rejected.load(std::memory_order_relaxed);
  }
  for (const detail::LayerStore* layer : state_->layers) {
    const std::uint64_t hits = layer->counters().hits.load(std::memory_order_relaxed);
    counters.layer_hits += hits;
    counters.disk_hits += hits;
    counters.disk_rejected += layer->counters().rejected.load(std::memory_order_relaxed);
  }
  return counters;
}

// Opens the disk cache if no launch has yet, so that the answer is true: "" when the
// root turns out to be unusable.
std::string Runtime::cache_dir() const { return state_->disk ? state_->disk->root() : ""; }

}  // namespace stubjit
