// The compiler half of a backend: what stubs for its target look like (traits), which
// target and compiler a binary depends on, and source -> Binary. A toolchain needs no
// device: with none, a runtime is compile-only (it fills caches and refuses to run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cache/binary.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::detail {

// What the runtime and the stub writer need to know about a target. The stub writer
// is chosen by `emitter`; nothing above the backends compares backend names.
struct TargetTraits {
  // The stub writer's emitter family: "cpp" (host C++), "cuda" or "hip".
  std::string emitter;
  // 32-bit index variants where the domain and every field fit in 32 bits.
  bool index32 = false;
  // Stubs declare the most threads a group may have (STUBJIT_MAX_GROUP_THREADS and
  // __launch_bounds__), so the value is part of the stub's identity.
  bool launch_bounds = false;
  // Stubs carry the warp (wavefront) width the plan assumed (STUBJIT_WARP_SIZE).
  bool warp_constant = false;
  // Short rows: where the innermost count of a launch's domain (rank 2 and up) is at
  // most this, it is compiled into the stub (StubVariant::specialized), whose loop
  // over a row then has a constant trip count; 0: never. A row of 3 to 7 elements
  // with a trip count known at run time only spends more on the loop than on the
  // elements (docs/performance.md, "Short rows"). Where it is not 0, a stride of 2 or
  // more that a launch's broadcast views share along the innermost loop is compiled in
  // too, whatever the rows' length (BoundArgs::view_stride).
  std::int64_t short_row_limit = 0;
  // Dense launches (BoundArgs::dense) get a stub without the logical-index arithmetic
  // and the innermost stride: i = position, offset + i along the innermost dimension.
  bool dense_variant = false;
};

// The traits of a GPU target written by `emitter`: 32-bit index variants, launch
// bounds and the warp width as constants in every stub, a dense variant.
inline TargetTraits gpu_target_traits(std::string emitter) {
  TargetTraits traits;
  traits.emitter = std::move(emitter);
  traits.index32 = true;
  traits.launch_bounds = true;
  traits.warp_constant = true;
  traits.dense_variant = true;
  return traits;
}

struct CompileJob {
  const std::string& source;
  const std::string& file_name;
  const std::string& entry;
  const std::string& kernel;  // for CompileError
  const std::vector<std::string>& options;
};

class Toolchain {
 public:
  virtual ~Toolchain() = default;

  virtual const TargetTraits& traits() const = 0;
  // What a binary depends on besides its source: e.g. "sm_90", "gfx90a",
  // "x86_64-pc-linux-gnu/znver3/1a2b3c4d"; "nvrtc 13.0", "clang 14.0.6".
  virtual std::string target_id() const = 0;
  virtual std::string compiler_id() const = 0;
  // The limits of a typical device of the target: what plans are made for when the
  // runtime has no device.
  virtual DeviceLimits typical_limits() const = 0;

  // Throws CompileError with the compiler's log. Safe to call from several threads.
  virtual Binary compile(const CompileJob& job) const = 0;

  // How many compiles could start now without first starting a compiler: a hint for
  // whether to compile two stubs at once (runtime/stage_prefetch.hpp). A toolchain that
  // compiles in the process has its compiler loaded: no limit.
  static constexpr std::size_t unlimited = static_cast<std::size_t>(-1);
  virtual std::size_t ready_compilers() const { return unlimited; }
};

}  // namespace stubjit::detail
