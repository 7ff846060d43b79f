// This host's CPU as a compile target, read without LLVM (a process whose stubs are
// all cached must not load it just to name its target).
#pragma once

#include <string>

namespace stubjit::detail {

struct HostCpu {
  // What the CPU calls itself, for messages ("GenuineIntel family 6 model 85" on x86,
  // from CPUID; elsewhere /proc/cpuinfo's name).
  std::string model;
  // The target id cache keys hold: "<triple>/<vendor>-<family>-<model>/<hash>", where
  // the hash covers what -march=native code depends on: what the compiler itself reads
  // (on x86 the CPUID feature leaves and XCR0, elsewhere the hardware capabilities of
  // the auxiliary vector), and the CPU's vendor, family, model and stepping (from
  // CPUID on x86, where /proc/cpuinfo is not read; elsewhere the first processor's
  // identity and flags from /proc/cpuinfo). Equal on identical CPUs, so a cache shared by a
  // cluster's identical nodes is shared; different wherever the compiler could emit different code.
  std::string target_id;
};

// Read once per process.
const HostCpu& host_cpu();

// The same from the text of a /proc/cpuinfo and the native feature words (for tests).
HostCpu host_cpu_from(const std::string& cpuinfo, const std::string& feature_words);

}  // namespace stubjit::detail
