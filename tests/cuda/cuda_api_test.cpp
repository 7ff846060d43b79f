// cuda_api.hpp writes out the NVRTC and driver declarations stubjit uses instead of
// including the toolkit's headers. Built only where CMake found the toolkit's cuda.h
// and nvrtc.h: each constant against the header's, each function pointer type
// against the header's declaration of the very symbol that nvrtc_library.cpp and
// cuda_driver.cpp resolve (the versioned name, e.g. cuMemAlloc_v2), and the sizes of
// the handle and enum types that cross the ABI.
#include <cuda.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <cstddef>
#include <type_traits>

#include "backends/cuda/cuda_api.hpp"

namespace stubjit::detail::cuda {
namespace {

// What each header type is in cuda_api.hpp. Enums are ints there, opaque handles
// are pointers to stubjit's own incomplete structs.
template <class T>
struct Ours {
  using type = T;
};
template <class T>
struct Ours<T*> {
  using type = typename Ours<T>::type*;
};
template <class T>
struct Ours<const T> {
  using type = const typename Ours<T>::type;
};
template <>
struct Ours<::CUresult> {
  using type = CUresult;
};
template <>
struct Ours<::CUcontext> {
  using type = CUcontext;
};
template <>
struct Ours<::CUmodule> {
  using type = CUmodule;
};
template <>
struct Ours<::CUfunction> {
  using type = CUfunction;
};
template <>
struct Ours<::CUstream> {
  using type = CUstream;
};
template <>
struct Ours<::CUevent> {
  using type = CUevent;
};
template <>
struct Ours<::CUdevice_attribute> {
  using type = CUdeviceAttribute;
};
template <>
struct Ours<::CUfunction_attribute> {
  using type = int;
};
template <>
struct Ours<::CUjit_option> {
  using type = int;
};
template <>
struct Ours<::nvrtcResult> {
  using type = nvrtcResult;
};
template <>
struct Ours<::nvrtcProgram> {
  using type = nvrtcProgram;
};

template <class F>
struct OursFunction;
template <class R, class... A>
struct OursFunction<R (*)(A...)> {
  using type = typename Ours<R>::type (*)(typename Ours<A>::type...);
};

// True when the header's function type, in cuda_api.hpp's types, is `Declared`. The
// header's function is named only inside decltype: the program does not link against
// the toolkit, so an address taken at run time (kept at -O0) would not resolve.
template <class Declared, class HeaderFunction>
constexpr bool same_signature() {
  return std::is_same_v<typename OursFunction<HeaderFunction>::type, Declared>;
}

#define EXPECT_SIGNATURE(declared, symbol)                       \
  EXPECT_TRUE((same_signature<declared, decltype(&::symbol)>())) \
      << #declared " is not the type of " #symbol

TEST(CudaApi, TypesCrossTheAbiAsDeclared) {
  EXPECT_TRUE((std::is_same_v<::CUdeviceptr, CUdeviceptr>));
  EXPECT_TRUE((std::is_same_v<::CUdevice, CUdevice>));
  // Enums: stubjit passes and receives ints (an array of them for the JIT options).
  EXPECT_EQ(sizeof(::CUresult), sizeof(CUresult));
  EXPECT_EQ(sizeof(::CUdevice_attribute), sizeof(CUdeviceAttribute));
  EXPECT_EQ(sizeof(::CUfunction_attribute), sizeof(int));
  EXPECT_EQ(sizeof(::CUjit_option), sizeof(int));
  EXPECT_EQ(sizeof(::nvrtcResult), sizeof(nvrtcResult));
  // Handles are pointers on both sides.
  EXPECT_EQ(sizeof(::CUcontext), sizeof(CUcontext));
  EXPECT_EQ(sizeof(::CUstream), sizeof(CUstream));
  EXPECT_EQ(sizeof(::nvrtcProgram), sizeof(nvrtcProgram));
}

TEST(CudaApi, ConstantsAreTheHeadersValues) {
  EXPECT_EQ(NVRTC_SUCCESS, int(::NVRTC_SUCCESS));
  EXPECT_EQ(NVRTC_ERROR_INVALID_OPTION, int(::NVRTC_ERROR_INVALID_OPTION));
  EXPECT_EQ(NVRTC_ERROR_COMPILATION, int(::NVRTC_ERROR_COMPILATION));
  EXPECT_EQ(CUDA_SUCCESS, int(::CUDA_SUCCESS));
  EXPECT_EQ(CUDA_ERROR_NO_DEVICE, int(::CUDA_ERROR_NO_DEVICE));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            int(::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), int(::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y), int(::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), int(::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), int(::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y), int(::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z), int(::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
            int(::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_WARP_SIZE), int(::CU_DEVICE_ATTRIBUTE_WARP_SIZE));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            int(::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            int(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  EXPECT_EQ(int(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
            int(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  EXPECT_EQ(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            int(::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  EXPECT_EQ(CU_FUNC_ATTRIBUTE_NUM_REGS, int(::CU_FUNC_ATTRIBUTE_NUM_REGS));
  EXPECT_EQ(CU_JIT_ERROR_LOG_BUFFER, int(::CU_JIT_ERROR_LOG_BUFFER));
  EXPECT_EQ(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, int(::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES));
  EXPECT_EQ(CU_EVENT_DEFAULT, unsigned(::CU_EVENT_DEFAULT));
}

TEST(CudaApi, NvrtcFunctionsHaveTheHeadersSignatures) {
  EXPECT_SIGNATURE(nvrtcGetErrorString_t, nvrtcGetErrorString);
  EXPECT_SIGNATURE(nvrtcVersion_t, nvrtcVersion);
  EXPECT_SIGNATURE(nvrtcGetNumSupportedArchs_t, nvrtcGetNumSupportedArchs);
  EXPECT_SIGNATURE(nvrtcGetSupportedArchs_t, nvrtcGetSupportedArchs);
  EXPECT_SIGNATURE(nvrtcCreateProgram_t, nvrtcCreateProgram);
  EXPECT_SIGNATURE(nvrtcDestroyProgram_t, nvrtcDestroyProgram);
  EXPECT_SIGNATURE(nvrtcCompileProgram_t, nvrtcCompileProgram);
  EXPECT_SIGNATURE(nvrtcGetSize_t, nvrtcGetProgramLogSize);
  EXPECT_SIGNATURE(nvrtcGetBytes_t, nvrtcGetProgramLog);
  EXPECT_SIGNATURE(nvrtcGetSize_t, nvrtcGetCUBINSize);
  EXPECT_SIGNATURE(nvrtcGetBytes_t, nvrtcGetCUBIN);
  EXPECT_SIGNATURE(nvrtcGetSize_t, nvrtcGetPTXSize);
  EXPECT_SIGNATURE(nvrtcGetBytes_t, nvrtcGetPTX);
}

TEST(CudaApi, DriverFunctionsHaveTheHeadersSignatures) {
  EXPECT_SIGNATURE(cuGetErrorName_t, cuGetErrorName);
  EXPECT_SIGNATURE(cuGetErrorString_t, cuGetErrorString);
  EXPECT_SIGNATURE(cuInit_t, cuInit);
  EXPECT_SIGNATURE(cuDriverGetVersion_t, cuDriverGetVersion);
  EXPECT_SIGNATURE(cuDeviceGetCount_t, cuDeviceGetCount);
  EXPECT_SIGNATURE(cuDeviceGet_t, cuDeviceGet);
  EXPECT_SIGNATURE(cuDeviceGetName_t, cuDeviceGetName);
  EXPECT_SIGNATURE(cuDeviceGetAttribute_t, cuDeviceGetAttribute);
  EXPECT_SIGNATURE(cuDeviceTotalMem_t, cuDeviceTotalMem_v2);
  EXPECT_SIGNATURE(cuDevicePrimaryCtxRetain_t, cuDevicePrimaryCtxRetain);
  EXPECT_SIGNATURE(cuDevicePrimaryCtxRelease_t, cuDevicePrimaryCtxRelease_v2);
  EXPECT_SIGNATURE(cuCtxGetCurrent_t, cuCtxGetCurrent);
  EXPECT_SIGNATURE(cuCtxSetCurrent_t, cuCtxSetCurrent);
  EXPECT_SIGNATURE(cuCtxSynchronize_t, cuCtxSynchronize);
  EXPECT_SIGNATURE(cuModuleLoadDataEx_t, cuModuleLoadDataEx);
  EXPECT_SIGNATURE(cuModuleUnload_t, cuModuleUnload);
  EXPECT_SIGNATURE(cuModuleGetFunction_t, cuModuleGetFunction);
  EXPECT_SIGNATURE(cuFuncGetAttribute_t, cuFuncGetAttribute);
  EXPECT_SIGNATURE(cuLaunchKernel_t, cuLaunchKernel);
  EXPECT_SIGNATURE(cuMemAlloc_t, cuMemAlloc_v2);
  EXPECT_SIGNATURE(cuMemFree_t, cuMemFree_v2);
  EXPECT_SIGNATURE(cuMemcpyHtoD_t, cuMemcpyHtoD_v2);
  EXPECT_SIGNATURE(cuMemcpyDtoH_t, cuMemcpyDtoH_v2);
  EXPECT_SIGNATURE(cuMemcpyDtoD_t, cuMemcpyDtoD_v2);
  EXPECT_SIGNATURE(cuMemcpyHtoDAsync_t, cuMemcpyHtoDAsync_v2);
  EXPECT_SIGNATURE(cuMemcpyDtoHAsync_t, cuMemcpyDtoHAsync_v2);
  EXPECT_SIGNATURE(cuStreamCreate_t, cuStreamCreate);
  EXPECT_SIGNATURE(cuStreamDestroy_t, cuStreamDestroy_v2);
  EXPECT_SIGNATURE(cuStreamSynchronize_t, cuStreamSynchronize);
  EXPECT_SIGNATURE(cuEventCreate_t, cuEventCreate);
  EXPECT_SIGNATURE(cuEventDestroy_t, cuEventDestroy_v2);
  EXPECT_SIGNATURE(cuEventRecord_t, cuEventRecord);
  EXPECT_SIGNATURE(cuEventSynchronize_t, cuEventSynchronize);
#if CUDA_VERSION >= 12080
  EXPECT_SIGNATURE(cuEventElapsedTime_t, cuEventElapsedTime_v2);
#else
  EXPECT_SIGNATURE(cuEventElapsedTime_t, cuEventElapsedTime);
#endif
}

}  // namespace
}  // namespace stubjit::detail::cuda
