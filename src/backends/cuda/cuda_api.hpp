// The few NVRTC and CUDA driver API types, constants and signatures stubjit uses,
// declared here so that nothing of the CUDA toolkit is needed to build. Values are
// those of the public, ABI-stable headers (nvrtc.h, cuda.h); the functions are
// resolved with dlsym at run time (nvrtc_library.cpp, cuda_driver.cpp).
#pragma once

#include <cstddef>

namespace stubjit::detail::cuda {

// --- NVRTC ----------------------------------------------------------------------------

using nvrtcResult = int;
inline constexpr nvrtcResult NVRTC_SUCCESS = 0;
inline constexpr nvrtcResult NVRTC_ERROR_INVALID_OPTION = 5;
inline constexpr nvrtcResult NVRTC_ERROR_COMPILATION = 6;
struct nvrtcProgramOpaque;
using nvrtcProgram = nvrtcProgramOpaque*;

using nvrtcGetErrorString_t = const char* (*)(nvrtcResult);
using nvrtcVersion_t = nvrtcResult (*)(int* major, int* minor);
using nvrtcGetNumSupportedArchs_t = nvrtcResult (*)(int* count);
using nvrtcGetSupportedArchs_t = nvrtcResult (*)(int* archs);
using nvrtcCreateProgram_t = nvrtcResult (*)(nvrtcProgram* program, const char* source,
                                             const char* name, int header_count,
                                             const char* const* headers,
                                             const char* const* include_names);
using nvrtcDestroyProgram_t = nvrtcResult (*)(nvrtcProgram* program);
using nvrtcCompileProgram_t = nvrtcResult (*)(nvrtcProgram program, int option_count,
                                              const char* const* options);
using nvrtcGetSize_t = nvrtcResult (*)(nvrtcProgram program, std::size_t* size);
using nvrtcGetBytes_t = nvrtcResult (*)(nvrtcProgram program, char* out);

// --- CUDA driver ----------------------------------------------------------------------

using CUresult = int;
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctxOpaque;
using CUcontext = CUctxOpaque*;
struct CUmodOpaque;
using CUmodule = CUmodOpaque*;
struct CUfuncOpaque;
using CUfunction = CUfuncOpaque*;
struct CUstreamOpaque;
using CUstream = CUstreamOpaque*;
struct CUeventOpaque;
using CUevent = CUeventOpaque*;

// CUdevice_attribute values.
enum CUdeviceAttribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CUfunction_attribute values.
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;

// CUjit_option values (module loading with an error log, for PTX).
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// cuEventCreate flags.
inline constexpr unsigned CU_EVENT_DEFAULT = 0;

using cuGetErrorName_t = CUresult (*)(CUresult, const char**);
using cuGetErrorString_t = CUresult (*)(CUresult, const char**);
using cuInit_t = CUresult (*)(unsigned flags);
using cuDriverGetVersion_t = CUresult (*)(int* version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (*)(char* name, int length, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (*)(int* value, CUdeviceAttribute attribute,
                                            CUdevice device);
using cuDeviceTotalMem_t = CUresult (*)(std::size_t* bytes, CUdevice device);
using cuDevicePrimaryCtxRetain_t = CUresult (*)(CUcontext* context, CUdevice device);
using cuDevicePrimaryCtxRelease_t = CUresult (*)(CUdevice device);
using cuCtxGetCurrent_t = CUresult (*)(CUcontext* context);
using cuCtxSetCurrent_t = CUresult (*)(CUcontext context);
using cuCtxSynchronize_t = CUresult (*)();
using cuModuleLoadDataEx_t = CUresult (*)(CUmodule* module, const void* image,
                                          unsigned option_count, int* options,
                                          void** option_values);
using cuModuleUnload_t = CUresult (*)(CUmodule module);
using cuModuleGetFunction_t = CUresult (*)(CUfunction* function, CUmodule module, const char* name);
using cuFuncGetAttribute_t = CUresult (*)(int* value, int attribute, CUfunction function);
using cuLaunchKernel_t = CUresult (*)(CUfunction function, unsigned grid_x, unsigned grid_y,
                                      unsigned grid_z, unsigned block_x, unsigned block_y,
                                      unsigned block_z, unsigned shared_bytes, CUstream stream,
                                      void** params, void** extra);
using cuMemAlloc_t = CUresult (*)(CUdeviceptr* pointer, std::size_t bytes);
using cuMemFree_t = CUresult (*)(CUdeviceptr pointer);
using cuMemcpyHtoD_t = CUresult (*)(CUdeviceptr device, const void* host, std::size_t bytes);
using cuMemcpyDtoH_t = CUresult (*)(void* host, CUdeviceptr device, std::size_t bytes);
using cuMemcpyDtoD_t = CUresult (*)(CUdeviceptr to, CUdeviceptr from, std::size_t bytes);
using cuMemcpyHtoDAsync_t = CUresult (*)(CUdeviceptr device, const void* host, std::size_t bytes,
                                         CUstream stream);
using cuMemcpyDtoHAsync_t = CUresult (*)(void* host, CUdeviceptr device, std::size_t bytes,
                                         CUstream stream);
using cuStreamCreate_t = CUresult (*)(CUstream* stream, unsigned flags);
using cuStreamDestroy_t = CUresult (*)(CUstream stream);
using cuStreamSynchronize_t = CUresult (*)(CUstream stream);
using cuEventCreate_t = CUresult (*)(CUevent* event, unsigned flags);
using cuEventDestroy_t = CUresult (*)(CUevent event);
using cuEventRecord_t = CUresult (*)(CUevent event, CUstream stream);
using cuEventSynchronize_t = CUresult (*)(CUevent event);
using cuEventElapsedTime_t = CUresult (*)(float* milliseconds, CUevent start, CUevent end);

}  // namespace stubjit::detail::cuda
