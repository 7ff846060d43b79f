// The CPU backend: Clang and lld in a plugin loaded when a stub must be compiled (the
// toolchain), shared objects loaded from sealed memory with groups run across host
// threads (the device).
#pragma once

#include <memory>

#include "backends/cpu/cpu_limits.hpp"
#include "backends/registry.hpp"

namespace stubjit::detail {

// The binary format of CPU stubs: an ELF shared object for this host.
inline constexpr const char* cpu_binary_format = "elf-shared-object";

// The host as a target: the C++ emitter, 64-bit indices, cpu_limits().
std::unique_ptr<Toolchain> make_cpu_toolchain();
// Runs each dispatch's groups on `threads` host threads (0: one per core).
std::unique_ptr<Device> make_cpu_device(unsigned threads);

OpenedBackend open_cpu_backend(const BackendConfig& config);
// This host's toolchain when `target_id` is this host's (the CPU backend compiles for
// the CPU it runs on, -march=native); BackendError otherwise.
std::unique_ptr<Toolchain> cpu_toolchain_for(const std::string& target_id,
                                             const std::string& compiler_id = "");

}  // namespace stubjit::detail
