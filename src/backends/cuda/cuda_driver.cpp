#include "backends/cuda/cuda_driver.hpp"

#include "backends/cuda/nvrtc_library.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"

namespace stubjit::detail {

std::string CudaDriver::describe(cuda::CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (get_error_name) get_error_name(result, &name);
  if (get_error_string) get_error_string(result, &text);
  return std::string(name ? name : "CUDA error") + " (" + std::to_string(result) + ")" +
         (text ? std::string(": ") + text : "");
}

void CudaDriver::check(cuda::CUresult result, const char* what) const {
  if (result != cuda::CUDA_SUCCESS)
    throw BackendError(std::string(what) + " failed: " + describe(result));
}

std::string CudaDriver::id() const { return "CUDA driver " + cuda_version_text(version); }

std::vector<std::string> cuda_driver_candidates(const std::string& override_path) {
  if (!override_path.empty()) return {override_path};
  return {"libcuda.so.1"};
}

std::shared_ptr<const CudaDriver> load_cuda_driver() {
  const std::string override_path = env_or("STUBJIT_CUDA_DRIVER_PATH", "");
  std::string why;
  auto library = SharedLibrary::open_first(cuda_driver_candidates(override_path), why);
  if (!library) {
    throw BackendError(override_path.empty()
                           ? "no CUDA driver (libcuda.so.1 " +
                                 (why == "not found" ? why : "does not load: " + why) +
                                 "; set STUBJIT_CUDA_DRIVER_PATH)"
                           : "cannot load the CUDA driver from STUBJIT_CUDA_DRIVER_PATH=" +
                                 override_path + ": " + why);
  }
  auto driver = std::make_shared<CudaDriver>();
  std::string missing;
  library->resolve(driver->get_error_name, "cuGetErrorName", missing);
  library->resolve(driver->get_error_string, "cuGetErrorString", missing);
  library->resolve(driver->init, "cuInit", missing);
  library->resolve(driver->driver_get_version, "cuDriverGetVersion", missing);
  library->resolve(driver->device_get_count, "cuDeviceGetCount", missing);
  library->resolve(driver->device_get, "cuDeviceGet", missing);
  library->resolve(driver->device_get_name, "cuDeviceGetName", missing);
  library->resolve(driver->device_get_attribute, "cuDeviceGetAttribute", missing);
  library->resolve(driver->device_total_mem, "cuDeviceTotalMem_v2", missing);
  library->resolve(driver->primary_ctx_retain, "cuDevicePrimaryCtxRetain", missing);
  library->resolve(driver->primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", missing);
  library->resolve(driver->ctx_get_current, "cuCtxGetCurrent", missing);
  library->resolve(driver->ctx_set_current, "cuCtxSetCurrent", missing);
  library->resolve(driver->ctx_synchronize, "cuCtxSynchronize", missing);
  library->resolve(driver->module_load_data_ex, "cuModuleLoadDataEx", missing);
  library->resolve(driver->module_unload, "cuModuleUnload", missing);
  library->resolve(driver->module_get_function, "cuModuleGetFunction", missing);
  library->resolve(driver->func_get_attribute, "cuFuncGetAttribute", missing);
  library->resolve(driver->launch_kernel, "cuLaunchKernel", missing);
  library->resolve(driver->mem_alloc, "cuMemAlloc_v2", missing);
  library->resolve(driver->mem_free, "cuMemFree_v2", missing);
  library->resolve(driver->memcpy_htod, "cuMemcpyHtoD_v2", missing);
  library->resolve(driver->memcpy_dtoh, "cuMemcpyDtoH_v2", missing);
  library->resolve(driver->memcpy_dtod, "cuMemcpyDtoD_v2", missing);
  library->resolve(driver->memcpy_htod_async, "cuMemcpyHtoDAsync_v2", missing);
  library->resolve(driver->memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2", missing);
  library->resolve(driver->stream_create, "cuStreamCreate", missing);
  library->resolve(driver->stream_destroy, "cuStreamDestroy_v2", missing);
  library->resolve(driver->stream_synchronize, "cuStreamSynchronize", missing);
  library->resolve(driver->event_create, "cuEventCreate", missing);
  library->resolve(driver->event_destroy, "cuEventDestroy_v2", missing);
  library->resolve(driver->event_record, "cuEventRecord", missing);
  library->resolve(driver->event_synchronize, "cuEventSynchronize", missing);
  // CUDA 12.8 added a _v2; older drivers only have the original.
  std::string no_v2;
  library->resolve(driver->event_elapsed_time, "cuEventElapsedTime_v2", no_v2);
  if (!driver->event_elapsed_time)
    library->resolve(driver->event_elapsed_time, "cuEventElapsedTime", missing);
  if (!missing.empty()) {
    throw BackendError(library->name() + " is not a usable CUDA driver; missing " + missing);
  }
  driver->check(driver->init(0), "cuInit");
  driver->check(driver->driver_get_version(&driver->version), "cuDriverGetVersion");
  driver->library = std::move(library);
  return driver;
}

}  // namespace stubjit::detail
