// AMD GPU discovery through the HIP runtime: how many devices, and for one of them
// the limits, wavefront size, compute units and gfx target id.
#pragma once

#include <new>
#include <string>

#include "backends/hip/hip_api.hpp"
#include "backends/hip/hip_target.hpp"

namespace stubjit::detail::hip {

// Throws BackendError "hip: <what> failed: <name> (<code>): <text>" unless `result`
// is hipSuccess.
void check(const RuntimeApi& api, hipError_t result, const char* what);

// Makes `device` the calling thread's current HIP device for one scope, and puts back
// the device the thread had (the application's choice) when the scope ends. HIP's
// current device is per thread, launches and copies come from any thread, and an
// application that called hipSetDevice must find its device still selected after
// calling stubjit; so every entry into the runtime that acts on "the current device"
// (allocation, module loading, stream creation, the null stream, device-wide
// synchronization, device queries) is wrapped in one of these.
class DeviceScope {
 public:
  // Throws BackendError when `device` cannot be selected.
  DeviceScope(const RuntimeApi& api, int device);
  // For destructors: never throws; entered() says whether `device` is selected.
  DeviceScope(const RuntimeApi& api, int device, std::nothrow_t) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  bool entered() const { return entered_; }

 private:
  // hipSuccess, or why `device` could not be selected.
  hipError_t enter(int device) noexcept;

  const RuntimeApi& api_;
  int previous_ = 0;
  bool switched_ = false;
  bool entered_ = false;
};

struct HipDeviceInfo {
  int index = 0;
  std::string name;       // e.g. "AMD Instinct MI210"
  std::string target_id;  // e.g. "gfx90a:sramecc+:xnack-"
  int compute_units = 0;
  HipDeviceShape shape;
};

// Devices the runtime sees; 0 with `reason` set when there are none (no GPU, no
// /dev/kfd, no permission).
int count_devices(const RuntimeApi& api, std::string& reason);

// Reads device `index`; throws BackendError.
HipDeviceInfo query_device(const RuntimeApi& api, int index);

// The gcnArchName and name fields of a hipDeviceProp_t image: the layouts of ROCm 5
// (R0000) and of ROCm >= 6 (R0600) differ; both start with char name[256].
struct PropertiesLayout {
  std::size_t name_offset = 0;
  std::size_t arch_name_offset = 0;
};
PropertiesLayout properties_layout(bool r0600);

}  // namespace stubjit::detail::hip
