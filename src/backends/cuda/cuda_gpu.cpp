// The CUDA device as stubjit drives it through the driver API: modules, launches,
// memory and streams, each call made with stubjit's context current and the thread's
// own context put back afterwards (CudaContextScope).
#include <array>
#include <limits>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_resources.hpp"
#include "backends/kernel_params.hpp"
#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

cuda::CUdeviceptr device_address(const void* pointer) {
  return static_cast<cuda::CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
}

cuda::CUstream stream_handle(StreamState* stream) {
  return stream ? static_cast<CudaStream*>(stream)->handle() : nullptr;
}

class CudaDevice final : public Device {
 public:
  CudaDevice(std::shared_ptr<const CudaContext> context, CudaDeviceInfo device)
      : context_(std::move(context)), device_(std::move(device)), limits_(cuda_limits(device_)) {}

  DeviceLimits limits() const override { return limits_; }
  std::string description() const override {
    return device_.describe() + ", " + context_->driver().id();
  }

  std::unique_ptr<Module> load(const Binary& binary, const std::string& entry) override {
    return std::make_unique<CudaModule>(context_, binary, entry);
  }

  void check_plan(const Module& loaded, const Plan& plan) const override {
    const auto& module = static_cast<const CudaModule&>(loaded);
    for (const Dispatch& dispatch : plan.dispatches)
      check_dispatch(module, dispatch.grid, plan.block);
  }

  void launch(const Module& loaded, const EntryParameters& parameters, const LaunchParams& lp,
              const void* args, std::size_t args_size, StreamState* stream) override {
    const auto& module = static_cast<const CudaModule&>(loaded);
    check_dispatch(module, {lp.grid[0], lp.grid[1], lp.grid[2]},
                   {lp.block[0], lp.block[1], lp.block[2]});
    // Every entry parameter by value: the driver copies each from its pointer.
    KernelParams params(parameters, args, args_size, lp);
    CudaContextScope current(*context_);
    const CudaDriver& driver = context_->driver();
    const cuda::CUresult r = driver.launch_kernel(
        module.function(), static_cast<unsigned>(lp.grid[0]), static_cast<unsigned>(lp.grid[1]),
        static_cast<unsigned>(lp.grid[2]), lp.block[0], lp.block[1], lp.block[2], lp.shared_bytes,
        stream_handle(stream), params.data(), nullptr);
    if (r != cuda::CUDA_SUCCESS) {
      throw BackendError("launching " + module.entry() + " (grid " + std::to_string(lp.grid[0]) +
                         "x" + std::to_string(lp.grid[1]) + "x" + std::to_string(lp.grid[2]) +
                         ", block " + std::to_string(lp.block[0]) + "x" +
                         std::to_string(lp.block[1]) + "x" + std::to_string(lp.block[2]) +
                         ") failed: " + driver.describe(r));
    }
  }

  void* allocate(std::size_t bytes) override {
    CudaContextScope current(*context_);
    cuda::CUdeviceptr pointer = 0;
    // At least one byte: a zero-size field still needs a distinct, non-null address.
    if (const cuda::CUresult r = context_->driver().mem_alloc(&pointer, bytes ? bytes : 1);
        r != cuda::CUDA_SUCCESS) {
      throw BackendError("cannot allocate " + std::to_string(bytes) + " bytes on " + device_.name +
                         ": " + context_->driver().describe(r));
    }
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer));
  }

  void deallocate(void* pointer) noexcept override {
    CudaContextScope current(*context_, std::nothrow);
    if (!current.entered()) return;
    if (const cuda::CUresult r = context_->driver().mem_free(device_address(pointer));
        r != cuda::CUDA_SUCCESS) {
      logger().warn("freeing device memory failed: {}", context_->driver().describe(r));
    }
  }

  // Synchronous copies go through the legacy default stream, which waits for work
  // queued before on the runtime's (blocking) streams.
  void copy_to_device(void* device, const void* host, std::size_t bytes, StreamState*) override {
    CudaContextScope current(*context_);
    context_->driver().check(context_->driver().memcpy_htod(device_address(device), host, bytes),
                             "cuMemcpyHtoD");
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes, StreamState*) override {
    CudaContextScope current(*context_);
    context_->driver().check(context_->driver().memcpy_dtoh(host, device_address(device), bytes),
                             "cuMemcpyDtoH");
  }
  void copy_to_device_async(void* device, const void* host, std::size_t bytes,
                            StreamState* stream) override {
    CudaContextScope current(*context_);
    context_->driver().check(context_->driver().memcpy_htod_async(device_address(device), host,
                                                                  bytes, stream_handle(stream)),
                             "cuMemcpyHtoDAsync");
  }
  void copy_to_host_async(void* host, const void* device, std::size_t bytes,
                          StreamState* stream) override {
    CudaContextScope current(*context_);
    context_->driver().check(context_->driver().memcpy_dtoh_async(host, device_address(device),
                                                                  bytes, stream_handle(stream)),
                             "cuMemcpyDtoHAsync");
  }

  std::shared_ptr<StreamState> create_stream() override {
    return std::make_shared<CudaStream>(context_);
  }
  void synchronize() override {
    CudaContextScope current(*context_);
    context_->driver().check(context_->driver().ctx_synchronize(), "cuCtxSynchronize");
  }

 private:
  // What the driver would refuse, or a planner bug would make it run wrongly.
  static void check_dispatch(const CudaModule& module, const std::array<std::uint64_t, 3>& grid,
                             const Extent3& block) {
    const std::uint64_t threads = std::uint64_t(block[0]) * block[1] * block[2];
    if (threads > module.max_threads()) {
      throw BackendError("the plan's groups of " + std::to_string(threads) +
                         " threads exceed the " + std::to_string(module.max_threads()) + " that " +
                         module.entry() + " can be launched with (launch bounds or registers)");
    }
    for (int p = 0; p < 3; ++p) {
      // The planner keeps grids within the device limits; a limits override could
      // still ask for more than the driver's 32-bit grid, which must not wrap.
      if (grid[p] > std::numeric_limits<unsigned>::max()) {
        throw BackendError("a dispatch of " + module.entry() + " has " + std::to_string(grid[p]) +
                           " groups along one dimension; CUDA takes at most 2^32-1");
      }
      // An empty domain has no dispatches (the runtime launches nothing); a dispatch
      // of no groups or of empty groups is a planner bug, reported rather than skipped.
      if (grid[p] == 0 || block[p] == 0) {
        throw BackendError("a dispatch of " + module.entry() + " has " + std::to_string(grid[p]) +
                           " groups of " + std::to_string(block[p]) + " threads along " + "xyz"[p] +
                           "; CUDA launches need at least one of each");
      }
    }
  }

  std::shared_ptr<const CudaContext> context_;
  CudaDeviceInfo device_;
  DeviceLimits limits_;
};

}  // namespace

std::unique_ptr<Device> make_cuda_device(std::shared_ptr<const CudaContext> context,
                                         CudaDeviceInfo device) {
  return std::make_unique<CudaDevice>(std::move(context), std::move(device));
}

}  // namespace stubjit::detail
