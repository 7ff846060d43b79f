#include "backends/cuda/cuda_backend.hpp"

#include <limits>

#include "backends/cuda/cuda_compile_only.hpp"
#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_device.hpp"
#include "backends/cuda/cuda_resources.hpp"
#include "backends/cuda/nvrtc_compiler.hpp"
#include "runtime/env.hpp"
#include "runtime/log.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

cuda::CUdeviceptr device_address(const void* pointer) {
  return static_cast<cuda::CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
}

cuda::CUstream stream_handle(StreamState* stream) {
  return stream ? static_cast<CudaStream*>(stream)->handle() : nullptr;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::shared_ptr<const CudaContext> context, CudaDeviceInfo device,
              NvrtcCompiler compiler)
      : context_(std::move(context)),
        device_(std::move(device)),
        limits_(cuda_limits(device_)),
        compiler_(std::move(compiler)) {}

  const char* name() const override { return "cuda"; }
  Dialect dialect() const override { return Dialect::cuda; }
  DeviceLimits limits() const override { return limits_; }
  std::string target_id() const override { return compiler_.target().id(); }
  std::string compiler_id() const override { return compiler_.compiler_id(); }
  std::string device_description() const override {
    return device_.describe() + ", " + context_->driver().id();
  }
  bool prefers_index32() const override { return true; }

  Binary compile(const CompileJob& job) override { return compiler_.compile(job); }

  std::unique_ptr<LoadedModule> load(const Binary& binary, const std::string& entry) override {
    return std::make_unique<CudaModule>(context_, binary, entry);
  }

  void launch(const LoadedModule& loaded, const LaunchParams& lp, const void* args, std::size_t,
              StreamState* stream) override {
    const auto& module = static_cast<const CudaModule&>(loaded);
    const std::uint64_t threads = std::uint64_t(lp.block[0]) * lp.block[1] * lp.block[2];
    if (threads > module.max_threads()) {
      throw BackendError("the plan's groups of " + std::to_string(threads) +
                         " threads exceed the " + std::to_string(module.max_threads()) + " that " +
                         module.entry() + " can be launched with (launch bounds or registers)");
    }
    for (int p = 0; p < 3; ++p) {
      // The planner keeps grids within the device limits; a limits override could
      // still ask for more than the driver's 32-bit grid, which must not wrap.
      if (lp.grid[p] > std::numeric_limits<unsigned>::max()) {
        throw BackendError("a dispatch of " + module.entry() + " has " +
                           std::to_string(lp.grid[p]) + " groups along one dimension; CUDA " +
                           "takes at most 2^32-1");
      }
      // An empty domain has no dispatches (the runtime launches nothing); a dispatch
      // of no groups or of empty groups is a planner bug, reported rather than skipped.
      if (lp.grid[p] == 0 || lp.block[p] == 0) {
        throw BackendError("a dispatch of " + module.entry() + " has " +
                           std::to_string(lp.grid[p]) + " groups of " +
                           std::to_string(lp.block[p]) + " threads along " + "xyz"[p] +
                           "; CUDA launches need at least one of each");
      }
    }
    // The entry takes the packed arguments and the launch parameters by value.
    void* params[2] = {const_cast<void*>(args), const_cast<LaunchParams*>(&lp)};
    CudaContextScope current(*context_);
    const CudaDriver& driver = context_->driver();
    const cuda::CUresult r = driver.launch_kernel(
        module.function(), static_cast<unsigned>(lp.grid[0]), static_cast<unsigned>(lp.grid[1]),
        static_cast<unsigned>(lp.grid[2]), lp.block[0], lp.block[1], lp.block[2], 0,
        stream_handle(stream), params, nullptr);
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
  std::shared_ptr<const CudaContext> context_;
  CudaDeviceInfo device_;
  DeviceLimits limits_;
  NvrtcCompiler compiler_;
};

bool force_ptx() { return env_or("STUBJIT_CUDA_PTX", "0") == "1"; }

// The device backend; throws BackendError when the driver or the device is missing.
std::unique_ptr<Backend> open_device_backend(const BackendConfig& config,
                                             std::shared_ptr<const NvrtcLibrary> nvrtc) {
  std::shared_ptr<const CudaDriver> driver = load_cuda_driver();
  const int count = cuda_device_count(*driver);
  if (count == 0) throw BackendError("the CUDA driver reports no device");
  if (config.device < 0 || config.device >= count) {
    throw BackendError("no CUDA device " + std::to_string(config.device) + " (there are " +
                       std::to_string(count) + ")");
  }
  CudaDeviceInfo device = query_cuda_device(*driver, config.device);
  const std::string arch = env_or("STUBJIT_CUDA_ARCH", "");
  if (!arch.empty() && arch != device.arch.sm()) {
    logger().warn("STUBJIT_CUDA_ARCH={} ignored: device {} is {}", arch, config.device,
                  device.arch.sm());
  }
  CudaTarget target = choose_cuda_target(device.arch, nvrtc->supported_archs, force_ptx());
  if (target.ptx && !force_ptx()) {
    logger().info("{} does not know {}: stubs are PTX for {}", nvrtc->id(), device.arch.sm(),
                  target.arch.compute());
  }
  auto context = std::make_shared<const CudaContext>(driver, config.device);
  return std::make_unique<CudaBackend>(std::move(context), std::move(device),
                                       NvrtcCompiler(std::move(nvrtc), std::move(target)));
}

}  // namespace

BackendProbe open_cuda_backend(const BackendConfig& config) {
  BackendProbe probe;
  try {
    std::shared_ptr<const NvrtcLibrary> nvrtc = load_nvrtc();
    try {
      probe.backend = open_device_backend(config, nvrtc);
      return probe;
    } catch (const BackendError& no_device) {
      const std::string arch = env_or("STUBJIT_CUDA_ARCH", "");
      if (arch.empty() || !config.named) {
        probe.reason = no_device.what();
        if (!arch.empty()) {
          probe.reason += " (STUBJIT_CUDA_ARCH=" + arch +
                          " gives a compile-only backend when 'cuda' is named explicitly)";
        }
        return probe;
      }
      const CudaTarget target =
          choose_cuda_target(parse_cuda_arch(arch), nvrtc->supported_archs, force_ptx());
      probe.backend =
          make_cuda_compile_only_backend(NvrtcCompiler(nvrtc, target), no_device.what());
    }
  } catch (const std::exception& error) {
    probe.backend.reset();
    probe.reason = error.what();
  }
  return probe;
}

}  // namespace stubjit::detail
