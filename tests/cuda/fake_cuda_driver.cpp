// A stand-in for libcuda.so.1, built in the test tree and loaded through
// STUBJIT_CUDA_DRIVER_PATH, so that what the CUDA backend does with the driver can be
// checked without a GPU. It reports NVIDIA-like devices of compute capability 9.0;
// "device memory" is host memory, so copies really copy, and a launch only counts.
// Every call that needs a current context fails with CUDA_ERROR_INVALID_CONTEXT
// without one, as the real driver does, and records which context was current, so a
// test can check that stubjit worked in its own context and gave the thread back the
// application's.
//
// Environment, read at each call:
//   STUBJIT_FAKE_CUDA_DEVICES     number of devices (default 1; 0: cuInit answers
//                                 CUDA_ERROR_NO_DEVICE, as drivers do without a GPU)
//   STUBJIT_FAKE_CUDA_DRIVER_VERSION  what cuDriverGetVersion answers (default 13000:
//                                 13.0; 12040 is 12.4)
//   STUBJIT_FAKE_CUDA_FAIL_ALLOC  1: cuMemAlloc_v2 answers CUDA_ERROR_OUT_OF_MEMORY
//   STUBJIT_FAKE_CUDA_MAX_THREADS what cuFuncGetAttribute says an entry can be launched
//                                 with (default 1024: as if registers allowed fewer)
//   STUBJIT_FAKE_CUDA_FAIL_LAUNCH n > 0: the n-th call of cuLaunchKernel in the process,
//                                 and every later one, answers CUDA_ERROR_LAUNCH_FAILED
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "backends/cuda/cuda_api.hpp"

namespace stubjit::detail::cuda {
// The opaque handles, given a body here only.
struct CUctxOpaque {
  int device;
};
struct CUmodOpaque {};
struct CUfuncOpaque {};
struct CUstreamOpaque {};
struct CUeventOpaque {};
}  // namespace stubjit::detail::cuda

#define STUBJIT_FAKE_EXPORT __attribute__((visibility("default")))

namespace {

using namespace stubjit::detail::cuda;

constexpr CUresult out_of_memory = 2;
constexpr CUresult invalid_value = 1;
constexpr CUresult invalid_device = 101;
constexpr CUresult invalid_context = 201;
constexpr CUresult launch_failed = 719;  // CUDA_ERROR_LAUNCH_FAILED
constexpr int max_devices = 8;

CUctxOpaque primary_contexts[max_devices] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
CUmodOpaque the_module;
CUfuncOpaque the_function;
CUstreamOpaque streams[64];
CUeventOpaque the_event;
thread_local CUcontext current = nullptr;

struct Calls {
  std::mutex mutex;
  std::map<std::string, CUcontext> context_at_last;
  std::map<std::string, long> count;
};
Calls& calls() {
  static Calls instance;
  return instance;
}

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}
int device_count() { return env_int("STUBJIT_FAKE_CUDA_DEVICES", 1); }

void record(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.context_at_last[function] = current;
  ++c.count[function];
}

// For the calls that act on the current context.
CUresult in_context(const char* function) {
  record(function);
  return current ? CUDA_SUCCESS : invalid_context;
}

}  // namespace

extern "C" {

// --- test hooks -----------------------------------------------------------------------

// The context that was current at the last call of `function` (nullptr: none, or
// never called; stubjit_fake_cuda_calls tells which).
STUBJIT_FAKE_EXPORT void* stubjit_fake_cuda_context_at_last(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.context_at_last.find(function);
  return found == c.context_at_last.end() ? nullptr : found->second;
}

STUBJIT_FAKE_EXPORT long stubjit_fake_cuda_calls(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.count.find(function);
  return found == c.count.end() ? 0 : found->second;
}

// --- the driver API stubjit resolves --------------------------------------------------

STUBJIT_FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char** name) {
  static const std::map<CUresult, const char*> names = {
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
      {invalid_value, "CUDA_ERROR_INVALID_VALUE"},
      {out_of_memory, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
      {invalid_device, "CUDA_ERROR_INVALID_DEVICE"},
      {invalid_context, "CUDA_ERROR_INVALID_CONTEXT"},
      {launch_failed, "CUDA_ERROR_LAUNCH_FAILED"}};
  const auto found = names.find(error);
  *name = found == names.end() ? nullptr : found->second;
  return *name ? CUDA_SUCCESS : invalid_value;
}
STUBJIT_FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  if (cuGetErrorName(error, text) != CUDA_SUCCESS) return invalid_value;
  *text = "(from stubjit's fake CUDA driver)";
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuInit(unsigned) {
  return device_count() > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}
STUBJIT_FAKE_EXPORT CUresult cuDriverGetVersion(int* version) {
  *version = env_int("STUBJIT_FAKE_CUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  *count = device_count();
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count() || ordinal >= max_devices) return invalid_device;
  *device = ordinal;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDeviceGetName(char* name, int length, CUdevice) {
  std::strncpy(name, "stubjit fake GPU", static_cast<std::size_t>(length));
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdeviceAttribute attribute,
                                                  CUdevice) {
  // An sm_90 device with the usual limits.
  static const std::map<CUdeviceAttribute, int> attributes = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 4},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0}};
  const auto found = attributes.find(attribute);
  if (found == attributes.end()) return invalid_value;
  *value = found->second;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice) {
  *bytes = std::size_t(1) << 30;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (device < 0 || device >= device_count() || device >= max_devices) return invalid_device;
  *context = &primary_contexts[device];
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
STUBJIT_FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext* context) {
  *context = current;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuCtxSynchronize() { return in_context("cuCtxSynchronize"); }
STUBJIT_FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void*, unsigned, int*,
                                                void**) {
  const CUresult r = in_context("cuModuleLoadDataEx");
  if (r == CUDA_SUCCESS) *module = &the_module;
  return r;
}
STUBJIT_FAKE_EXPORT CUresult cuModuleUnload(CUmodule) { return in_context("cuModuleUnload"); }
STUBJIT_FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule, const char*) {
  *function = &the_function;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction) {
  *value = attribute == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
               ? env_int("STUBJIT_FAKE_CUDA_MAX_THREADS", 1024)
               : 32;
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                            unsigned, unsigned, unsigned, CUstream, void**,
                                            void**) {
  const CUresult r = in_context("cuLaunchKernel");
  const int fail_from = env_int("STUBJIT_FAKE_CUDA_FAIL_LAUNCH", 0);
  if (r == CUDA_SUCCESS && fail_from > 0 &&
      stubjit_fake_cuda_calls("cuLaunchKernel") >= fail_from) {
    return launch_failed;
  }
  return r;
}
STUBJIT_FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* pointer, std::size_t bytes) {
  if (const CUresult r = in_context("cuMemAlloc_v2"); r != CUDA_SUCCESS) return r;
  if (env_int("STUBJIT_FAKE_CUDA_FAIL_ALLOC", 0) == 1) return out_of_memory;
  void* memory = std::malloc(bytes);
  if (!memory) return out_of_memory;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (const CUresult r = in_context("cuMemFree_v2"); r != CUDA_SUCCESS) return r;
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr device, const void* host,
                                             std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyHtoD_v2"); r != CUDA_SUCCESS) return r;
  std::memcpy(reinterpret_cast<void*>(device), host, bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void* host, CUdeviceptr device, std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyDtoH_v2"); r != CUDA_SUCCESS) return r;
  std::memcpy(host, reinterpret_cast<const void*>(device), bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyDtoD_v2"); r != CUDA_SUCCESS) return r;
  std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr device, const void* host,
                                                  std::size_t bytes, CUstream) {
  if (const CUresult r = in_context("cuMemcpyHtoDAsync_v2"); r != CUDA_SUCCESS) return r;
  std::memcpy(reinterpret_cast<void*>(device), host, bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* host, CUdeviceptr device, std::size_t bytes,
                                                  CUstream) {
  if (const CUresult r = in_context("cuMemcpyDtoHAsync_v2"); r != CUDA_SUCCESS) return r;
  std::memcpy(host, reinterpret_cast<const void*>(device), bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned) {
  static std::atomic<int> next{0};
  if (const CUresult r = in_context("cuStreamCreate"); r != CUDA_SUCCESS) return r;
  *stream = &streams[next++ % 64];
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream) {
  return in_context("cuStreamDestroy_v2");
}
STUBJIT_FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) {
  return in_context("cuStreamSynchronize");
}
STUBJIT_FAKE_EXPORT CUresult cuEventCreate(CUevent* event, unsigned) {
  *event = &the_event;
  return in_context("cuEventCreate");
}
STUBJIT_FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent) { return in_context("cuEventDestroy_v2"); }
STUBJIT_FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
  return in_context("cuEventRecord");
}
STUBJIT_FAKE_EXPORT CUresult cuEventSynchronize(CUevent) {
  return in_context("cuEventSynchronize");
}
STUBJIT_FAKE_EXPORT CUresult cuEventElapsedTime_v2(float* milliseconds, CUevent, CUevent) {
  *milliseconds = 0.0f;
  return in_context("cuEventElapsedTime_v2");
}

}  // extern "C"
