#include "backends/cuda/cuda_backend.hpp"

#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

bool force_ptx() { return env_or("STUBJIT_CUDA_PTX", "0") == "1"; }

// The toolchain for the device's architecture and the device; throws BackendError
// when the driver or the device is missing.
OpenedBackend open_with_device(const BackendConfig& config,
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
  // The newest NVRTC whose code this driver loads (nvrtc_library.hpp has the rule).
  nvrtc = nvrtc_for_driver(std::move(nvrtc), driver->version, force_ptx());
  CudaTarget target = choose_cuda_target(device.arch, nvrtc->supported_archs, force_ptx());
  if (target.ptx && !force_ptx()) {
    // NVRTC does not know the device: its PTX, which the driver compiles, must not be
    // newer than the driver either.
    std::shared_ptr<const NvrtcLibrary> for_ptx = nvrtc_for_driver(nvrtc, driver->version, true);
    if (for_ptx != nvrtc) {
      nvrtc = std::move(for_ptx);
      target = choose_cuda_target(device.arch, nvrtc->supported_archs, false);
    }
    if (target.ptx) {
      logger().info("{} does not know {}: stubs are PTX for {}", nvrtc->id(), device.arch.sm(),
                    target.arch.compute());
    }
  }
  logger().debug("cuda: {} with {} from {}", driver->id(), nvrtc->id(), nvrtc->library->name());
  auto context = std::make_shared<const CudaContext>(driver, config.device);
  OpenedBackend opened;
  opened.toolchain = make_cuda_toolchain(NvrtcCompiler(std::move(nvrtc), std::move(target)));
  opened.device = make_cuda_device(std::move(context), std::move(device));
  return opened;
}

}  // namespace

std::unique_ptr<Toolchain> cuda_toolchain_for(const std::string& target_id,
                                              const std::string& compiler_id) {
  // The NVRTC the runtime chose for its driver (nvrtc_for_driver), where it names one.
  std::shared_ptr<const NvrtcLibrary> nvrtc =
      compiler_id.empty() ? load_nvrtc() : load_nvrtc_with_id(compiler_id);
  CudaTarget target;
  target.arch = parse_cuda_arch(target_id);
  target.ptx = target_id.rfind("compute_", 0) == 0;
  if (!target.ptx && !nvrtc->supports(target.arch.number())) {
    throw BackendError(nvrtc->id() + " cannot compile for " + target_id);
  }
  return make_cuda_toolchain(NvrtcCompiler(std::move(nvrtc), std::move(target)));
}

OpenedBackend open_cuda_backend(const BackendConfig& config) {
  OpenedBackend opened;
  try {
    std::shared_ptr<const NvrtcLibrary> nvrtc = load_nvrtc();
    try {
      return open_with_device(config, nvrtc);
    } catch (const BackendError& no_device) {
      opened.reason = no_device.what();
      const std::string arch = env_or("STUBJIT_CUDA_ARCH", "");
      if (arch.empty()) return opened;
      // A target to compile for without the device; a bad one adds to why there is no
      // backend, without hiding that there is no device.
      try {
        const CudaTarget target =
            choose_cuda_target(parse_cuda_arch(arch), nvrtc->supported_archs, force_ptx());
        opened.toolchain = make_cuda_toolchain(NvrtcCompiler(nvrtc, target));
      } catch (const Error& bad_arch) {
        opened.reason +=
            std::string("; STUBJIT_CUDA_ARCH=") + arch + " cannot be used: " + bad_arch.what();
      }
    }
  } catch (const std::exception& error) {
    opened.toolchain.reset();
    opened.device.reset();
    opened.reason = error.what();
  }
  return opened;
}

}  // namespace stubjit::detail
