// A stand-in for the HIP runtime (libamdhip64), built in the test tree, so that what
// the HIP backend asks of the runtime can be checked without an AMD GPU. Its devices
// are gfx90a (wavefront 64), their properties in the layout of the ROCm header the build
// found (else ROCm 6's hipDeviceProp_tR0600 as documented: fake_hip_properties.cpp); "device
// memory" is host memory, so copies really copy, once the stream they are queued on is
// synchronized; a launch is checked against the code object (fake_code_object.hpp) and
// runs nothing. Each call records the calling thread's current device (per thread, default 0, as in
// HIP) and, for copies and stream waits, the stream it was given, so that a test can check that
// stubjit acted on its own device and gave the thread back the application's.
//
// Environment, read at each call:
//   STUBJIT_FAKE_HIP_DEVICES     number of devices (default 1; 0: hipGetDeviceCount
//                                answers hipErrorNoDevice, as ROCm does without a GPU)
//   STUBJIT_FAKE_HIP_FAIL_ALLOC  1: hipMalloc answers hipErrorOutOfMemory
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/hip/hip_api.hpp"
#include "hip/fake_code_object.hpp"
#include "hip/fake_hip_properties.hpp"

namespace stubjit::detail::hip {
// The opaque handles, given a body here only.
// A loaded code object (fake_code_object.hpp) and the functions got from it.
struct ihipFunction {
  std::string name;
  stubjit::test::fake_hip::Kernel kernel;
};
struct ihipModule {
  stubjit::test::fake_hip::CodeObject code;
  std::map<std::string, std::unique_ptr<ihipFunction>> functions;
};
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
constexpr hipError_t invalid_image = 200;      // hipErrorInvalidImage
constexpr hipError_t no_binary_for_gpu = 209;  // hipErrorNoBinaryForGpu
constexpr hipError_t invalid_handle = 400;     // hipErrorInvalidHandle
constexpr hipError_t not_found = 500;          // hipErrorNotFound
// The devices' processor (gcnArchName without features).
constexpr const char* device_processor = "gfx90a";

std::mutex modules_mutex;
std::vector<std::unique_ptr<ihipModule>> modules;

// Work queued on a stream (copies, launches), done only at a synchronization that
// orders after it: hipStreamSynchronize of that stream; of the null stream, or
// hipDeviceSynchronize and hipFree, everything (the streams stubjit makes are blocking,
// and the null stream waits for them).
struct Pending {
  hipStream_t stream;
  std::function<void()> work;
};
std::mutex pending_mutex;
std::deque<Pending> pending;

void enqueue(hipStream_t stream, std::function<void()> work) {
  std::lock_guard<std::mutex> lock(pending_mutex);
  pending.push_back({stream, std::move(work)});
}

void finish(hipStream_t stream, bool everything) {
  std::deque<Pending> due, kept;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    for (Pending& item : pending)
      (everything || item.stream == stream ? due : kept).push_back(std::move(item));
    pending.swap(kept);
  }
  for (Pending& item : due) item.work();
}

// The last launch: grid, block, and each explicit argument as the code object sizes it.
struct LaunchRecord {
  unsigned dims[6] = {0, 0, 0, 0, 0, 0};
  std::vector<std::vector<unsigned char>> params;
};
std::mutex launch_mutex;
LaunchRecord last_launch;
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

// The last launch: grid and block into dims[6]; returns its number of explicit arguments.
STUBJIT_FAKE_EXPORT std::size_t stubjit_fake_hip_last_launch(unsigned* dims) {
  std::lock_guard<std::mutex> lock(launch_mutex);
  std::memcpy(dims, last_launch.dims, sizeof last_launch.dims);
  return last_launch.params.size();
}

// Argument `index` of the last launch into `out` (at most `capacity` bytes); returns its
// size as the code object declares it.
STUBJIT_FAKE_EXPORT std::size_t stubjit_fake_hip_last_param(std::size_t index, void* out,
                                                            std::size_t capacity) {
  std::lock_guard<std::mutex> lock(launch_mutex);
  if (index >= last_launch.params.size()) return 0;
  const std::vector<unsigned char>& bytes = last_launch.params[index];
  std::memcpy(out, bytes.data(), std::min(capacity, bytes.size()));
  return bytes.size();
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
      {invalid_device, "hipErrorInvalidDevice"},
      {invalid_image, "hipErrorInvalidImage"},
      {no_binary_for_gpu, "hipErrorNoBinaryForGpu"},
      {invalid_handle, "hipErrorInvalidHandle"},
      {not_found, "hipErrorNotFound"}};
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
STUBJIT_FAKE_EXPORT hipError_t hipDeviceSynchronize() {
  finish(nullptr, true);
  return record("hipDeviceSynchronize");
}
STUBJIT_FAKE_EXPORT hipError_t hipMalloc(void** pointer, std::size_t bytes) {
  record("hipMalloc");
  if (env_int("STUBJIT_FAKE_HIP_FAIL_ALLOC", 0) == 1) return out_of_memory;
  *pointer = std::malloc(bytes);
  return *pointer ? hip_success : out_of_memory;
}
STUBJIT_FAKE_EXPORT hipError_t hipFree(void* pointer) {
  finish(nullptr, true);
  std::free(pointer);
  return record("hipFree");
}
STUBJIT_FAKE_EXPORT hipError_t hipMemcpyAsync(void* destination, const void* source,
                                              std::size_t bytes, hipMemcpyKind kind,
                                              hipStream_t stream) {
  enqueue(stream, [=] { std::memcpy(destination, source, bytes); });
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
  finish(stream, false);  // its work still completes
  return record("hipStreamDestroy", stream);
}
STUBJIT_FAKE_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  finish(stream, stream == nullptr);
  return record("hipStreamSynchronize", stream);
}
// Reads the code object as ROCm's loader would: not an AMDGPU ELF with readable
// metadata, or for another processor than the device's: refused.
STUBJIT_FAKE_EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  record("hipModuleLoadData");
  if (!image || std::memcmp(image, "\177ELF", 4) != 0) return invalid_image;
  auto loaded = std::make_unique<ihipModule>();
  std::string why;
  if (!stubjit::test::fake_hip::read_code_object(image, stubjit::test::fake_hip::elf_size(image),
                                                 loaded->code, why)) {
    return invalid_image;
  }
  const std::string target = loaded->code.target;
  const std::size_t processor = target.find(device_processor);
  const std::size_t after = processor + std::strlen(device_processor);
  if (processor == std::string::npos || (after < target.size() && target[after] != ':'))
    return no_binary_for_gpu;
  std::lock_guard<std::mutex> lock(modules_mutex);
  modules.push_back(std::move(loaded));
  *module = modules.back().get();
  return hip_success;
}
STUBJIT_FAKE_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  record("hipModuleUnload");
  std::lock_guard<std::mutex> lock(modules_mutex);
  for (auto it = modules.begin(); it != modules.end(); ++it) {
    if (it->get() == module) {
      modules.erase(it);
      return hip_success;
    }
  }
  return invalid_handle;
}
STUBJIT_FAKE_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module,
                                                    const char* name) {
  record("hipModuleGetFunction");
  if (!module || !name) return invalid_handle;
  std::lock_guard<std::mutex> lock(modules_mutex);
  const auto found = module->code.kernels.find(name);
  if (found == module->code.kernels.end()) return not_found;
  auto& slot = module->functions[name];
  if (!slot) slot = std::make_unique<ihipFunction>(ihipFunction{name, found->second});
  *function = slot.get();
  return hip_success;
}
// Refuses a group above .max_flat_workgroup_size, or no arguments where the kernel has
// some; records the launch with each explicit argument copied at its declared size;
// queues it on its stream (it runs nothing).
STUBJIT_FAKE_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t function, unsigned gx,
                                                     unsigned gy, unsigned gz, unsigned bx,
                                                     unsigned by, unsigned bz, unsigned,
                                                     hipStream_t stream, void** params, void**) {
  record("hipModuleLaunchKernel", stream);
  if (!function) return invalid_handle;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return invalid_value;
  const unsigned bound = function->kernel.max_flat_workgroup_size;
  if (bound != 0 && std::uint64_t(bx) * by * bz > bound) return invalid_value;
  const auto& arguments = function->kernel.arguments;
  if (!arguments.empty() && !params) return invalid_value;
  LaunchRecord launch;
  const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  std::memcpy(launch.dims, dims, sizeof dims);
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(params[i]);
    launch.params.emplace_back(bytes, bytes + arguments[i].size);
  }
  {
    std::lock_guard<std::mutex> lock(launch_mutex);
    last_launch = std::move(launch);
  }
  enqueue(stream, [] {});
  return hip_success;
}

}  // extern "C"
