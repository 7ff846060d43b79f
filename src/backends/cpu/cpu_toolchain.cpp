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

DeviceLimits cpu_limits() {
  // No hardware grid: limits only keep products inside 64 bits. A group is a run of
  // iterations one worker takes at a time: one long stretch of a row, so each worker
  // streams contiguous memory and the innermost loop vectorizes (1024x4 groups
  // measured 2-3% slower on a 2-D saxpy; the planner still folds x into y and z for
  // narrow domains).
  DeviceLimits limits;
  constexpr std::uint64_t huge = std::uint64_t(1) << 40;
  limits.max_grid = {huge, huge, huge};
  limits.max_block = {1u << 20, 1u << 20, 1u << 20};
  limits.max_threads_per_block = 1u << 20;
  limits.warp_size = 1;
  limits.preferred_block.spread = {4096, 1, 1};
  limits.preferred_block.direct = {{{4096, 1, 1}, {4096, 1, 1}, {4096, 1, 1}}};
  return limits;
}

std::unique_ptr<Toolchain> make_cpu_toolchain() { return std::make_unique<CpuToolchain>(); }

}  // namespace stubjit::detail
