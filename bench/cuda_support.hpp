// What the CUDA benchmarks share: raw NVRTC (the baseline every figure is against),
// the GPU they run on (or why there is none), CUBINs loaded outside stubjit, and
// device time from events.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::bench {

// Raw NVRTC: what an application without stubjit would call.
inline std::vector<char> raw_nvrtc_cubin(const detail::NvrtcLibrary& nvrtc,
                                         const std::string& source, const std::string& name,
                                         const std::vector<std::string>& options) {
  detail::cuda::nvrtcProgram program = nullptr;
  nvrtc.create_program(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  std::vector<const char*> pointers;
  for (const std::string& option : options) pointers.push_back(option.c_str());
  const auto result =
      nvrtc.compile_program(program, static_cast<int>(pointers.size()), pointers.data());
  std::size_t size = 0;
  nvrtc.get_cubin_size(program, &size);
  std::vector<char> cubin(size);
  nvrtc.get_cubin(program, cubin.data());
  std::string log;
  if (result != detail::cuda::NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    nvrtc.get_program_log_size(program, &log_size);
    log.resize(log_size);
    nvrtc.get_program_log(program, log.data());
  }
  nvrtc.destroy_program(&program);
  if (result != detail::cuda::NVRTC_SUCCESS) throw std::runtime_error("raw NVRTC failed: " + log);
  return cubin;
}

// The CUDA runtime, the driver and the primary context (shared with the runtime), or
// the reason there are none.
struct Gpu {
  std::optional<Runtime> runtime;
  std::shared_ptr<const detail::CudaDriver> driver;
  std::shared_ptr<const detail::CudaContext> context;
  std::shared_ptr<const detail::NvrtcLibrary> nvrtc;
  std::string problem;
};

inline Gpu open_gpu() {
  Gpu gpu;
  try {
    RuntimeOptions options;
    options.backend = "cuda";
    gpu.runtime.emplace(options);
    gpu.driver = detail::load_cuda_driver();
    gpu.context = std::make_shared<const detail::CudaContext>(gpu.driver, 0);
    // The baselines' own driver calls need a current context; like a CUDA runtime
    // application, this one works in the primary context (stubjit leaves the
    // thread's context as it finds it).
    gpu.driver->check(gpu.driver->ctx_set_current(gpu.context->handle()), "cuCtxSetCurrent");
    gpu.nvrtc = detail::load_nvrtc();
  } catch (const Error& error) {
    gpu.problem = std::string("no CUDA device: ") + error.what();
  }
  return gpu;
}

// A CUBIN loaded outside stubjit, for the baselines.
class RawModule {
 public:
  RawModule(const Gpu& gpu, const std::vector<char>& cubin, const char* entry) : gpu_(gpu) {
    gpu.driver->check(gpu.driver->module_load_data_ex(&module_, cubin.data(), 0, nullptr, nullptr),
                      "cuModuleLoadDataEx");
    gpu.driver->check(gpu.driver->module_get_function(&function_, module_, entry),
                      "cuModuleGetFunction");
  }
  ~RawModule() { gpu_.driver->module_unload(module_); }
  detail::cuda::CUfunction function() const { return function_; }

 private:
  const Gpu& gpu_;
  detail::cuda::CUmodule module_ = nullptr;
  detail::cuda::CUfunction function_ = nullptr;
};

inline std::vector<char> cubin_for(const Gpu& gpu, const std::string& source,
                                   const std::string& name) {
  const std::string arch = "--gpu-architecture=" + gpu.runtime->target_id();
  return raw_nvrtc_cubin(*gpu.nvrtc, source, name, {arch, "-std=c++17", "-default-device"});
}

// Device time of `work` in seconds, from events on the legacy default stream (which
// orders with the runtime's blocking streams).
template <class Work>
double device_seconds(const Gpu& gpu, Work&& work) {
  const detail::CudaDriver& driver = *gpu.driver;
  detail::cuda::CUevent start = nullptr, end = nullptr;
  driver.event_create(&start, detail::cuda::CU_EVENT_DEFAULT);
  driver.event_create(&end, detail::cuda::CU_EVENT_DEFAULT);
  driver.event_record(start, nullptr);
  work();
  driver.event_record(end, nullptr);
  driver.event_synchronize(end);
  float ms = 0;
  driver.event_elapsed_time(&ms, start, end);
  driver.event_destroy(start);
  driver.event_destroy(end);
  return ms / 1e3;
}

}  // namespace stubjit::bench
