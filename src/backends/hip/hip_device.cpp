#include "backends/hip/hip_device.hpp"

#include <cstring>
#include <vector>

#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit::detail::hip {
namespace {

std::string error_text(const RuntimeApi& api, hipError_t result) {
  const char* name = api.GetErrorName ? api.GetErrorName(result) : nullptr;
  const char* text = api.GetErrorString ? api.GetErrorString(result) : nullptr;
  return std::string(name ? name : "hipError") + " (" + std::to_string(result) + ")" +
         (text && (!name || std::strcmp(name, text) != 0) ? std::string(": ") + text : "");
}

int attribute(const RuntimeApi& api, hipDeviceAttribute_t which, int index, const char* what) {
  int value = 0;
  check(api, api.DeviceGetAttribute(&value, which, index), what);
  return value;
}

std::string string_at(const std::vector<char>& image, std::size_t offset) {
  const char* text = image.data() + offset;
  return std::string(text, strnlen(text, 256));
}

}  // namespace

void check(const RuntimeApi& api, hipError_t result, const char* what) {
  if (result == hip_success) return;
  throw BackendError(std::string("hip: ") + what + " failed: " + error_text(api, result));
}

DeviceScope::DeviceScope(const RuntimeApi& api, int device) : api_(api) {
  check(api_, enter(device), ("hipSetDevice(" + std::to_string(device) + ")").c_str());
}

DeviceScope::DeviceScope(const RuntimeApi& api, int device, std::nothrow_t) noexcept : api_(api) {
  if (const hipError_t result = enter(device); result != hip_success) {
    logger().warn("hip: cannot select device {}: {}", device, error_text(api_, result));
  }
}

hipError_t DeviceScope::enter(int device) noexcept {
  // hipGetDevice fails only where no device can be current at all; then there is no
  // choice of the application to put back.
  const bool known = api_.GetDevice(&previous_) == hip_success;
  if (!known || previous_ != device) {
    if (const hipError_t result = api_.SetDevice(device); result != hip_success) return result;
    switched_ = known;
  }
  entered_ = true;
  return hip_success;
}

DeviceScope::~DeviceScope() {
  if (!switched_) return;
  if (const hipError_t result = api_.SetDevice(previous_); result != hip_success) {
    logger().warn("hip: restoring the application's device {} failed: {}", previous_,
                  error_text(api_, result));
  }
}

PropertiesLayout properties_layout(bool r0600) {
  // R0000: offsetof(hipDeviceProp_t, gcnArchName) in ROCm 5.x's hip_runtime_api.h
  // (checked with Debian's ROCm 5.2 header). R0600: hipDeviceProp_tR0600 of ROCm
  // >= 6, which moved gcnArchName behind uuid, luid and the CUDA 12 fields.
  return r0600 ? PropertiesLayout{0, 1160} : PropertiesLayout{0, 396};
}

int count_devices(const RuntimeApi& api, std::string& reason) {
  int count = 0;
  const hipError_t result = api.GetDeviceCount(&count);
  if (result != hip_success) {
    reason = result == hip_error_no_device
                 ? "no AMD GPU found by the HIP runtime (" + error_text(api, result) + ")"
                 : "hipGetDeviceCount failed: " + error_text(api, result);
    return 0;
  }
  if (count <= 0) reason = "no AMD GPU found by the HIP runtime";
  return count;
}

HipDeviceInfo query_device(const RuntimeApi& api, int index) {
  HipDeviceInfo info;
  info.index = index;
  // Attributes and properties take the device index; the scope only checks that the
  // device can be selected, and leaves the thread's own choice as it was.
  const DeviceScope selected(api, index);
  for (int p = 0; p < 3; ++p) {
    info.shape.max_block[p] = static_cast<std::uint32_t>(
        attribute(api, attribute_max_block_dim_x + p, index, "hipDeviceGetAttribute(MaxBlockDim)"));
    info.shape.max_grid[p] = static_cast<std::uint64_t>(
        attribute(api, attribute_max_grid_dim_x + p, index, "hipDeviceGetAttribute(MaxGridDim)"));
  }
  info.shape.max_threads_per_block = static_cast<std::uint32_t>(attribute(
      api, attribute_max_threads_per_block, index, "hipDeviceGetAttribute(MaxThreadsPerBlock)"));
  info.shape.wavefront_size = static_cast<std::uint32_t>(
      attribute(api, attribute_warp_size, index, "hipDeviceGetAttribute(WarpSize)"));
  info.compute_units = attribute(api, attribute_multiprocessor_count, index,
                                 "hipDeviceGetAttribute(MultiprocessorCount)");

  // Far larger than either layout (792 and about 1.5 KB), zeroed so that strings
  // end even if a future runtime writes less.
  std::vector<char> properties(16384, '\0');
  check(api, api.GetDeviceProperties(properties.data(), index), "hipGetDeviceProperties");
  const PropertiesLayout layout = properties_layout(api.properties_layout_r0600);
  info.name = string_at(properties, layout.name_offset);
  info.target_id = string_at(properties, layout.arch_name_offset);
  if (!valid_target_id(info.target_id)) {
    throw BackendError("hip: device " + std::to_string(index) + " reports gcnArchName '" +
                       info.target_id + "', which is not a gfx target id");
  }
  if (info.shape.wavefront_size != 32 && info.shape.wavefront_size != 64) {
    throw BackendError("hip: device " + std::to_string(index) + " reports a wavefront size of " +
                       std::to_string(info.shape.wavefront_size) + " (32 or 64 expected)");
  }
  return info;
}

}  // namespace stubjit::detail::hip
