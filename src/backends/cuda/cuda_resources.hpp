// Driver objects of the CUDA backend, each released when its owner goes: a loaded
// stub (module + entry function) and a stream. Each keeps the context alive, so a
// Stream handle may outlive its Runtime.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/cuda_context.hpp"
#include "backends/device.hpp"

namespace stubjit::detail {

class CudaModule final : public Module {
 public:
  // Loads a "cubin" or "ptx" binary and finds `entry`; throws BackendError with the
  // driver's JIT log when it cannot.
  CudaModule(std::shared_ptr<const CudaContext> context, const Binary& binary,
             const std::string& entry);
  ~CudaModule() override;

  cuda::CUfunction function() const { return function_; }
  const std::string& entry() const { return entry_; }
  // Most threads per group the compiled entry can be launched with (its launch
  // bounds, or fewer when its register use does not allow them).
  std::uint32_t max_threads() const { return max_threads_; }
  std::uint32_t max_group_threads() const override { return max_threads_; }

 private:
  std::shared_ptr<const CudaContext> context_;
  cuda::CUmodule module_ = nullptr;
  cuda::CUfunction function_ = nullptr;
  std::string entry_;
  std::uint32_t max_threads_ = 0;
};

class CudaStream final : public StreamState {
 public:
  explicit CudaStream(std::shared_ptr<const CudaContext> context);
  ~CudaStream() override;
  void synchronize() override;
  cuda::CUstream handle() const { return stream_; }

 private:
  std::shared_ptr<const CudaContext> context_;
  cuda::CUstream stream_ = nullptr;
};

}  // namespace stubjit::detail
