// A stand-in for the HIP runtime (libamdhip64), built in the test tree, so that what
// the HIP backend asks of the runtime can be checked without an AMD GPU. Its devices
// are gfx90a (wavefront 64), their properties in the layout of the ROCm header the build
// found (else ROCm 6's hipDeviceProp_tR0600 as documented: fake_hip_properties.cpp); "device
// memory" is host memory, so copies really copy, and a launch only counts. Each call
// records the calling thread's current device (per thread, default 0, as in HIP) and,
// for copies and stream waits, the stream it was given, so that a test can check that
// stubjit acted on its own device and gave the thread back the application's.
//
// Environment, read at each call:
//   STUBJIT_FAKE_HIP_DEVICES     number of devices (default 1; 0: hipGetDeviceCount
//                                answers hipErrorNoDevice, as ROCm does without a GPU)
//   STUBJIT_FAKE_HIP_FAIL_ALLOC  1: hipMalloc answers hipErrorOutOfMemory
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "backends/hip/hip_api.hpp"
#include "hip/fake_hip_properties.hpp"

namespace stubjit::detail::hip {
// The opaque handles, given a body here only.
struct ihipModule {};
struct ihipFunction {};
struct ihipStream {
  int device;
};
}  // namespace stubjit::detail::hip

#define STUBJIT_FAKE_EXPORT __attribute__((visibility("default")))

namespace {

using namespace stubjit::detail::hip;

constexpr hipError_t invalid_value = 1;
constexpr hipError_t out_of_memory = 2;
constexpr hipError_t invalid_device = 101;

ihipModule the_module;
ihipFunction the_function;
ihipStream streams[64];
std::atomic<int> streams_created{0};
thread_local int current_device = 0;

struct Calls {
  std::mutex mutex;
  std::map<std::string, int> device_at_last;
  std::map<std::string, hipStream_t> stream_at_last;
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
int device_count() { return env_int("STUBJIT_FAKE_HIP_DEVICES", 1); }

hipError_t record(const char* function, hipStream_t stream = nullptr) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.device_at_last[function] = current_device;
  c.stream_at_last[function] = stream;
  ++c.count[function];
  return hip_success;
}

}  // namespace

extern "C" {

// --- test hooks -----------------------------------------------------------------------

// The current device at the last call of `function`; -1 when never called.
STUBJIT_FAKE_EXPORT int stubjit_fake_hip_device_at_last(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.device_at_last.find(function);
  return found == c.device_at_last.end() ? -1 : found->second;
}

// The stream given to the last call of `function` (copies, stream waits).
STUBJIT_FAKE_EXPORT void* stubjit_fake_hip_stream_at_last(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.stream_at_last.find(function);
  return found == c.stream_at_last.end() ? nullptr : found->second;
}

STUBJIT_FAKE_EXPORT long stubjit_fake_hip_calls(const char* function) {
  Calls& c = calls();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.count.find(function);
  return found == c.count.end() ? 0 : found->second;
}

// The device a stream belongs to.
STUBJIT_FAKE_EXPORT int stubjit_fake_hip_stream_device(void* stream) {
  return static_cast<ihipStream*>(stream)->device;
}

// --- the runtime API stubjit resolves -------------------------------------------------

STUBJIT_FAKE_EXPORT const char* hipGetErrorName(hipError_t error) {
  static const std::map<hipError_t, const char*> names = {
      {hip_success, "hipSuccess"},
      {invalid_value, "hipErrorInvalidValue"},
      {out_of_memory, "hipErrorOutOfMemory"},
      {hip_error_no_device, "hipErrorNoDevice"},
      {invalid_device, "hipErrorInvalidDevice"}};
  const auto found = names.find(error);
  return found == names.end() ? "hipErrorUnknown" : found->second;
}
STUBJIT_FAKE_EXPORT const char* hipGetErrorString(hipError_t) {
  return "(from stubjit's fake HIP runtime)";
}
STUBJIT_FAKE_EXPORT hipError_t hipRuntimeGetVersion(int* version) {
  *version = 60200000;  // 6.2.0
  return hip_success;
}
STUBJIT_FAKE_EXPORT hipError_t hipInit(unsigned) { return hip_success; }
STUBJIT_FAKE_EXPORT hipError_t hipGetDeviceCount(int* count) {
  *count = device_count();
  return *count > 0 ? hip_success : hip_error_no_device;
}
STUBJIT_FAKE_EXPORT hipError_t hipGetDevice(int* device) {
  if (device_count() == 0) return invalid_device;
  *device = current_device;
  return hip_success;
}
STUBJIT_FAKE_EXPORT hipError_t hipSetDevice(int device) {
  if (device < 0 || device >= device_count()) return invalid_device;
  current_device = device;
  return hip_success;
}
STUBJIT_FAKE_EXPORT hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute,
                                                     int device) {
  if (device < 0 || device >= device_count()) return invalid_device;
  static const std::map<hipDeviceAttribute_t, int> attributes = {
      {attribute_max_block_dim_x, 1024},
      {attribute_max_block_dim_x + 1, 1024},
      {attribute_max_block_dim_x + 2, 1024},
      {attribute_max_grid_dim_x, 2147483647},
      {attribute_max_grid_dim_x + 1, 65536},
      {attribute_max_grid_dim_x + 2, 65536},
      {attribute_max_threads_per_block, 1024},
      {attribute_multiprocessor_count, 104},
      {attribute_warp_size, 64}};
  const auto found = attributes.find(attribute);
  if (found == attributes.end()) return invalid_value;
  *value = found->second;
  return hip_success;
}
// At the offsets of the ROCm header the build found (fake_hip_properties.cpp), under the
// name that header's runtime exports: what the library reads must agree with both.
#if STUBJIT_FAKE_HIP_R0600
STUBJIT_FAKE_EXPORT hipError_t hipGetDevicePropertiesR0600(void* properties, int device) {
#else
STUBJIT_FAKE_EXPORT hipError_t hipGetDeviceProperties(void* properties, int device) {
#endif
  if (device < 0 || device >= device_count()) return invalid_device;
  const stubjit::test::fake_hip::PropertiesLayout layout =
      stubjit::test::fake_hip::properties_layout();
  char* bytes = static_cast<char*>(properties);
  std::strcpy(bytes + layout.name_offset, "stubjit fake AMD GPU");
  std::strcpy(bytes + layout.arch_name_offset, "gfx90a:sramecc+:xnack-");
  return hip_success;
}
STUBJIT_FAKE_EXPORT hipError_t hipDeviceSynchronize() { return record("hipDeviceSynchronize"); }
STUBJIT_FAKE_EXPORT hipError_t hipMalloc(void** pointer, std::size_t bytes) {
  record("hipMalloc");
  if (env_int("STUBJIT_FAKE_HIP_FAIL_ALLOC", 0) == 1) return out_of_memory;
  *pointer = std::malloc(bytes);
  return *pointer ? hip_success : out_of_memory;
}
STUBJIT_FAKE_EXPORT hipError_t hipFree(void* pointer) {
  std::free(pointer);
  return record("hipFree");
}
STUBJIT_FAKE_EXPORT hipError_t hipMemcpyAsync(void* destination, const void* source,
                                              std::size_t bytes, hipMemcpyKind kind,
                                              hipStream_t stream) {
  std::memcpy(destination, source, bytes);
  return record(kind == memcpy_host_to_device ? "hipMemcpyAsync(host to device)"
                                              : "hipMemcpyAsync(device to host)",
                stream);
}
STUBJIT_FAKE_EXPORT hipError_t hipStreamCreate(hipStream_t* stream) {
  *stream = &streams[streams_created++ % 64];
  (*stream)->device = current_device;
  return record("hipStreamCreate");
}
STUBJIT_FAKE_EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
  return record("hipStreamDestroy", stream);
}
STUBJIT_FAKE_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  return record("hipStreamSynchronize", stream);
}
STUBJIT_FAKE_EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void*) {
  *module = &the_module;
  return record("hipModuleLoadData");
}
STUBJIT_FAKE_EXPORT hipError_t hipModuleUnload(hipModule_t) { return record("hipModuleUnload"); }
STUBJIT_FAKE_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t,
                                                    const char*) {
  *function = &the_function;
  return record("hipModuleGetFunction");
}
STUBJIT_FAKE_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t, unsigned, unsigned, unsigned,
                                                     unsigned, unsigned, unsigned, unsigned,
                                                     hipStream_t stream, void**, void**) {
  return record("hipModuleLaunchKernel", stream);
}

}  // extern "C"
