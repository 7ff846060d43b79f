// What the fake driver (fake_cuda_driver.cpp) reads of a module image, as a driver
// would before it loads one: for a CUBIN (an ELF for EM_CUDA), its architecture, the
// CUDA version of the toolkit that made it, and per kernel its most threads per block
// (from __launch_bounds__) and the sizes of its parameters, from the kernel's
// .nv.info.<name> section. Written from the format as cuobjdump and readelf show it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace stubjit::test::fake_cuda {

struct KernelInfo {
  unsigned max_threads = 0;              // 0: no bound in the image
  std::vector<std::size_t> param_sizes;  // by ordinal
};

struct ImageInfo {
  bool ptx = false;      // a PTX text (the driver compiles it; nothing is read from it)
  int arch = 0;          // 90 for sm_90
  int cuda_version = 0;  // 130 for a toolkit of CUDA 13.0; 0 when the image does not say
  std::map<std::string, KernelInfo> kernels;
};

// Reads `size` bytes at `image`; false (with `why`) when it is neither PTX nor a
// well-formed CUBIN.
bool read_image(const void* image, std::size_t size, ImageInfo& info, std::string& why);

}  // namespace stubjit::test::fake_cuda
