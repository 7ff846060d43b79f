// The CUDA toolchain: NVRTC for one architecture. It needs libnvrtc only, no driver
// and no GPU.
#include "backends/cuda/cuda_backend.hpp"

namespace stubjit::detail {
namespace {

class CudaToolchain final : public Toolchain {
 public:
  explicit CudaToolchain(NvrtcCompiler compiler)
      : compiler_(std::move(compiler)),
        typical_(cuda_limits(typical_cuda_device(compiler_.target().arch))),
        traits_(gpu_target_traits("cuda")) {}

  const TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return compiler_.target().id(); }
  std::string compiler_id() const override { return compiler_.compiler_id(); }
  DeviceLimits typical_limits() const override { return typical_; }
  Binary compile(const CompileJob& job) const override { return compiler_.compile(job); }

 private:
  NvrtcCompiler compiler_;
  DeviceLimits typical_;
  TargetTraits traits_;
};

}  // namespace

std::unique_ptr<Toolchain> make_cuda_toolchain(NvrtcCompiler compiler) {
  return std::make_unique<CudaToolchain>(std::move(compiler));
}

}  // namespace stubjit::detail
