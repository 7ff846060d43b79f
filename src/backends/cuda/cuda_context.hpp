// A device's primary context, retained while anything of stubjit uses it. The
// primary context is the one the CUDA runtime API uses too, so memory from
// cudaMalloc can be wrapped into fields and launched on.
#pragma once

#include <memory>

#include "backends/cuda/cuda_driver.hpp"

namespace stubjit::detail {

class CudaContext {
 public:
  // Retains the primary context of `ordinal`; throws BackendError.
  CudaContext(std::shared_ptr<const CudaDriver> driver, int ordinal);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  const CudaDriver& driver() const { return *driver_; }
  // Makes the context current on the calling thread; a cheap check when it already
  // is (driver calls act on the calling thread's current context, and any thread
  // may launch).
  void make_current() const;
  // The same for destructors: false (after logging why) instead of throwing.
  bool try_make_current() const noexcept;

 private:
  std::shared_ptr<const CudaDriver> driver_;
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
};

}  // namespace stubjit::detail
