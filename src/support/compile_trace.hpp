// A diagnostic: with STUBJIT_COMPILE_TRACE=<file>, one line is appended to the file when
// a compile gets its slot and one when it gives the slot back, so that what ran at once
// on a node can be read afterwards (docs/cluster.md, "A node-wide cap on compiles"):
//   acquired pid=<pid> tid=<tid> t_ns=<steady clock> wait_ns=<ns> cap=<slots> kernel=<name>
//   released pid=<pid> tid=<tid> t_ns=<steady clock> wait_ns=0 cap=<slots> kernel=<name>
// Each line is one write(2) to a file opened O_APPEND, so the lines of many processes
// never mix. The steady clock is CLOCK_MONOTONIC: one time line for the whole node.
#pragma once

#include <cstdint>
#include <string>

namespace stubjit::detail {

// Appends `event`'s line when STUBJIT_COMPILE_TRACE is set; a file that cannot be
// written is warned about once. Never throws (it runs while a slot is held).
void trace_compile(const char* event, std::int64_t wait_ns, unsigned cap,
                   const std::string& kernel) noexcept;

// Nanoseconds on the steady clock (CLOCK_MONOTONIC), as the trace writes them.
std::int64_t steady_ns();

}  // namespace stubjit::detail
