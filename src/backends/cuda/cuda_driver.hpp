// The CUDA driver API (libcuda.so.1), loaded at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_api.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail {

struct CudaDriver {
  std::shared_ptr<SharedLibrary> library;
  int version = 0;  // e.g. 13000 for CUDA 13.0

  cuda::cuGetErrorName_t get_error_name = nullptr;
  cuda::cuGetErrorString_t get_error_string = nullptr;
  cuda::cuInit_t init = nullptr;
  cuda::cuDriverGetVersion_t driver_get_version = nullptr;
  cuda::cuDeviceGetCount_t device_get_count = nullptr;
  cuda::cuDeviceGet_t device_get = nullptr;
  cuda::cuDeviceGetName_t device_get_name = nullptr;
  cuda::cuDeviceGetAttribute_t device_get_attribute = nullptr;
  cuda::cuDeviceTotalMem_t device_total_mem = nullptr;
  cuda::cuDevicePrimaryCtxRetain_t primary_ctx_retain = nullptr;
  cuda::cuDevicePrimaryCtxRelease_t primary_ctx_release = nullptr;
  cuda::cuCtxGetCurrent_t ctx_get_current = nullptr;
  cuda::cuCtxSetCurrent_t ctx_set_current = nullptr;
  cuda::cuCtxSynchronize_t ctx_synchronize = nullptr;
  cuda::cuModuleLoadDataEx_t module_load_data_ex = nullptr;
  cuda::cuModuleUnload_t module_unload = nullptr;
  cuda::cuModuleGetFunction_t module_get_function = nullptr;
  cuda::cuFuncGetAttribute_t func_get_attribute = nullptr;
  cuda::cuLaunchKernel_t launch_kernel = nullptr;
  cuda::cuMemAlloc_t mem_alloc = nullptr;
  cuda::cuMemFree_t mem_free = nullptr;
  cuda::cuMemcpyHtoD_t memcpy_htod = nullptr;
  cuda::cuMemcpyDtoH_t memcpy_dtoh = nullptr;
  cuda::cuMemcpyDtoD_t memcpy_dtod = nullptr;
  cuda::cuMemcpyHtoDAsync_t memcpy_htod_async = nullptr;
  cuda::cuMemcpyDtoHAsync_t memcpy_dtoh_async = nullptr;
  cuda::cuStreamCreate_t stream_create = nullptr;
  cuda::cuStreamDestroy_t stream_destroy = nullptr;
  cuda::cuStreamSynchronize_t stream_synchronize = nullptr;
  cuda::cuEventCreate_t event_create = nullptr;
  cuda::cuEventDestroy_t event_destroy = nullptr;
  cuda::cuEventRecord_t event_record = nullptr;
  cuda::cuEventSynchronize_t event_synchronize = nullptr;
  cuda::cuEventElapsedTime_t event_elapsed_time = nullptr;

  // "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory".
  std::string describe(cuda::CUresult result) const;
  // Throws BackendError "<what> failed: <describe(result)>" unless CUDA_SUCCESS.
  void check(cuda::CUresult result, const char* what) const;
  // e.g. "CUDA driver 13.0".
  std::string id() const;
};

// Only `override_path` when it is not empty (STUBJIT_CUDA_DRIVER_PATH), else
// libcuda.so.1 through the dynamic linker's search path (the driver installs it
// there; it is never shipped with the toolkit).
std::vector<std::string> cuda_driver_candidates(const std::string& override_path);

// Opens the driver from cuda_driver_candidates($STUBJIT_CUDA_DRIVER_PATH), resolves
// what stubjit uses and initializes it (cuInit). Throws BackendError with the reason.
std::shared_ptr<const CudaDriver> load_cuda_driver();

}  // namespace stubjit::detail
