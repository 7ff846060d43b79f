// The device half of a backend: its limits, loading binaries into modules, launching
// dispatches, memory and streams. Only code below src/backends/ touches a vendor API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cache/binary.hpp"
#include "stubjit/launch.h"
#include "stubjit/plan.hpp"
#include "support/entry_parameters.hpp"

namespace stubjit::detail {

// One stub loaded on one device; unloaded when destroyed.
class Module {
 public:
  virtual ~Module() = default;
  // The most threads one group of this entry can have on its device (its launch
  // bounds, or fewer where its register use allows fewer); 0 when only the device's
  // limits apply.
  virtual std::uint32_t max_group_threads() const { return 0; }
};

class StreamState {
 public:
  virtual ~StreamState() = default;
  virtual void synchronize() = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual DeviceLimits limits() const = 0;
  virtual std::string description() const = 0;
  // A host device: the threads its dispatches' groups are shared among. 0: not known
  // (a GPU, or a host device that does not say).
  virtual unsigned host_workers() const { return 0; }

  // Throws BackendError when the binary cannot be loaded here.
  virtual std::unique_ptr<Module> load(const Binary& binary, const std::string& entry) = 0;
  // Throws BackendError, before anything runs, unless every dispatch of `plan` can
  // start with `module` (group size against the module's real limit, grid sizes the
  // launch call can express). The runtime calls it before the first dispatch.
  virtual void check_plan(const Module& module, const Plan& plan) const = 0;
  // Runs one dispatch: lp.grid groups of lp.block threads, queued on `stream`, passing
  // the entry what `parameters` says (support/entry_parameters.hpp: empty, the packed
  // arguments and `lp`, each by value).
  virtual void launch(const Module& module, const EntryParameters& parameters,
                      const LaunchParams& lp, const void* args, std::size_t args_size,
                      StreamState* stream) = 0;

  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* pointer) noexcept = 0;
  virtual void copy_to_device(void* device, const void* host, std::size_t bytes,
                              StreamState* stream) = 0;
  virtual void copy_to_host(void* host, const void* device, std::size_t bytes,
                            StreamState* stream) = 0;
  // Copies queued on `stream`: they may return before the copy is done, so the host
  // buffer must stay valid until the stream is synchronized. A device without
  // asynchronous copies (the CPU) runs them synchronously.
  virtual void copy_to_device_async(void* device, const void* host, std::size_t bytes,
                                    StreamState* stream) {
    copy_to_device(device, host, bytes, stream);
  }
  virtual void copy_to_host_async(void* host, const void* device, std::size_t bytes,
                                  StreamState* stream) {
    copy_to_host(host, device, bytes, stream);
  }
  virtual std::shared_ptr<StreamState> create_stream() = 0;
  virtual void synchronize() = 0;
};

}  // namespace stubjit::detail
