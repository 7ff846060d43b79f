// The CPU backend: Clang in process (the toolchain) and LLVM ORC with groups run
// across host threads (the device).
#pragma once

#include <memory>

#include "backends/registry.hpp"

namespace stubjit::detail {

// The host as a target: the C++ emitter, 64-bit indices, limits that only keep
// products inside 64 bits.
DeviceLimits cpu_limits();
std::unique_ptr<Toolchain> make_cpu_toolchain();
// Runs each dispatch's groups on `threads` host threads (0: one per core).
std::unique_ptr<Device> make_cpu_device(unsigned threads);

OpenedBackend open_cpu_backend(const BackendConfig& config);

}  // namespace stubjit::detail
