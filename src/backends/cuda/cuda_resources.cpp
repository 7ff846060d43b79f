#include "backends/cuda/cuda_resources.hpp"

#include <cstdint>

#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

CudaModule::CudaModule(std::shared_ptr<const CudaContext> context, const Binary& binary,
                       const std::string& entry)
    : context_(std::move(context)), entry_(entry) {
  if (binary.format != "cubin" && binary.format != "ptx") {
    throw BackendError("the CUDA backend cannot load a '" + binary.format + "' binary");
  }
  const CudaDriver& driver = context_->driver();
  std::vector<char> image = binary.bytes;
  if (binary.format == "ptx" && (image.empty() || image.back() != '\0')) image.push_back('\0');
  char log[8192] = {};
  int options[2] = {cuda::CU_JIT_ERROR_LOG_BUFFER, cuda::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[2] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
  CudaContextScope current(*context_);
  if (const cuda::CUresult r =
          driver.module_load_data_ex(&module_, image.data(), 2, options, values);
      r != cuda::CUDA_SUCCESS) {
    throw BackendError("cannot load the " + binary.format + " of " + entry + ": " +
                       driver.describe(r) + (log[0] ? std::string("\n") + log : ""));
  }
  try {
    driver.check(driver.module_get_function(&function_, module_, entry.c_str()),
                 ("finding " + entry + " in its module").c_str());
    int threads = 0;
    driver.check(driver.func_get_attribute(&threads, cuda::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                           function_),
                 "cuFuncGetAttribute");
    max_threads_ = static_cast<std::uint32_t>(threads);
  } catch (...) {
    driver.module_unload(module_);
    throw;
  }
}

CudaModule::~CudaModule() {
  CudaContextScope current(*context_, std::nothrow);
  if (!current.entered()) return;
  const CudaDriver& driver = context_->driver();
  if (const cuda::CUresult r = driver.module_unload(module_); r != cuda::CUDA_SUCCESS)
    logger().warn("unloading {} failed: {}", entry_, driver.describe(r));
}

CudaStream::CudaStream(std::shared_ptr<const CudaContext> context) : context_(std::move(context)) {
  CudaContextScope current(*context_);
  // A blocking stream (flags 0): it orders with the legacy default stream, which the
  // synchronous copies use, so a copy after a launch sees the launch's results.
  context_->driver().check(context_->driver().stream_create(&stream_, 0), "cuStreamCreate");
}

CudaStream::~CudaStream() {
  CudaContextScope current(*context_, std::nothrow);
  if (!current.entered()) return;
  const CudaDriver& driver = context_->driver();
  if (const cuda::CUresult r = driver.stream_destroy(stream_); r != cuda::CUDA_SUCCESS)
    logger().warn("destroying a CUDA stream failed: {}", driver.describe(r));
}

void CudaStream::synchronize() {
  CudaContextScope current(*context_);
  context_->driver().check(context_->driver().stream_synchronize(stream_), "cuStreamSynchronize");
}

}  // namespace stubjit::detail
