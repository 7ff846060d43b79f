#include "backends/cuda/cuda_compile_only.hpp"

#include "backends/cuda/cuda_device.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

// What a compiled stub becomes when there is nothing to load it into.
class UnloadedModule final : public LoadedModule {};

// Nothing can be queued, so there is nothing to wait for.
class IdleStream final : public StreamState {
 public:
  void synchronize() override {}
};

class CudaCompileOnlyBackend final : public Backend {
 public:
  CudaCompileOnlyBackend(NvrtcCompiler compiler, std::string why_no_device)
      : compiler_(std::move(compiler)),
        limits_(cuda_limits(typical_cuda_device(compiler_.target().arch))),
        why_(std::move(why_no_device)) {}

  const char* name() const override { return "cuda"; }
  Dialect dialect() const override { return Dialect::cuda; }
  DeviceLimits limits() const override { return limits_; }
  std::string target_id() const override { return compiler_.target().id(); }
  std::string compiler_id() const override { return compiler_.compiler_id(); }
  std::string device_description() const override {
    return "compile-only for " + compiler_.target().id() + " (STUBJIT_CUDA_ARCH; " + why_ + ")";
  }
  bool prefers_index32() const override { return true; }

  Binary compile(const CompileJob& job) override { return compiler_.compile(job); }
  std::unique_ptr<LoadedModule> load(const Binary&, const std::string&) override {
    return std::make_unique<UnloadedModule>();
  }
  void launch(const LoadedModule&, const LaunchParams&, const void*, std::size_t,
              StreamState*) override {
    refuse("launch a kernel");
  }
  void* allocate(std::size_t) override { refuse("allocate device memory"); }
  void deallocate(void*) noexcept override {}
  void copy_to_device(void*, const void*, std::size_t, StreamState*) override {
    refuse("copy to the device");
  }
  void copy_to_host(void*, const void*, std::size_t, StreamState*) override {
    refuse("copy from the device");
  }
  std::shared_ptr<StreamState> create_stream() override { return std::make_shared<IdleStream>(); }
  void synchronize() override {}

 private:
  [[noreturn]] void refuse(const char* what) const {
    throw BackendError(std::string("the CUDA backend is compile-only here (") + why_ +
                       "); it compiles stubs for " + compiler_.target().id() + " but cannot " +
                       what);
  }

  NvrtcCompiler compiler_;
  DeviceLimits limits_;
  std::string why_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_compile_only_backend(NvrtcCompiler compiler,
                                                        std::string why_no_device) {
  return std::make_unique<CudaCompileOnlyBackend>(std::move(compiler), std::move(why_no_device));
}

}  // namespace stubjit::detail
