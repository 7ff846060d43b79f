#include "backends/cuda/cuda_device.hpp"

#include <cstdio>

namespace stubjit::detail {
namespace {

int attribute(const CudaDriver& driver, cuda::CUdevice device, cuda::CUdeviceAttribute which,
              const char* what) {
  int value = 0;
  driver.check(driver.device_get_attribute(&value, which, device), what);
  return value;
}

std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

}  // namespace

std::string CudaDeviceInfo::describe() const {
  return name + " (device " + std::to_string(ordinal) + ", " + arch.sm() + ", " +
         std::to_string(multiprocessors) + " SMs, " + gib(total_memory) + ", " +
         std::to_string(shared_memory_per_block / 1024) + " KiB shared/block)";
}

int cuda_device_count(const CudaDriver& driver) {
  int count = 0;
  const cuda::CUresult r = driver.device_get_count(&count);
  if (r == cuda::CUDA_ERROR_NO_DEVICE) return 0;
  driver.check(r, "cuDeviceGetCount");
  return count;
}

CudaDeviceInfo query_cuda_device(const CudaDriver& driver, int ordinal) {
  using namespace cuda;
  CUdevice device = 0;
  driver.check(driver.device_get(&device, ordinal), "cuDeviceGet");
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  driver.check(driver.device_get_name(name, sizeof name, device), "cuDeviceGetName");
  info.name = name;
  info.arch.major =
      attribute(driver, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  info.arch.minor =
      attribute(driver, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  const CUdeviceAttribute grid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  const CUdeviceAttribute block[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (int p = 0; p < 3; ++p) {
    info.max_grid[p] = static_cast<std::uint64_t>(attribute(driver, device, grid[p], "max grid"));
    info.max_block[p] =
        static_cast<std::uint32_t>(attribute(driver, device, block[p], "max block"));
  }
  info.max_threads_per_block = static_cast<std::uint32_t>(
      attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads"));
  info.warp_size =
      static_cast<std::uint32_t>(attribute(driver, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp"));
  info.multiprocessors =
      attribute(driver, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  info.shared_memory_per_block = static_cast<std::size_t>(
      attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory"));
  driver.check(driver.device_total_mem(&info.total_memory, device), "cuDeviceTotalMem");
  return info;
}

DeviceLimits cuda_limits(const CudaDeviceInfo& device) {
  DeviceLimits limits;
  limits.max_grid = device.max_grid;
  limits.max_block = device.max_block;
  limits.max_threads_per_block = device.max_threads_per_block;
  limits.max_threads_per_dim = 0;  // CUDA counts grids in blocks, not threads
  limits.warp_size = device.warp_size;
  limits.preferred_block = cuda_block_shapes();
  // Without opting in per function (cuFuncSetAttribute), dynamic shared memory is
  // limited to what the device gives every block.
  if (device.shared_memory_per_block != 0)
    limits.max_shared_bytes = static_cast<std::uint32_t>(device.shared_memory_per_block);
  return limits;
}

CudaDeviceInfo typical_cuda_device(const CudaArch& arch) {
  CudaDeviceInfo info;
  info.name = "no device";
  info.arch = arch;
  info.max_grid = {2147483647ULL, 65535, 65535};
  info.max_block = {1024, 1024, 64};
  info.max_threads_per_block = 1024;
  info.warp_size = 32;
  info.shared_memory_per_block = 48 * 1024;
  return info;
}

}  // namespace stubjit::detail
