// The CPU toolchain: stub source to a shared object for this host's CPU, compiled
// by the compiler plugin (compiler_plugin.hpp). Naming the target and the compiler
// needs neither the plugin nor LLVM.
#include "backends/cpu/compiler_plugin.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/host_cpu.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

class CpuToolchain final : public Toolchain {
 public:
  CpuToolchain() : target_(host_cpu().target_id) {
    traits_.emitter = "cpp";
    traits_.short_row_limit = max_short_row;
  }

  const TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return target_; }
  std::string compiler_id() const override { return cpu_compiler_id(); }
  DeviceLimits typical_limits() const override { return cpu_limits(); }
  Binary compile(const CompileJob& job) const override {
    return Binary{cpu_binary_format, compile_host_shared_object(job).bytes};
  }

 private:
  TargetTraits traits_;
  std::string target_;
};

}  // namespace

std::unique_ptr<Toolchain> make_cpu_toolchain() { return std::make_unique<CpuToolchain>(); }

}  // namespace stubjit::detail
