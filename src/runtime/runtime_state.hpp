// Shared state behind Runtime, Kernel, Field and Stream handles.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "backends/device.hpp"
#include "backends/registry.hpp"
#include "backends/toolchain.hpp"
#include "cache/binary_store.hpp"
#include "cache/cache_layer.hpp"
#include "cache/disk_store.hpp"
#include "cache/single_flight_cache.hpp"
#include "cache/stub_identity.hpp"
#include "stubjit/runtime.hpp"
#include "support/striped_counter.hpp"

namespace stubjit::detail {

// A stub ready to launch: its module on the runtime's device (null on a compile-only
// runtime, where nothing is loaded) and its entry point.
struct LoadedStub {
  std::unique_ptr<Module> module;
  std::string entry;
  EntryParameters parameters;  // how the entry takes its values (GeneratedStub::parameters)
};

class RuntimeState {
 public:
  explicit RuntimeState(RuntimeOptions options);

  // Declared first so that they are destroyed last: stubs, fields and streams use them.
  std::unique_ptr<Toolchain> toolchain;
  std::unique_ptr<Device> device;  // null: compile-only (no_device says why)
  std::string backend_name;
  std::string no_device;
  RuntimeOptions options;
  DeviceLimits limits;             // what plans are made for (options.limits, adjusted)
  DeviceLimits device_limits;      // what the device itself allows
  bool limits_overridden = false;  // plans must then be checked against device_limits
  // What the compiler gets besides the source: options.compiler_options, then -I for
  // each of options.include_directories.
  std::vector<std::string> compiler_options;
  std::shared_ptr<const ToolchainIdentity> toolchain_identity;
  std::string dump_dir;
  std::shared_ptr<StreamState> default_stream;
  // Loaded stubs of this runtime's device, by identity, and how many it keeps beyond
  // those a Kernel holds (RuntimeOptions::memory_cache_stubs).
  std::size_t stub_cache_capacity = 0;
  SingleFlightCache<StubKey, LoadedStub> stubs;
  // Binaries of this runtime's target: memory, then disk when there is one. Its
  // destruction waits for the disk store's pending writes.
  BinaryChain binaries;
  DiskStore* disk = nullptr;  // the chain's disk store, maybe not opened yet; null: memory-only
  // The chain's read-only cache layers, after the disk store, in their order.
  std::vector<LayerStore*> layers;

  std::atomic<std::uint64_t> compiles{0};
  std::atomic<std::uint64_t> compile_failures{0};
  StripedCounter memory_hits;
  StripedCounter launches;

  // A stream of the device; on a compile-only runtime one with nothing to wait for.
  std::shared_ptr<StreamState> new_stream() const;

  // The device, or a BackendError saying that this runtime is compile-only and
  // cannot `action` (e.g. "launch a kernel").
  Device& device_for(const char* action) const;
};

class KernelState;

// Opens the backend named by options, $STUBJIT_BACKEND, or the first available one
// that has a device.
struct SelectedBackend {
  std::string name;
  std::unique_ptr<Toolchain> toolchain;
  std::unique_ptr<Device> device;
  std::string no_device;
};
SelectedBackend select_backend(const RuntimeOptions& options);

// Why automatic selection skips an opened backend: its reason, and for a toolchain
// without a device, that naming the backend gives a compile-only runtime.
std::string unavailable_reason(const std::string& name, const OpenedBackend& opened);

}  // namespace stubjit::detail
