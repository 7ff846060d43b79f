// How many compiles may run at once on the node, from STUBJIT_MAX_PARALLEL_COMPILES
// (docs/cluster.md, "A node-wide cap on compiles").
#pragma once

#include <optional>
#include <string>

namespace stubjit::detail {

struct CompileCap {
  unsigned slots = 0;  // 0: no cap
  // Processes share a cap only when they agree on it (STUBJIT_COMPILE_CAP_SCOPE).
  std::string scope;
};

// The most slots one cap can have: a System V semaphore's largest value (SEMVMX).
constexpr unsigned max_compile_slots = 32767;

// "8" -> 8; "0", "off", "no", "false" -> 0 (no cap); anything else (also a count over
// max_compile_slots) -> nullopt.
std::optional<unsigned> parse_compile_cap(const std::string& text);

// The number of processors online on the node (at least 1): the same for every
// process there, whatever its affinity mask, so that all of them share one cap.
unsigned default_compile_cap();

// The cap the environment asks for now. An invalid value is warned about (once per
// distinct text) and the default kept.
CompileCap compile_cap_from_environment();

}  // namespace stubjit::detail
