// Shared state behind Runtime, Kernel, Field and Stream handles.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "cache/cache_key.hpp"
#include "cache/disk_cache.hpp"
#include "cache/single_flight_cache.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {

// A compiled and loaded stub.
struct CompiledStub {
  std::unique_ptr<LoadedModule> module;
  std::string entry;
  StubVariant variant;
};

class RuntimeState {
 public:
  explicit RuntimeState(RuntimeOptions options);

  // Declared first so that it is destroyed last: stubs and streams use it.
  std::unique_ptr<Backend> backend;
  RuntimeOptions options;
  DeviceLimits limits;         // what plans are made for (options.limits, if given)
  DeviceLimits device_limits;  // what the device itself allows
  ToolchainIdentity toolchain;
  std::string dump_dir;
  std::shared_ptr<StreamState> default_stream;
  SingleFlightCache<CompiledStub> stubs;
  std::unique_ptr<DiskCache> disk;  // null: memory-only

  std::atomic<std::uint64_t> compiles{0};
  std::atomic<std::uint64_t> memory_hits{0};
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> disk_hits{0};
  std::atomic<std::uint64_t> disk_writes{0};
  std::atomic<std::uint64_t> disk_rejected{0};
};

class StreamState;

class KernelState {
 public:
  KernelState(std::shared_ptr<RuntimeState> runtime, KernelSource source);

  std::shared_ptr<RuntimeState> runtime;
  KernelSource source;
  KernelIdentity identity;

  // Launch fast path: the last stub used per (mode, rank, index width), checked
  // against the launch's bindings. The runtime's cache owns the stubs.
  static constexpr std::size_t slot_count = 3 * 9 * 2;
  static std::size_t slot_of(Mode mode, int rank, int index_bits) {
    return (static_cast<std::size_t>(mode) * 9 + static_cast<std::size_t>(rank)) * 2 +
           (index_bits == 32 ? 0 : 1);
  }
  std::array<std::atomic<const CompiledStub*>, slot_count> recent{};
};

// Opens the backend named by options, $STUBJIT_BACKEND, or the first available.
std::unique_ptr<Backend> select_backend(const RuntimeOptions& options);

}  // namespace stubjit::detail
