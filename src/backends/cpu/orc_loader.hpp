// LLVM ORC LLJIT as a linker/loader for host objects: each stub gets its own
// JITDylib (so entries of equal name never clash) that can resolve symbols of the
// process (libm, libc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "stubjit/launch.h"

namespace stubjit::detail {

using CpuEntry = void (*)(const void* args, const LaunchParams* lp, u64 group_begin, u64 group_end);

class OrcLoader;

class CpuModule final : public Module {
 public:
  CpuModule(std::shared_ptr<OrcLoader> loader, void* dylib, CpuEntry entry);
  ~CpuModule() override;
  CpuEntry entry() const { return entry_; }

 private:
  std::shared_ptr<OrcLoader> loader_;
  void* dylib_;  // llvm::orc::JITDylib*, opaque here to keep LLVM out of headers
  CpuEntry entry_;
};

class OrcLoader : public std::enable_shared_from_this<OrcLoader> {
 public:
  static std::shared_ptr<OrcLoader> create();  // throws BackendError
  ~OrcLoader();

  // Links `object` and resolves `entry`; throws BackendError.
  std::unique_ptr<CpuModule> load(const std::vector<char>& object, const std::string& entry);
  void unload(void* dylib) noexcept;

 private:
  OrcLoader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stubjit::detail
