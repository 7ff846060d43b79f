// A device's primary context, retained while anything of stubjit uses it. The
// primary context is the one the CUDA runtime API uses too, so memory from
// cudaMalloc can be wrapped into fields and launched on.
#pragma once

#include <memory>
#include <new>

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
  cuda::CUcontext handle() const { return context_; }

 private:
  std::shared_ptr<const CudaDriver> driver_;
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
};

// Makes a context current on the calling thread for one scope, and puts back the
// context the thread had before (the application's, or none) when the scope ends.
// Driver calls act on the calling thread's current context, any thread may call
// stubjit, and an application that chose a device (cudaSetDevice, cuCtxSetCurrent)
// must find it still chosen afterwards; so every entry into the driver that needs
// a context is wrapped in one of these. When the context is already current, the
// scope costs one cuCtxGetCurrent.
class CudaContextScope {
 public:
  // Throws BackendError when the context cannot be made current.
  explicit CudaContextScope(const CudaContext& context);
  // For destructors: never throws; entered() says whether the context is current
  // (a failure is logged).
  CudaContextScope(const CudaContext& context, std::nothrow_t) noexcept;
  ~CudaContextScope();
  CudaContextScope(const CudaContextScope&) = delete;
  CudaContextScope& operator=(const CudaContextScope&) = delete;

  bool entered() const { return entered_; }

 private:
  // The CUresult of making `context` current (CUDA_SUCCESS when it already was).
  cuda::CUresult enter(const CudaContext& context) noexcept;

  const CudaDriver& driver_;
  cuda::CUcontext previous_ = nullptr;
  bool switched_ = false;
  bool entered_ = false;
};

}  // namespace stubjit::detail
