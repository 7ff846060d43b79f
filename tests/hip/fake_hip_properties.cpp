// Where the fake HIP runtime (fake_hip_runtime.cpp) writes its device's name and
// gcnArchName: the layout of hipDeviceProp_t from the real ROCm header where the build
// found one (STUBJIT_FAKE_HIP_HEADER), so that the library's own offsets
// (hip_device.cpp) are checked against it through the fake; otherwise ROCm 6's layout
// as documented, which then checks nothing. Its own file: the real header's global
// names would clash with stubjit's declarations of the same API.
#include "hip/fake_hip_properties.hpp"

#if defined(STUBJIT_FAKE_HIP_HEADER)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

#include <cstddef>
#endif

namespace stubjit::test::fake_hip {

PropertiesLayout properties_layout() {
#if defined(STUBJIT_FAKE_HIP_HEADER) && HIP_VERSION_MAJOR >= 6
  return {true, offsetof(hipDeviceProp_tR0600, name), offsetof(hipDeviceProp_tR0600, gcnArchName),
          sizeof(hipDeviceProp_tR0600), "the ROCm header (hipDeviceProp_tR0600)"};
#elif defined(STUBJIT_FAKE_HIP_HEADER)
  return {false, offsetof(hipDeviceProp_t, name), offsetof(hipDeviceProp_t, gcnArchName),
          sizeof(hipDeviceProp_t), "the ROCm header (hipDeviceProp_t of ROCm 5)"};
#else
  return {true, 0, 1160, 1472, "ROCm 6's documented layout (no header found)"};
#endif
}

}  // namespace stubjit::test::fake_hip
