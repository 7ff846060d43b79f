#include "backends/hip/hip_library.hpp"

#include <mutex>

#include "backends/hip/comgr.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail::hip {
namespace {

// Opens each candidate until one defines every symbol `resolve` asks for.
template <class Resolve>
std::shared_ptr<SharedLibrary> open_first(const std::vector<std::string>& candidates,
                                          const char* what, std::string& reason, std::string& file,
                                          Resolve&& resolve) {
  std::string tried;
  for (const std::string& candidate : candidates) {
    std::string problem;
    std::shared_ptr<SharedLibrary> library = SharedLibrary::open(candidate, problem);
    if (!library) {
      tried += "\n    " + candidate + ": " + problem;
      continue;
    }
    std::string missing;
    resolve(*library, missing);
    if (missing.empty()) {
      file = candidate;
      return library;
    }
    tried += "\n    " + candidate + ": lacks " + missing;
  }
  reason = std::string(what) + " not found; tried:" + tried;
  return nullptr;
}

template <class F>
void bind(const SharedLibrary& library, const char* name, F& function, std::string& missing) {
  if (!library.bind(function, name) && missing.empty()) missing = name;
}

void resolve_rtc(const SharedLibrary& handle, RtcApi& api, std::string& missing) {
  bind(handle, "hiprtcGetErrorString", api.GetErrorString, missing);
  bind(handle, "hiprtcVersion", api.Version, missing);
  bind(handle, "hiprtcCreateProgram", api.CreateProgram, missing);
  bind(handle, "hiprtcDestroyProgram", api.DestroyProgram, missing);
  bind(handle, "hiprtcCompileProgram", api.CompileProgram, missing);
  bind(handle, "hiprtcGetProgramLogSize", api.GetProgramLogSize, missing);
  bind(handle, "hiprtcGetProgramLog", api.GetProgramLog, missing);
  bind(handle, "hiprtcGetCodeSize", api.GetCodeSize, missing);
  bind(handle, "hiprtcGetCode", api.GetCode, missing);
}

void resolve_runtime(const SharedLibrary& handle, RuntimeApi& api, std::string& missing) {
  bind(handle, "hipGetErrorName", api.GetErrorName, missing);
  bind(handle, "hipGetErrorString", api.GetErrorString, missing);
  bind(handle, "hipRuntimeGetVersion", api.RuntimeGetVersion, missing);
  bind(handle, "hipInit", api.Init, missing);
  bind(handle, "hipGetDeviceCount", api.GetDeviceCount, missing);
  bind(handle, "hipGetDevice", api.GetDevice, missing);
  bind(handle, "hipSetDevice", api.SetDevice, missing);
  bind(handle, "hipDeviceGetAttribute", api.DeviceGetAttribute, missing);
  bind(handle, "hipDeviceSynchronize", api.DeviceSynchronize, missing);
  bind(handle, "hipMalloc", api.Malloc, missing);
  bind(handle, "hipFree", api.Free, missing);
  bind(handle, "hipMemcpyAsync", api.MemcpyAsync, missing);
  bind(handle, "hipStreamCreate", api.StreamCreate, missing);
  bind(handle, "hipStreamDestroy", api.StreamDestroy, missing);
  bind(handle, "hipStreamSynchronize", api.StreamSynchronize, missing);
  bind(handle, "hipModuleLoadData", api.ModuleLoadData, missing);
  bind(handle, "hipModuleUnload", api.ModuleUnload, missing);
  bind(handle, "hipModuleGetFunction", api.ModuleGetFunction, missing);
  bind(handle, "hipModuleLaunchKernel", api.ModuleLaunchKernel, missing);
  // ROCm 6 renamed the entry when hipDeviceProp_t changed layout; the old name
  // keeps the ROCm 5 layout.
  std::string absent;
  bind(handle, "hipGetDevicePropertiesR0600", api.GetDeviceProperties, absent);
  api.properties_layout_r0600 = api.GetDeviceProperties != nullptr;
  if (!api.GetDeviceProperties)
    bind(handle, "hipGetDeviceProperties", api.GetDeviceProperties, missing);
}

}  // namespace

namespace {

const std::vector<std::string> runtime_names = {"libamdhip64.so.7", "libamdhip64.so.6",
                                                "libamdhip64.so.5", "libamdhip64.so"};
// ROCm 5 has hipRTC inside the runtime.
const std::vector<std::string> rtc_names = {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so",
                                            "libamdhip64.so.5", "libamdhip64.so"};

}  // namespace

const RocmRoot& chosen_rocm_root() {
  static const RocmRoot root = [] {
    const RocmRoot chosen =
        choose_rocm_root(rocm_roots(env_or("ROCM_PATH", ""), "/opt"), runtime_names, rtc_names);
    logger().debug("hip: ROCm from {}", chosen.label);
    return chosen;
  }();
  return root;
}

std::vector<std::string> default_hiprtc_candidates() {
  return in_root(chosen_rocm_root(), rtc_names);
}

std::vector<std::string> default_runtime_candidates() {
  return in_root(chosen_rocm_root(), runtime_names);
}

std::string runtime_version_text(int version) {
  return std::to_string(version / 10000000) + "." + std::to_string(version / 100000 % 100) + "." +
         std::to_string(version % 100000);
}

std::optional<RuntimeLibrary> open_runtime(const std::vector<std::string>& candidates,
                                           std::string& reason) {
  RuntimeLibrary library;
  library.library = open_first(candidates, "the HIP runtime", reason, library.file,
                               [&](const SharedLibrary& h, std::string& missing) {
                                 library.api = RuntimeApi{};
                                 resolve_runtime(h, library.api, missing);
                               });
  if (!library.library) return std::nullopt;
  if (library.api.RuntimeGetVersion(&library.version) != hip_success) library.version = 0;
  return library;
}

std::optional<RtcLibrary> open_hiprtc(const std::vector<std::string>& candidates,
                                      std::string& reason) {
  RtcLibrary library;
  library.library = open_first(candidates, "hipRTC", reason, library.file,
                               [&](const SharedLibrary& h, std::string& missing) {
                                 library.api = RtcApi{};
                                 resolve_rtc(h, library.api, missing);
                               });
  if (!library.library) return std::nullopt;
  // ROCm 5's hiprtcVersion answers 0.0; the runtime it lives in knows its version.
  int major = 0, minor = 0;
  if (library.api.Version(&major, &minor) == hiprtc_success && (major || minor)) {
    library.version = std::to_string(major) + "." + std::to_string(minor);
  }
  hipError_t (*get)(int*) = nullptr;
  if (library.library->bind(get, "hipRuntimeGetVersion")) {
    int version = 0;
    if (get(&version) == hip_success && version > 0)
      library.version = runtime_version_text(version);
  }
  return library;
}

const RtcLibrary* hiprtc_library(std::string& reason) {
  load_comgr_isolated();  // before hipRTC loads it (comgr.hpp)
  static std::string failure;
  static const std::optional<RtcLibrary> library =
      open_hiprtc(default_hiprtc_candidates(), failure);
  reason = failure;
  return library ? &*library : nullptr;
}

const RuntimeLibrary* runtime_library(std::string& reason) {
  load_comgr_isolated();
  static std::string failure;
  static const std::optional<RuntimeLibrary> library =
      open_runtime(default_runtime_candidates(), failure);
  reason = failure;
  return library ? &*library : nullptr;
}

}  // namespace stubjit::detail::hip
