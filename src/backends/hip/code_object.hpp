// What hipRTC returns, made into what the loader and the tests expect: an AMDGPU
// code object (an ELF shared object, e_machine EM_AMDGPU = 224).
//
// ROCm 5.2's hipRTC returns the ELF itself; other versions and options (e.g.
// -fgpu-rdc) return a clang offload bundle, the container clang-offload-bundler
// writes:
//   "__CLANG_OFFLOAD_BUNDLE__"             24-byte magic
//   u64 entry count
//   per entry: u64 offset, u64 size, u64 triple length, triple bytes (no NUL)
// where a device entry's triple reads "hipv4-amdgcn-amd-amdhsa--gfx90a[:features]"
// (or "hip-amdgcn-amd-amdhsa-gfx90a"). All integers are little-endian. Compressed
// bundles ("CCOB", ROCm >= 6.2 with --offload-compress) are not read.
#pragma once

#include <string>
#include <vector>

namespace stubjit::detail::hip {

// The AMDGPU ELF for `arch` ("gfx90a", or with features "gfx90a:xnack-"): `bytes`
// itself when it is an ELF, else the bundle entry for that processor. Throws
// BackendError when neither is found.
std::vector<char> extract_code_object(const std::vector<char>& bytes, const std::string& arch);

// The processor part of a target id: "gfx90a" from "gfx90a:sramecc+:xnack-".
std::string processor_of(const std::string& target_id);

}  // namespace stubjit::detail::hip
