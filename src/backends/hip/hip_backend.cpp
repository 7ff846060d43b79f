#include "backends/hip/hip_backend.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "backends/hip/code_object.hpp"
#include "backends/hip/hip_device.hpp"
#include "backends/hip/hip_objects.hpp"
#include "backends/hip/hip_target.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "backends/kernel_params.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"
#include "support/sanitizers.hpp"

namespace stubjit::detail {
namespace {

using namespace hip;

// The HIP toolchain: hipRTC for one gfx target; needs no AMD GPU.
class HipToolchain final : public Toolchain {
 public:
  HipToolchain(HiprtcCompiler compiler, std::uint32_t wavefront_size)
      : compiler_(std::move(compiler)) {
    HipDeviceShape shape;
    shape.wavefront_size = wavefront_size;
    typical_ = hip_device_limits(shape);
    traits_ = gpu_target_traits("hip");
  }

  const TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return compiler_.target_id(); }
  std::string compiler_id() const override { return compiler_.compiler_id(); }
  DeviceLimits typical_limits() const override { return typical_; }
  Binary compile(const CompileJob& job) const override { return compiler_.compile(job); }

 private:
  HiprtcCompiler compiler_;
  DeviceLimits typical_;
  TargetTraits traits_;
};

// One AMD GPU through the HIP runtime. Each call selects the device for its own
// duration and gives the thread back the device it had (DeviceScope).
class HipDevice final : public Device {
 public:
  HipDevice(const RuntimeLibrary& runtime, HipDeviceInfo device)
      : api_(runtime.api), device_(std::move(device)), limits_(hip_device_limits(device_.shape)) {}

  DeviceLimits limits() const override { return limits_; }
  std::string description() const override {
    return device_.name + " (" + device_.target_id + "), " + std::to_string(device_.compute_units) +
           " CUs, wavefront " + std::to_string(limits_.warp_size);
  }

  std::unique_ptr<Module> load(const Binary& binary, const std::string& entry) override {
    if (binary.format != "amdgpu-code-object") {
      throw BackendError("the HIP backend cannot load a '" + binary.format + "' binary");
    }
    return std::make_unique<HipModule>(api_, device_.index, binary.bytes, entry);
  }

  // The stub's launch bounds are the plan's group size (the planner's maximum for the
  // mode and rank), and AMD's compiler spills registers rather than lower them: what
  // is left to check is what hipModuleLaunchKernel can express.
  void check_plan(const Module&, const Plan& plan) const override {
    for (const Dispatch& dispatch : plan.dispatches) check_dispatch(dispatch.grid, plan.block);
  }

  void launch(const Module& module, const EntryParameters& parameters, const LaunchParams& lp,
              const void* args, std::size_t args_size, StreamState* stream) override {
    const RuntimeApi& api = api_;
    check_dispatch({lp.grid[0], lp.grid[1], lp.grid[2]}, {lp.block[0], lp.block[1], lp.block[2]});
    unsigned grid[3];
    for (int p = 0; p < 3; ++p) grid[p] = static_cast<unsigned>(lp.grid[p]);
    const DeviceScope selected(api, device_.index);
    // Every entry parameter is passed by value; HIP copies each from its address
    // using the sizes in the code object's metadata.
    KernelParams kernel_params(parameters, args, args_size, lp);
    check(api,
          api.ModuleLaunchKernel(static_cast<const HipModule&>(module).function(), grid[0], grid[1],
                                 grid[2], lp.block[0], lp.block[1], lp.block[2], lp.shared_bytes,
                                 stream_of(stream), kernel_params.data(), nullptr),
          "hipModuleLaunchKernel");
  }

  void* allocate(std::size_t bytes) override {
    const RuntimeApi& api = api_;
    const DeviceScope selected(api, device_.index);
    void* pointer = nullptr;
    check(api, api.Malloc(&pointer, std::max<std::size_t>(bytes, 1)),
          ("hipMalloc(" + std::to_string(bytes) + " bytes)").c_str());
    return pointer;
  }
  void deallocate(void* pointer) noexcept override {
    if (!pointer) return;
    const DeviceScope selected(api_, device_.index, std::nothrow);
    if (!selected.entered()) return;
    if (api_.Free(pointer) != hip_success) logger().warn("hip: hipFree failed");
  }

  // Synchronous copies go through the null stream, whatever stream the runtime
  // passes: HIP's null stream waits for the work queued before on every blocking
  // stream of the device (hipStreamCreate makes blocking streams), so a copy after a
  // launch on any of stubjit's streams sees the launch's results, as with CUDA's
  // legacy default stream. The null stream is then synchronized.
  void copy_to_device(void* device, const void* host, std::size_t bytes, StreamState*) override {
    const RuntimeApi& api = api_;
    const DeviceScope selected(api, device_.index);
    check(api, api.MemcpyAsync(device, host, bytes, memcpy_host_to_device, nullptr),
          "hipMemcpyAsync(host to device, null stream)");
    check(api, api.StreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes, StreamState*) override {
    const RuntimeApi& api = api_;
    const DeviceScope selected(api, device_.index);
    check(api, api.MemcpyAsync(host, device, bytes, memcpy_device_to_host, nullptr),
          "hipMemcpyAsync(device to host, null stream)");
    check(api, api.StreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  }
  void copy_to_device_async(void* device, const void* host, std::size_t bytes,
                            StreamState* stream) override {
    const RuntimeApi& api = api_;
    const DeviceScope selected(api, device_.index);
    check(api, api.MemcpyAsync(device, host, bytes, memcpy_host_to_device, stream_of(stream)),
          "hipMemcpyAsync(host to device)");
  }
  void copy_to_host_async(void* host, const void* device, std::size_t bytes,
                          StreamState* stream) override {
    const RuntimeApi& api = api_;
    const DeviceScope selected(api, device_.index);
    check(api, api.MemcpyAsync(host, device, bytes, memcpy_device_to_host, stream_of(stream)),
          "hipMemcpyAsync(device to host)");
  }

  std::shared_ptr<StreamState> create_stream() override {
    return std::make_shared<HipStream>(api_, device_.index);
  }
  void synchronize() override {
    const DeviceScope selected(api_, device_.index);
    check(api_, api_.DeviceSynchronize(), "hipDeviceSynchronize");
  }

 private:
  // The planner keeps grid * block below 2^32 per dimension (HIP's work-item count is
  // a uint32); a dispatch that does not is refused, never wrapped. (Compared by
  // division: a product of an overridden huge grid could wrap.)
  static void check_dispatch(const std::array<std::uint64_t, 3>& grid, const Extent3& block) {
    for (int p = 0; p < 3; ++p) {
      if (grid[p] == 0 || block[p] == 0 || grid[p] > 0xFFFFFFFFull / block[p]) {
        throw BackendError("hip: a dispatch of " + std::to_string(grid[p]) + " groups of " +
                           std::to_string(block[p]) + " threads along " + "xyz"[p] +
                           " is outside HIP's 1 to 2^32-1 work-items per dimension");
      }
    }
  }

  static hipStream_t stream_of(StreamState* stream) {
    auto* hip_stream = dynamic_cast<HipStream*>(stream);
    return hip_stream ? hip_stream->handle() : nullptr;  // nullptr: HIP's null stream
  }

  const RuntimeApi& api_;
  HipDeviceInfo device_;
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

std::unique_ptr<Toolchain> hip_toolchain_for(const std::string& target_id, const std::string&) {
  if (const char* sanitizer = sanitizer_refusing_deepbind())
    throw BackendError(std::string("hip: not available under ") + sanitizer);
  return std::make_unique<HipToolchain>(HiprtcCompiler(target_id),
                                        default_wavefront_size(target_id));
}

OpenedBackend open_hip_backend(const BackendConfig& config) {
  if (const char* sanitizer = sanitizer_refusing_deepbind()) {
    OpenedBackend opened;
    opened.reason = std::string("not available under ") + sanitizer +
                    ": the HIP backend loads comgr with RTLD_DEEPBIND (to keep its LLVM apart "
                    "from stubjit's), which " +
                    sanitizer + " refuses";
    return opened;
  }
  std::string no_runtime;
  const hip::RuntimeLibrary* runtime = hip::runtime_library(no_runtime);
  return open_hip_backend_on(runtime, no_runtime, config);
}

OpenedBackend open_hip_backend_on(const hip::RuntimeLibrary* runtime, const std::string& no_runtime,
                                  const BackendConfig& config) {
  OpenedBackend opened;
  try {
    std::string no_device = no_runtime;
    std::optional<HipDeviceInfo> device = find_device(runtime, config.device, no_device);
    const std::string arch = env_or("STUBJIT_HIP_ARCH", "");
    if (device) {
      if (!arch.empty() && processor_of(arch) != processor_of(device->target_id)) {
        logger().warn("hip: STUBJIT_HIP_ARCH={} ignored: device {} is {}", arch, device->index,
                      device->target_id);
      }
      opened.toolchain = std::make_unique<HipToolchain>(HiprtcCompiler(device->target_id),
                                                        device->shape.wavefront_size);
      opened.device = std::make_unique<HipDevice>(*runtime, std::move(*device));
      return opened;
    }
    opened.reason = no_device;
    if (!arch.empty()) {
      opened.toolchain =
          std::make_unique<HipToolchain>(HiprtcCompiler(arch), default_wavefront_size(arch));
    }
  } catch (const std::exception& error) {
    opened.toolchain.reset();
    opened.device.reset();
    opened.reason = error.what();
  }
  return opened;
}

}  // namespace stubjit::detail
