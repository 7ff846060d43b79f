#include "backends/hip/hip_target.hpp"

#include <algorithm>
#include <cctype>

namespace stubjit::detail::hip {
namespace {

bool is_alnum_lower(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'z');
}

}  // namespace

bool valid_target_id(const std::string& target_id) {
  if (target_id.size() < 4 || target_id.size() > 64 || target_id.compare(0, 3, "gfx") != 0)
    return false;
  std::size_t at = 3;
  const std::size_t processor_end = std::min(target_id.find(':'), target_id.size());
  if (processor_end == at) return false;
  for (; at < processor_end; ++at)
    if (!is_alnum_lower(target_id[at])) return false;
  // Features: ":name+" or ":name-", names in lower case letters.
  while (at < target_id.size()) {
    if (target_id[at] != ':') return false;
    std::size_t end = at + 1;
    while (end < target_id.size() && target_id[end] >= 'a' && target_id[end] <= 'z') ++end;
    if (end == at + 1 || end >= target_id.size() ||
        (target_id[end] != '+' && target_id[end] != '-'))
      return false;
    at = end + 1;
  }
  return true;
}

std::uint32_t default_wavefront_size(const std::string& target_id) {
  // RDNA processors have a two-digit major version: gfx1030, gfx1100, gfx1201;
  // GCN/CDNA ones a one-digit one: gfx906, gfx90a, gfx942.
  const std::size_t processor_length = std::min(target_id.find(':'), target_id.size());
  return processor_length >= 7 ? 32 : 64;
}

DeviceLimits hip_device_limits(const HipDeviceShape& shape) {
  DeviceLimits limits;
  limits.max_grid = shape.max_grid;
  limits.max_block = shape.max_block;
  limits.max_threads_per_block = shape.max_threads_per_block;
  limits.max_threads_per_dim = std::uint64_t(1) << 32;
  limits.warp_size = shape.wavefront_size;
  // The LDS a workgroup may have on every GCN, CDNA and RDNA target.
  limits.max_shared_bytes = 64 * 1024;
  // A row of the innermost dimension per wavefront, so that each wavefront reads
  // whole contiguous runs.
  const std::uint32_t wave = std::clamp<std::uint32_t>(shape.wavefront_size, 1, 128);
  limits.preferred_block.spread = {256, 1, 1};
  limits.preferred_block.direct = {
      {{256, 1, 1}, {wave, 256 / wave, 1}, {wave, std::max<std::uint32_t>(128 / wave, 1), 2}}};
  return limits;
}

}  // namespace stubjit::detail::hip
