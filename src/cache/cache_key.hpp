// The cache key: everything a compiled stub depends on, as canonical text compared in
// full (the kernel's own source included, so that keys are equal only when the
// sources are), plus its hash, used only for bucketing and file names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

// What identifies a kernel, computed once when it is created.
struct KernelIdentity {
  std::string name;
  std::string source;     // body and helpers, each length-prefixed (see length_prefixed)
  std::string signature;  // canonical text of the parameters
  std::string block;      // block constraints
};

KernelIdentity identify(const KernelSource& source);

// What identifies the toolchain and target a stub is compiled for.
struct ToolchainIdentity {
  std::string backend;               // "cpu", "cuda", "hip"
  std::string target;                // host CPU, sm_XY, gfxNNN
  std::string compiler;              // compiler name and version
  std::vector<std::string> options;  // extra compiler options, one per argument
};

// "<size>:<bytes>": text of any content (spaces, newlines, digits) embedded so that
// no two different sequences of texts give the same key.
std::string length_prefixed(const std::string& text);

struct StubVariant {
  Mode mode = Mode::direct;
  int rank = 1;
  int index_bits = 64;
  std::vector<Binding> bindings;
  std::uint32_t max_threads_per_group = 0;  // GPU launch bounds; 0 for the CPU
  std::uint32_t warp_size = 0;              // GPU: STUBJIT_WARP_SIZE in the stub; 0 for the CPU
};

struct CacheKey {
  std::string text;
  std::uint64_t hash = 0;
  bool operator==(const CacheKey& other) const { return text == other.text; }
};

// Version of the stub generator: bump when generated code changes for the same
// inputs, so persisted binaries from an older generator are not reused.
inline constexpr int generator_version = 1;

CacheKey make_cache_key(const KernelIdentity& kernel, const StubVariant& variant,
                        const ToolchainIdentity& toolchain);

}  // namespace stubjit::detail
