// What the fake HIP runtime (fake_hip_runtime.cpp) reads of a code object before it
// loads one, as ROCm's loader does: an AMDGPU ELF, its target (amdhsa.target of the
// NT_AMDGPU_METADATA note, a MessagePack map), and per kernel its most threads per
// group (.max_flat_workgroup_size) and explicit arguments (.args: .size, .offset; the
// hidden_* ones are the runtime's own). Written from the format as the ROCm
// documentation ("AMDGPU backend user guide", code object V4/V5 metadata) describes it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace stubjit::test::fake_hip {

struct KernelArgument {
  std::size_t offset = 0;
  std::size_t size = 0;
};

struct Kernel {
  unsigned max_flat_workgroup_size = 0;
  std::vector<KernelArgument> arguments;  // explicit ones, in order
};

struct CodeObject {
  std::string target;  // "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
  std::map<std::string, Kernel> kernels;
};

// False (with `why`) unless `bytes` is an AMDGPU ELF whose metadata note reads.
bool read_code_object(const void* bytes, std::size_t size, CodeObject& out, std::string& why);

// The ELF's size from its header (the section headers come last).
std::size_t elf_size(const void* bytes);

}  // namespace stubjit::test::fake_hip
