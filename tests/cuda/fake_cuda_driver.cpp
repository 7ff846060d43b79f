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
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/cuda_api.hpp"
#include "cuda/fake_cubin.hpp"

namespace stubjit::detail::cuda {
// The opaque handles, given a body here only.
struct CUctxOpaque {
  int device;
};
// A loaded image (fake_cubin.hpp) and the functions got from it.
struct CUfuncOpaque {
  std::string name;
  stubjit::test::fake_cuda::KernelInfo info;
};
struct CUmodOpaque {
  stubjit::test::fake_cuda::ImageInfo image;
  std::string ptx;
  std::map<std::string, std::unique_ptr<CUfuncOpaque>> functions;
};
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
constexpr CUresult invalid_image = 200;  // CUDA_ERROR_INVALID_IMAGE
constexpr CUresult no_binary_for_gpu = 209;
constexpr CUresult unsupported_version = 222;  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
constexpr CUresult invalid_handle = 400;
constexpr CUresult not_found = 500;
constexpr int device_arch = 90;  // what cuDeviceGetAttribute reports: 9.0
constexpr int max_devices = 8;

CUctxOpaque primary_contexts[max_devices] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
std::mutex modules_mutex;
std::vector<std::unique_ptr<CUmodOpaque>> modules;
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

// Work queued on a stream (asynchronous copies, launches), done only when a correctly
// ordered synchronization comes: what a host reads before then is what was there
// before, as on a GPU. Synchronous copies, cuCtxSynchronize, cuEventSynchronize,
// cuMemFree and cuStreamDestroy first finish everything queued (as a driver's do, or
// may: the fake takes the strict reading only where a real driver is strict too).
struct Pending {
  CUstream stream;
  std::function<void()> work;
};
std::mutex pending_mutex;
std::deque<Pending> pending;
// Streams made with CU_STREAM_NON_BLOCKING: the legacy default stream (and so a
// synchronous copy) does not wait for them.
std::vector<CUstream> non_blocking;

enum class Finish { one_stream, blocking_streams, everything };

void enqueue(CUstream stream, std::function<void()> work) {
  std::lock_guard<std::mutex> lock(pending_mutex);
  pending.push_back({stream, std::move(work)});
}

// Finishes, in order, the work queued on `stream`, on every blocking stream (what the
// legacy default stream orders with), or everywhere.
void finish(CUstream stream, Finish which) {
  std::deque<Pending> due;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    std::deque<Pending> kept;
    for (Pending& item : pending) {
      const bool blocking =
          std::find(non_blocking.begin(), non_blocking.end(), item.stream) == non_blocking.end();
      const bool now = which == Finish::everything ||
                       (which == Finish::blocking_streams && blocking) || item.stream == stream;
      (now ? due : kept).push_back(std::move(item));
    }
    pending.swap(kept);
  }
  for (Pending& item : due) item.work();
}

// The last launch, as the driver received it (test hooks below).
struct LaunchRecord {
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared_bytes = 0;  // sharedMemBytes: the dynamic shared memory per block
  std::vector<std::vector<unsigned char>> params;
};
std::mutex launch_mutex;
LaunchRecord last_launch;

int driver_version() { return env_int("STUBJIT_FAKE_CUDA_DRIVER_VERSION", 13000); }

// The size of the image at `image`: a CUBIN's from its ELF header (the section headers
// come last), PTX's as text.
std::size_t image_size(const void* image) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (std::memcmp(bytes, "\177ELF", 4) != 0) return std::strlen(static_cast<const char*>(image));
  std::uint64_t section_headers = 0;
  std::uint16_t entry_size = 0, entries = 0;
  std::memcpy(&section_headers, bytes + 0x28, 8);
  std::memcpy(&entry_size, bytes + 0x3a, 2);
  std::memcpy(&entries, bytes + 0x3c, 2);
  return section_headers + std::size_t(entry_size) * entries;
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

// The last launch: grid and block (x, y, z each) into dims[6]; returns the number of
// parameters the image declares, each copied from kernelParams when it was launched.
STUBJIT_FAKE_EXPORT std::size_t stubjit_fake_cuda_last_launch(unsigned* dims) {
  std::lock_guard<std::mutex> lock(launch_mutex);
  for (int i = 0; i < 3; ++i) {
    dims[i] = last_launch.grid[i];
    dims[3 + i] = last_launch.block[i];
  }
  return last_launch.params.size();
}

// The dynamic shared memory bytes per block the last launch asked for.
STUBJIT_FAKE_EXPORT unsigned stubjit_fake_cuda_last_shared_bytes() {
  std::lock_guard<std::mutex> lock(launch_mutex);
  return last_launch.shared_bytes;
}

// Parameter `index` of the last launch into `out` (at most `capacity` bytes); returns its
// size as the image declares it.
STUBJIT_FAKE_EXPORT std::size_t stubjit_fake_cuda_last_param(std::size_t index, void* out,
                                                             std::size_t capacity) {
  std::lock_guard<std::mutex> lock(launch_mutex);
  if (index >= last_launch.params.size()) return 0;
  const std::vector<unsigned char>& bytes = last_launch.params[index];
  std::memcpy(out, bytes.data(), std::min(capacity, bytes.size()));
  return bytes.size();
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
  *version = driver_version();
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
STUBJIT_FAKE_EXPORT CUresult cuCtxSynchronize() {
  const CUresult r = in_context("cuCtxSynchronize");
  if (r == CUDA_SUCCESS) finish(nullptr, Finish::everything);
  return r;
}
// Reads the image as a driver would before loading it: a malformed one, one for another
// architecture, or one made by a newer CUDA than the driver reports (CUBINs: a newer
// major version; PTX is not read) is refused.
STUBJIT_FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned, int*,
                                                void**) {
  const CUresult r = in_context("cuModuleLoadDataEx");
  if (r != CUDA_SUCCESS) return r;
  if (!image) return invalid_value;
  auto loaded = std::make_unique<CUmodOpaque>();
  std::string why;
  if (!stubjit::test::fake_cuda::read_image(image, image_size(image), loaded->image, why))
    return invalid_image;
  if (loaded->image.ptx) {
    loaded->ptx = static_cast<const char*>(image);
  } else {
    if (loaded->image.arch != device_arch) return no_binary_for_gpu;
    if (loaded->image.cuda_version / 10 > driver_version() / 1000) return unsupported_version;
  }
  std::lock_guard<std::mutex> lock(modules_mutex);
  modules.push_back(std::move(loaded));
  *module = modules.back().get();
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  const CUresult r = in_context("cuModuleUnload");
  if (r != CUDA_SUCCESS) return r;
  std::lock_guard<std::mutex> lock(modules_mutex);
  for (auto it = modules.begin(); it != modules.end(); ++it) {
    if (it->get() == module) {
      modules.erase(it);
      return CUDA_SUCCESS;
    }
  }
  return invalid_handle;
}
STUBJIT_FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule module,
                                                 const char* name) {
  if (!module || !name) return invalid_handle;
  std::lock_guard<std::mutex> lock(modules_mutex);
  auto& slot = module->functions[name];
  if (!slot) {
    stubjit::test::fake_cuda::KernelInfo info;
    if (module->image.ptx) {
      if (module->ptx.find(std::string(".entry ") + name) == std::string::npos) {
        module->functions.erase(name);
        return not_found;
      }
    } else {
      const auto found = module->image.kernels.find(name);
      if (found == module->image.kernels.end()) {
        module->functions.erase(name);
        return not_found;
      }
      info = found->second;
    }
    slot = std::make_unique<CUfuncOpaque>(CUfuncOpaque{name, info});
  }
  *function = slot.get();
  return CUDA_SUCCESS;
}
// The most threads per block: the image's launch bounds, or fewer where
// STUBJIT_FAKE_CUDA_MAX_THREADS says (as if registers allowed fewer).
unsigned max_threads_of(CUfunction function) {
  const unsigned bound = function->info.max_threads ? function->info.max_threads : 1024;
  return std::min<unsigned>(bound,
                            static_cast<unsigned>(env_int("STUBJIT_FAKE_CUDA_MAX_THREADS", 1024)));
}
STUBJIT_FAKE_EXPORT CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  if (!function) return invalid_handle;
  *value = attribute == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
               ? static_cast<int>(max_threads_of(function))
               : 32;
  return CUDA_SUCCESS;
}
// Refuses a block above the function's limit or no parameters where the image declares
// some; records the launch with each parameter copied at its declared size; queues it
// on its stream (it runs nothing).
STUBJIT_FAKE_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy,
                                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                            unsigned shared_bytes, CUstream stream, void** params,
                                            void**) {
  const CUresult r = in_context("cuLaunchKernel");
  if (r != CUDA_SUCCESS) return r;
  const int fail_from = env_int("STUBJIT_FAKE_CUDA_FAIL_LAUNCH", 0);
  if (fail_from > 0 && stubjit_fake_cuda_calls("cuLaunchKernel") >= fail_from) return launch_failed;
  if (!function) return invalid_handle;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return invalid_value;
  if (std::uint64_t(bx) * by * bz > max_threads_of(function)) return invalid_value;
  const std::vector<std::size_t>& sizes = function->info.param_sizes;
  if (!sizes.empty() && !params) return invalid_value;
  LaunchRecord record;
  const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  std::copy(dims, dims + 3, record.grid);
  std::copy(dims + 3, dims + 6, record.block);
  record.shared_bytes = shared_bytes;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(params[i]);
    record.params.emplace_back(bytes, bytes + sizes[i]);
  }
  {
    std::lock_guard<std::mutex> lock(launch_mutex);
    last_launch = std::move(record);
  }
  enqueue(stream, [] {});
  return CUDA_SUCCESS;
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
  finish(nullptr, Finish::everything);
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr device, const void* host,
                                             std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyHtoD_v2"); r != CUDA_SUCCESS) return r;
  finish(nullptr, Finish::blocking_streams);  // the legacy stream's order
  std::memcpy(reinterpret_cast<void*>(device), host, bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void* host, CUdeviceptr device, std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyDtoH_v2"); r != CUDA_SUCCESS) return r;
  finish(nullptr, Finish::blocking_streams);  // the legacy stream's order
  std::memcpy(host, reinterpret_cast<const void*>(device), bytes);
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, std::size_t bytes) {
  if (const CUresult r = in_context("cuMemcpyDtoD_v2"); r != CUDA_SUCCESS) return r;
  finish(nullptr, Finish::blocking_streams);  // the legacy stream's order
  std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}
// Queued: the host buffer is read only when the stream is synchronized (a caller that
// frees or changes it before then gets what a GPU would give it).
STUBJIT_FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr device, const void* host,
                                                  std::size_t bytes, CUstream stream) {
  if (const CUresult r = in_context("cuMemcpyHtoDAsync_v2"); r != CUDA_SUCCESS) return r;
  enqueue(stream, [=] { std::memcpy(reinterpret_cast<void*>(device), host, bytes); });
  return CUDA_SUCCESS;
}
// Queued: the host buffer holds the data only once the stream is synchronized.
STUBJIT_FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* host, CUdeviceptr device, std::size_t bytes,
                                                  CUstream stream) {
  if (const CUresult r = in_context("cuMemcpyDtoHAsync_v2"); r != CUDA_SUCCESS) return r;
  enqueue(stream, [=] { std::memcpy(host, reinterpret_cast<const void*>(device), bytes); });
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned flags) {
  static std::atomic<int> next{0};
  if (const CUresult r = in_context("cuStreamCreate"); r != CUDA_SUCCESS) return r;
  *stream = &streams[next++ % 64];
  std::lock_guard<std::mutex> lock(pending_mutex);
  non_blocking.erase(std::remove(non_blocking.begin(), non_blocking.end(), *stream),
                     non_blocking.end());
  if (flags & 1u) non_blocking.push_back(*stream);  // CU_STREAM_NON_BLOCKING
  return CUDA_SUCCESS;
}
STUBJIT_FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  const CUresult r = in_context("cuStreamDestroy_v2");
  if (r == CUDA_SUCCESS) finish(stream, Finish::one_stream);  // its work still completes
  return r;
}
STUBJIT_FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  const CUresult r = in_context("cuStreamSynchronize");
  if (r == CUDA_SUCCESS) finish(stream, Finish::one_stream);
  return r;
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
  const CUresult r = in_context("cuEventSynchronize");
  if (r == CUDA_SUCCESS) finish(nullptr, Finish::everything);  // events: not per stream
  return r;
}
STUBJIT_FAKE_EXPORT CUresult cuEventElapsedTime_v2(float* milliseconds, CUevent, CUevent) {
  *milliseconds = 0.0f;
  return in_context("cuEventElapsedTime_v2");
}

}  // extern "C"
