// The layout of hipDeviceProp_t the fake HIP runtime fills (fake_hip_properties.cpp).
#pragma once

#include <cstddef>

namespace stubjit::test::fake_hip {

struct PropertiesLayout {
  bool r0600;  // ROCm >= 6: exported as hipGetDevicePropertiesR0600; else hipGetDeviceProperties
  std::size_t name_offset;
  std::size_t arch_name_offset;
  std::size_t size;
  const char* source;  // where the layout comes from
};

PropertiesLayout properties_layout();

}  // namespace stubjit::test::fake_hip
