#include "backends/cuda/cuda_context.hpp"

#include "runtime/log.hpp"

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

void CudaContext::make_current() const {
  cuda::CUcontext current = nullptr;
  if (driver_->ctx_get_current(&current) == cuda::CUDA_SUCCESS && current == context_) return;
  driver_->check(driver_->ctx_set_current(context_), "cuCtxSetCurrent");
}

bool CudaContext::try_make_current() const noexcept {
  cuda::CUcontext current = nullptr;
  if (driver_->ctx_get_current(&current) == cuda::CUDA_SUCCESS && current == context_) return true;
  if (const cuda::CUresult r = driver_->ctx_set_current(context_); r != cuda::CUDA_SUCCESS) {
    logger().warn("cannot make the CUDA context current: {}", driver_->describe(r));
    return false;
  }
  return true;
}

}  // namespace stubjit::detail
