// The CPU device: host memory, stubs loaded as shared objects from sealed memory
// (shared_object_loader.hpp), each dispatch's groups run across the host's cores
// (host_runner.cpp). No LLVM: a process whose stubs are cached never loads it.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/host_cpu.hpp"
#include "backends/cpu/host_runner.hpp"
#include "backends/cpu/shared_object_loader.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

// Work on the CPU is synchronous, so its streams have nothing to wait for.
class CpuStream final : public StreamState {
 public:
  void synchronize() override {}
};

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(unsigned threads) : threads_(threads) {}

  DeviceLimits limits() const override { return cpu_limits(); }
  unsigned host_workers() const override { return detail::host_workers(threads_); }
  std::string description() const override {
    return host_cpu().model + ", " + std::to_string(std::thread::hardware_concurrency()) +
           " hardware threads";
  }

  std::unique_ptr<Module> load(const Binary& binary, const std::string& entry) override {
    if (binary.format != cpu_binary_format) {
      throw BackendError("the CPU backend cannot load a '" + binary.format + "' binary");
    }
    return std::make_unique<CpuModule>(binary.bytes, entry);
  }
  // Any group size and group count the planner can produce runs on the host.
  void check_plan(const Module&, const Plan&) const override {}
  void launch(const Module& module, const EntryParameters& parameters, const LaunchParams& lp,
              const void* args, std::size_t, StreamState*) override {
    // A CPU stub's entry always takes the packed arguments and the launch parameters.
    if (!parameters.empty())
      throw BackendError("a CPU stub's entry takes no parameters one by one");
    run_groups(static_cast<const CpuModule&>(module).entry(), args, lp, threads_);
  }

  void* allocate(std::size_t bytes) override {
    // 64-byte alignment: whole cache lines and any vector width.
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
    void* pointer = std::aligned_alloc(64, rounded);
    if (!pointer)
      throw BackendError("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    return pointer;
  }
  void deallocate(void* pointer) noexcept override { std::free(pointer); }
  void copy_to_device(void* device, const void* host, std::size_t bytes, StreamState*) override {
    std::memcpy(device, host, bytes);
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes, StreamState*) override {
    std::memcpy(host, device, bytes);
  }
  std::shared_ptr<StreamState> create_stream() override { return std::make_shared<CpuStream>(); }
  void synchronize() override {}

 private:
  unsigned threads_;
};

}  // namespace

std::unique_ptr<Device> make_cpu_device(unsigned threads) {
  return std::make_unique<CpuDevice>(threads);
}

}  // namespace stubjit::detail
