#include "backends/hip/hip_backend.hpp"

#include <algorithm>
#include <optional>

#include "backends/hip/code_object.hpp"
#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_objects.hpp"
#include "backends/hip/hip_target.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "runtime/env.hpp"
#include "runtime/log.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using namespace hip;

class HipBackend final : public Backend {
 public:
  // With a device: `runtime` and `device` set. Compile-only: both null/empty and
  // `no_device` says why.
  HipBackend(HiprtcCompiler compiler, const RuntimeLibrary* runtime,
             std::optional<HipDeviceInfo> device, std::string no_device)
      : compiler_(std::move(compiler)),
        runtime_(runtime),
        device_(std::move(device)),
        no_device_(std::move(no_device)) {
    HipDeviceShape shape;
    shape.wavefront_size = default_wavefront_size(compiler_.target_id());
    limits_ = hip_device_limits(device_ ? device_->shape : shape);
  }

  const char* name() const override { return "hip"; }
  Dialect dialect() const override { return Dialect::hip; }
  DeviceLimits limits() const override { return limits_; }
  std::string target_id() const override { return compiler_.target_id(); }
  std::string compiler_id() const override { return compiler_.compiler_id(); }
  std::string device_description() const override {
    const std::string wave = "wavefront " + std::to_string(limits_.warp_size);
    if (!device_) return "no AMD GPU, compile-only for " + compiler_.target_id() + ", " + wave;
    return device_->name + " (" + device_->target_id + "), " +
           std::to_string(device_->compute_units) + " CUs, " + wave;
  }
  bool prefers_index32() const override { return true; }

  Binary compile(const CompileJob& job) override { return compiler_.compile(job); }

  std::unique_ptr<LoadedModule> load(const Binary& binary, const std::string& entry) override {
    if (binary.format != "amdgpu-code-object") {
      throw BackendError("the HIP backend cannot load a '" + binary.format + "' binary");
    }
    // Compile-only: nothing to load into. Succeeding here keeps the stub cached (in
    // memory, and a disk entry is not mistaken for a bad one); launch refuses.
    if (!device_) return std::make_unique<UnloadedModule>();
    return std::make_unique<HipModule>(runtime_->api, device_->index, binary.bytes, entry);
  }

  void launch(const LoadedModule& module, const LaunchParams& lp, const void* args, std::size_t,
              StreamState* stream) override {
    const RuntimeApi& api = device_api("launch");
    unsigned grid[3];
    for (int p = 0; p < 3; ++p) {
      // The planner keeps grid * block below 2^32 per dimension (HIP's work-item
      // count is a uint32); a dispatch that does not is refused, never wrapped.
      // (Compared by division: a product of an overridden huge grid could wrap.)
      if (lp.grid[p] == 0 || lp.block[p] == 0 || lp.grid[p] > 0xFFFFFFFFull / lp.block[p]) {
        throw BackendError("hip: a dispatch of " + std::to_string(lp.grid[p]) + " groups of " +
                           std::to_string(lp.block[p]) + " threads along " + "xyz"[p] +
                           " is outside HIP's 1 to 2^32-1 work-items per dimension");
      }
      grid[p] = static_cast<unsigned>(lp.grid[p]);
    }
    const DeviceScope selected(api, device_->index);
    // Both entry parameters are passed by value; HIP copies them from these
    // addresses using the sizes in the code object's metadata.
    LaunchParams params = lp;
    void* kernel_params[] = {const_cast<void*>(args), &params};
    check(api,
          api.ModuleLaunchKernel(static_cast<const HipModule&>(module).function(), grid[0], grid[1],
                                 grid[2], lp.block[0], lp.block[1], lp.block[2], 0,
                                 stream_of(stream), kernel_params, nullptr),
          "hipModuleLaunchKernel");
  }

  void* allocate(std::size_t bytes) override {
    const RuntimeApi& api = device_api("allocate memory");
    const DeviceScope selected(api, device_->index);
    void* pointer = nullptr;
    check(api, api.Malloc(&pointer, std::max<std::size_t>(bytes, 1)),
          ("hipMalloc(" + std::to_string(bytes) + " bytes)").c_str());
    return pointer;
  }
  void deallocate(void* pointer) noexcept override {
    if (!device_ || !pointer) return;
    const DeviceScope selected(runtime_->api, device_->index, std::nothrow);
    if (!selected.entered()) return;
    if (runtime_->api.Free(pointer) != hip_success) logger().warn("hip: hipFree failed");
  }

  // Synchronous copies go through the null stream, whatever stream the runtime
  // passes: HIP's null stream waits for the work queued before on every blocking
  // stream of the device (hipStreamCreate makes blocking streams), so a copy after a
  // launch on any of stubjit's streams sees the launch's results, as with CUDA's
  // legacy default stream. The null stream is then synchronized.
  void copy_to_device(void* device, const void* host, std::size_t bytes, StreamState*) override {
    const RuntimeApi& api = device_api("copy to the device");
    const DeviceScope selected(api, device_->index);
    check(api, api.MemcpyAsync(device, host, bytes, memcpy_host_to_device, nullptr),
          "hipMemcpyAsync(host to device, null stream)");
    check(api, api.StreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes, StreamState*) override {
    const RuntimeApi& api = device_api("copy from the device");
    const DeviceScope selected(api, device_->index);
    check(api, api.MemcpyAsync(host, device, bytes, memcpy_device_to_host, nullptr),
          "hipMemcpyAsync(device to host, null stream)");
    check(api, api.StreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  }
  void copy_to_device_async(void* device, const void* host, std::size_t bytes,
                            StreamState* stream) override {
    const RuntimeApi& api = device_api("copy to the device");
    const DeviceScope selected(api, device_->index);
    check(api, api.MemcpyAsync(device, host, bytes, memcpy_host_to_device, stream_of(stream)),
          "hipMemcpyAsync(host to device)");
  }
  void copy_to_host_async(void* host, const void* device, std::size_t bytes,
                          StreamState* stream) override {
    const RuntimeApi& api = device_api("copy from the device");
    const DeviceScope selected(api, device_->index);
    check(api, api.MemcpyAsync(host, device, bytes, memcpy_device_to_host, stream_of(stream)),
          "hipMemcpyAsync(device to host)");
  }

  std::shared_ptr<StreamState> create_stream() override {
    // A compile-only runtime still has a default stream: one with nothing to do.
    if (!device_) return std::make_shared<IdleStream>();
    return std::make_shared<HipStream>(runtime_->api, device_->index);
  }
  void synchronize() override {
    if (!device_) return;
    const DeviceScope selected(runtime_->api, device_->index);
    check(runtime_->api, runtime_->api.DeviceSynchronize(), "hipDeviceSynchronize");
  }

 private:
  class IdleStream final : public StreamState {
   public:
    void synchronize() override {}
  };
  // A compiled stub of a compile-only backend.
  class UnloadedModule final : public LoadedModule {};

  const RuntimeApi& device_api(const char* action) const {
    if (!device_) {
      throw BackendError("hip: cannot " + std::string(action) +
                         ": the backend is compile-only for " + compiler_.target_id() +
                         " (STUBJIT_HIP_ARCH) because " + no_device_);
    }
    return runtime_->api;
  }

  static hipStream_t stream_of(StreamState* stream) {
    auto* hip_stream = dynamic_cast<HipStream*>(stream);
    return hip_stream ? hip_stream->handle() : nullptr;  // nullptr: HIP's null stream
  }

  HiprtcCompiler compiler_;
  const RuntimeLibrary* runtime_;
  std::optional<HipDeviceInfo> device_;
  std::string no_device_;
  DeviceLimits limits_;
};

// Why no device can be used, or the device.
std::optional<HipDeviceInfo> find_device(const RuntimeLibrary* runtime, int index,
                                         std::string& reason) {
  if (!runtime) return std::nullopt;
  const int count = count_devices(runtime->api, reason);
  if (count == 0) return std::nullopt;
  if (index < 0 || index >= count) {
    reason = "device " + std::to_string(index) + " requested, the HIP runtime sees " +
             std::to_string(count);
    return std::nullopt;
  }
  return query_device(runtime->api, index);
}

}  // namespace

BackendProbe open_hip_backend(const BackendConfig& config) {
  std::string no_runtime;
  const hip::RuntimeLibrary* runtime = hip::runtime_library(no_runtime);
  return open_hip_backend_on(runtime, no_runtime, config);
}

BackendProbe open_hip_backend_on(const hip::RuntimeLibrary* runtime, const std::string& no_runtime,
                                 const BackendConfig& config) {
  BackendProbe probe;
  try {
    std::string no_device = no_runtime;
    std::optional<HipDeviceInfo> device = find_device(runtime, config.device, no_device);
    const std::string arch = env_or("STUBJIT_HIP_ARCH", "");
    if (device) {
      if (!arch.empty() && processor_of(arch) != processor_of(device->target_id)) {
        logger().warn("hip: STUBJIT_HIP_ARCH={} ignored: device {} is {}", arch, device->index,
                      device->target_id);
      }
      HiprtcCompiler compiler(device->target_id);
      probe.backend = std::make_unique<HipBackend>(std::move(compiler), runtime, std::move(device),
                                                   std::string());
    } else if (arch.empty()) {
      probe.reason = no_device;
    } else if (!config.named) {
      probe.reason = no_device + " (STUBJIT_HIP_ARCH=" + arch +
                     " compiles without a GPU only when the hip backend is named)";
    } else {
      probe.backend =
          std::make_unique<HipBackend>(HiprtcCompiler(arch), nullptr, std::nullopt, no_device);
    }
  } catch (const std::exception& error) {
    probe.backend.reset();
    probe.reason = error.what();
  }
  return probe;
}

}  // namespace stubjit::detail
