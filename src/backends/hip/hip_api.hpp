// The few hipRTC and HIP runtime declarations the HIP backend uses, written out so
// that no HIP header is needed at build time. Everything is resolved with dlsym at
// run time (hip_library.cpp). Values are those of ROCm 5.x and unchanged in 6.x/7.x
// (checked against both headers); the one struct whose layout changed between them,
// hipDeviceProp_t, is never declared: hip_device.cpp reads the two fields it needs
// at the offsets of the layout the resolved function fills.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stubjit::detail::hip {

// --- hipRTC ---------------------------------------------------------------------------
using hiprtcResult = int;
inline constexpr hiprtcResult hiprtc_success = 0;
inline constexpr hiprtcResult hiprtc_error_invalid_option = 5;
inline constexpr hiprtcResult hiprtc_error_compilation = 6;
struct hiprtcProgramOpaque;
using hiprtcProgram = hiprtcProgramOpaque*;

struct RtcApi {
  const char* (*GetErrorString)(hiprtcResult) = nullptr;
  hiprtcResult (*Version)(int* major, int* minor) = nullptr;
  hiprtcResult (*CreateProgram)(hiprtcProgram* program, const char* source, const char* name,
                                int header_count, const char* const* headers,
                                const char* const* include_names) = nullptr;
  hiprtcResult (*DestroyProgram)(hiprtcProgram* program) = nullptr;
  hiprtcResult (*CompileProgram)(hiprtcProgram program, int option_count,
                                 const char* const* options) = nullptr;
  hiprtcResult (*GetProgramLogSize)(hiprtcProgram program, std::size_t* size) = nullptr;
  hiprtcResult (*GetProgramLog)(hiprtcProgram program, char* log) = nullptr;
  hiprtcResult (*GetCodeSize)(hiprtcProgram program, std::size_t* size) = nullptr;
  hiprtcResult (*GetCode)(hiprtcProgram program, char* code) = nullptr;
};

// --- HIP runtime ----------------------------------------------------------------------
using hipError_t = int;
inline constexpr hipError_t hip_success = 0;
inline constexpr hipError_t hip_error_no_device = 100;

struct ihipModule;
struct ihipFunction;
struct ihipStream;
using hipModule_t = ihipModule*;
using hipFunction_t = ihipFunction*;
using hipStream_t = ihipStream*;

using hipDeviceAttribute_t = int;  // hipDeviceAttribute_t values used below
inline constexpr hipDeviceAttribute_t attribute_max_block_dim_x = 26;  // y = 27, z = 28
inline constexpr hipDeviceAttribute_t attribute_max_grid_dim_x = 29;   // y = 30, z = 31
inline constexpr hipDeviceAttribute_t attribute_max_threads_per_block = 56;
inline constexpr hipDeviceAttribute_t attribute_multiprocessor_count = 63;
inline constexpr hipDeviceAttribute_t attribute_warp_size = 87;

using hipMemcpyKind = int;
inline constexpr hipMemcpyKind memcpy_host_to_device = 1;
inline constexpr hipMemcpyKind memcpy_device_to_host = 2;

struct RuntimeApi {
  const char* (*GetErrorName)(hipError_t) = nullptr;
  const char* (*GetErrorString)(hipError_t) = nullptr;
  hipError_t (*RuntimeGetVersion)(int* version) = nullptr;
  hipError_t (*Init)(unsigned flags) = nullptr;
  hipError_t (*GetDeviceCount)(int* count) = nullptr;
  hipError_t (*GetDevice)(int* device) = nullptr;
  hipError_t (*SetDevice)(int device) = nullptr;
  hipError_t (*DeviceGetAttribute)(int* value, hipDeviceAttribute_t attribute,
                                   int device) = nullptr;
  // hipGetDevicePropertiesR0600 (ROCm >= 6) or hipGetDeviceProperties (ROCm 5):
  // fills a hipDeviceProp_t of the layout named by properties_layout_r0600.
  hipError_t (*GetDeviceProperties)(void* properties, int device) = nullptr;
  bool properties_layout_r0600 = false;
  hipError_t (*DeviceSynchronize)() = nullptr;
  hipError_t (*Malloc)(void** pointer, std::size_t bytes) = nullptr;
  hipError_t (*Free)(void* pointer) = nullptr;
  hipError_t (*MemcpyAsync)(void* destination, const void* source, std::size_t bytes,
                            hipMemcpyKind kind, hipStream_t stream) = nullptr;
  hipError_t (*StreamCreate)(hipStream_t* stream) = nullptr;
  hipError_t (*StreamDestroy)(hipStream_t stream) = nullptr;
  hipError_t (*StreamSynchronize)(hipStream_t stream) = nullptr;
  hipError_t (*ModuleLoadData)(hipModule_t* module, const void* image) = nullptr;
  hipError_t (*ModuleUnload)(hipModule_t module) = nullptr;
  hipError_t (*ModuleGetFunction)(hipFunction_t* function, hipModule_t module,
                                  const char* name) = nullptr;
  hipError_t (*ModuleLaunchKernel)(hipFunction_t function, unsigned grid_x, unsigned grid_y,
                                   unsigned grid_z, unsigned block_x, unsigned block_y,
                                   unsigned block_z, unsigned shared_bytes, hipStream_t stream,
                                   void** kernel_params, void** extra) = nullptr;
};

}  // namespace stubjit::detail::hip
