// The CPU toolchain: stub source to a relocatable object for this host's CPU, with
// Clang in process (clang_compiler.cpp).
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>

#include "backends/cpu/clang_compiler.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "support/hash.hpp"

namespace stubjit::detail {
namespace {

std::string host_target_id() {
  llvm::StringMap<bool> features;
  llvm::sys::getHostCPUFeatures(features);
  std::string enabled;
  for (const auto& feature : features) {
    if (feature.getValue()) enabled += feature.getKey().str() + ",";
  }
  // Object code from -march=native depends on the CPU and every enabled feature.
  return llvm::sys::getProcessTriple() + "/" + llvm::sys::getHostCPUName().str() + "/" +
         hex64(hash64(enabled)).substr(0, 8);
}

class CpuToolchain final : public Toolchain {
 public:
  CpuToolchain() : target_(host_target_id()) { traits_.emitter = "cpp"; }

  const TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return target_; }
  std::string compiler_id() const override { return clang_compiler_id(); }
  DeviceLimits typical_limits() const override { return cpu_limits(); }
  Binary compile(const CompileJob& job) const override {
    return Binary{"elf-object", compile_to_host_object(job).bytes};
  }

 private:
  TargetTraits traits_;
  std::string target_;
};

}  // namespace

std::unique_ptr<Toolchain> make_cpu_toolchain() { return std::make_unique<CpuToolchain>(); }

}  // namespace stubjit::detail
