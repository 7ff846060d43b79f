// Loads a CPU stub's shared object without LLVM and without a file anyone else can
// write: the verified bytes are copied into a memfd, the memfd is sealed against any
// further change, and the dynamic linker maps that descriptor (/proc/self/fd/N). What
// runs is exactly what was verified, whatever happens to the cache file meanwhile.
// The descriptor is closed once the library is mapped (a loaded stub holds none); the
// dynamic linker keeps its path as the library's name, and finds a library by name
// before it opens anything, so a stub is never loaded under a path that names a
// library still loaded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "stubjit/launch.h"

namespace stubjit::detail {

// A CPU stub's entry: runs groups [group_begin, group_end) of a dispatch. `group_memory`:
// LaunchParams::shared_bytes of memory for the shared arrays of a group stub, 16-byte
// aligned and the calling thread's own (host_runner.cpp); unused by other stubs.
using CpuEntry = void (*)(const void* args, const LaunchParams* lp, u64 group_begin, u64 group_end,
                          u8* group_memory);

// A memfd holding `bytes`, sealed (no write, grow, shrink or further seal). Throws
// BackendError when the kernel cannot make one.
class SealedImage {
 public:
  SealedImage(const std::vector<char>& bytes, const std::string& name);
  ~SealedImage();
  SealedImage(const SealedImage&) = delete;
  SealedImage& operator=(const SealedImage&) = delete;

  int fd() const { return fd_; }
  // The path the dynamic linker opens it by.
  std::string path() const;
  // Moves the memfd to another descriptor number (for a path the dynamic linker
  // already knows as another library's name). Throws BackendError.
  void renumber();

 private:
  int fd_ = -1;
};

class CpuModule final : public Module {
 public:
  // Loads `bytes` (an ELF shared object) and resolves `entry`; throws BackendError.
  CpuModule(const std::vector<char>& bytes, const std::string& entry);
  ~CpuModule() override;
  CpuModule(const CpuModule&) = delete;
  CpuModule& operator=(const CpuModule&) = delete;

  CpuEntry entry() const { return entry_; }
  // The path the dynamic linker knows the stub by (/proc/self/fd/N; the descriptor
  // itself is closed once the library is mapped).
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
  CpuEntry entry_ = nullptr;
};

}  // namespace stubjit::detail
