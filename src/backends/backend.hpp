// The one interface every backend implements. Only code below src/backends/ touches
// a vendor API; everything above it speaks this interface.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "codegen/stub_request.hpp"
#include "stubjit/launch.h"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

// A compiled stub as the backend's loader takes it; also what a disk cache stores.
struct Binary {
  std::string format;  // "elf-object", "cubin", "ptx", "amdgpu-code-object"
  std::vector<char> bytes;
};

struct CompileJob {
  const std::string& source;
  const std::string& file_name;
  const std::string& entry;
  const std::string& kernel;  // for CompileError
  const std::vector<std::string>& options;
};

// Loaded code of one stub; unloaded when destroyed.
class LoadedModule {
 public:
  virtual ~LoadedModule() = default;
};

class StreamState {
 public:
  virtual ~StreamState() = default;
  virtual void synchronize() = 0;
};

struct BackendConfig {
  int device = 0;
  unsigned cpu_threads = 0;
  // The application named this backend (RuntimeOptions::backend, STUBJIT_BACKEND):
  // a backend may then open in a reduced mode that automatic selection must skip,
  // e.g. CUDA compile-only for STUBJIT_CUDA_ARCH on a machine without a GPU.
  bool named = false;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual const char* name() const = 0;  // "cpu", "cuda", "hip"
  virtual Dialect dialect() const = 0;
  virtual DeviceLimits limits() const = 0;
  virtual std::string target_id() const = 0;
  virtual std::string compiler_id() const = 0;
  virtual std::string device_description() const = 0;
  // Whether stubs use 32-bit indices when the domain and every field allow it.
  virtual bool prefers_index32() const = 0;

  // Throws CompileError with the compiler's log.
  virtual Binary compile(const CompileJob& job) = 0;
  virtual std::unique_ptr<LoadedModule> load(const Binary& binary, const std::string& entry) = 0;
  // Runs one dispatch: lp.grid groups of lp.block threads.
  virtual void launch(const LoadedModule& module, const LaunchParams& lp, const void* args,
                      std::size_t args_size, StreamState* stream) = 0;

  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* pointer) noexcept = 0;
  virtual void copy_to_device(void* device, const void* host, std::size_t bytes,
                              StreamState* stream) = 0;
  virtual void copy_to_host(void* host, const void* device, std::size_t bytes,
                            StreamState* stream) = 0;
  // Copies queued on `stream`: they may return before the copy is done, so the host
  // buffer must stay valid until the stream is synchronized. A backend without
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

// Result of trying to open a backend: the backend, or why it is not available.
struct BackendProbe {
  std::unique_ptr<Backend> backend;
  std::string reason;
};

struct BackendEntry {
  const char* name;
  BackendProbe (*open)(const BackendConfig& config);
};

// Known backends in automatic-selection order (adding one is one line here).
const std::vector<BackendEntry>& backend_registry();

}  // namespace stubjit::detail
