#include "backends/cuda/cuda_target.hpp"

#include <cctype>

#include "stubjit/error.hpp"

namespace stubjit::detail {

std::string CudaArch::sm() const {
  return "sm_" + std::to_string(major) + std::to_string(minor) + suffix;
}

std::string CudaArch::compute() const {
  return "compute_" + std::to_string(major) + std::to_string(minor) + suffix;
}

CudaArch parse_cuda_arch(const std::string& text) {
  std::string rest;
  for (const char* prefix : {"sm_", "compute_"}) {
    if (text.rfind(prefix, 0) == 0) rest = text.substr(std::string(prefix).size());
  }
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  const std::string suffix = rest.substr(digits);
  if (digits < 2 || digits > 3 || rest[0] == '0' ||
      !(suffix.empty() || suffix == "a" || suffix == "f")) {
    throw BackendError("'" + text +
                       "' is not a CUDA architecture; expected sm_XY such as sm_80 or sm_90");
  }
  CudaArch arch;
  arch.major = std::stoi(rest.substr(0, digits - 1));
  arch.minor = rest[digits - 1] - '0';
  arch.suffix = suffix;
  return arch;
}

CudaTarget choose_cuda_target(const CudaArch& device, const std::vector<int>& supported,
                              bool force_ptx) {
  CudaTarget target{device, force_ptx};
  for (int arch : supported) {
    if (arch == device.number()) return target;
  }
  // NVRTC does not know the device: PTX for the newest architecture below it.
  int best = 0;
  for (int arch : supported)
    if (arch < device.number() && arch > best) best = arch;
  if (best == 0) {
    std::string list;
    for (int arch : supported) list += (list.empty() ? "" : " ") + std::to_string(arch);
    throw BackendError("this NVRTC cannot compile for " + device.sm() + " (it supports " + list +
                       ")");
  }
  target.arch = CudaArch{best / 10, best % 10, ""};
  target.ptx = true;
  return target;
}

BlockShapes cuda_block_shapes() {
  BlockShapes shapes;
  shapes.spread = {256, 1, 1};
  shapes.direct = {{{256, 1, 1}, {32, 8, 1}, {32, 4, 2}}};
  return shapes;
}

}  // namespace stubjit::detail
