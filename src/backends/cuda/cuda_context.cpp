#include "backends/cuda/cuda_context.hpp"

#include "support/log.hpp"

namespace stubjit::detail {

CudaContext::CudaContext(std::shared_ptr<const CudaDriver> driver, int ordinal)
    : driver_(std::move(driver)) {
  driver_->check(driver_->device_get(&device_, ordinal), "cuDeviceGet");
  driver_->check(driver_->primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
}

CudaContext::~CudaContext() {
  if (const cuda::CUresult r = driver_->primary_ctx_release(device_); r != cuda::CUDA_SUCCESS)
    logger().warn("releasing the CUDA primary context failed: {}", driver_->describe(r));
}

CudaContextScope::CudaContextScope(const CudaContext& context) : driver_(context.driver()) {
  driver_.check(enter(context), "making stubjit's CUDA context current (cuCtxSetCurrent)");
}

CudaContextScope::CudaContextScope(const CudaContext& context, std::nothrow_t) noexcept
    : driver_(context.driver()) {
  if (const cuda::CUresult r = enter(context); r != cuda::CUDA_SUCCESS)
    logger().warn("cannot make the CUDA context current: {}", driver_.describe(r));
}

cuda::CUresult CudaContextScope::enter(const CudaContext& context) noexcept {
  if (const cuda::CUresult r = driver_.ctx_get_current(&previous_); r != cuda::CUDA_SUCCESS)
    return r;
  if (previous_ != context.handle()) {
    if (const cuda::CUresult r = driver_.ctx_set_current(context.handle()); r != cuda::CUDA_SUCCESS)
      return r;
    switched_ = true;
  }
  entered_ = true;
  return cuda::CUDA_SUCCESS;
}

CudaContextScope::~CudaContextScope() {
  if (!switched_) return;
  // Asynchronous work already queued keeps running: it belongs to its stream, not to
  // the thread's current context.
  if (const cuda::CUresult r = driver_.ctx_set_current(previous_); r != cuda::CUDA_SUCCESS)
    logger().warn("restoring the application's CUDA context failed: {}", driver_.describe(r));
}

}  // namespace stubjit::detail
