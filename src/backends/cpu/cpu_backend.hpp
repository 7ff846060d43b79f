// The CPU backend: Clang + LLVM ORC, groups run across host threads.
#pragma once

#include "backends/backend.hpp"

namespace stubjit::detail {

BackendProbe open_cpu_backend(const BackendConfig& config);

}  // namespace stubjit::detail
