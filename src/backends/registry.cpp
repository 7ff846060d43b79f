#include "backends/backend.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"

namespace stubjit::detail {

const std::vector<BackendEntry>& backend_registry() {
  static const std::vector<BackendEntry> entries = {
      {"cuda", &open_cuda_backend},
      {"hip", &open_hip_backend},
      {"cpu", &open_cpu_backend},
  };
  return entries;
}

}  // namespace stubjit::detail
