// This host's CPU as a compile target, read without LLVM (a process whose stubs are
// all cached must not load it just to name its target).
#pragma once

#include <string>

namespace stubjit::detail {

struct HostCpu {
  // What the CPU calls itself ("AMD EPYC 7B13"), for messages.
  std::string model;
  // The target id cache keys hold: "<triple>/<vendor>-<family>-<model>/<hash>", where
  // the hash covers everything -march=native code depends on (vendor, family, model,
  // stepping and the feature flags the kernel reports). Equal on identical CPUs, so a
  // cache shared by a cluster's identical nodes is shared; different wherever the
  // compiler could emit different code.
  std::string target_id;
};

// Read once per process (from /proc/cpuinfo's first processor).
const HostCpu& host_cpu();

// The same from the text of a /proc/cpuinfo (for tests).
HostCpu host_cpu_from(const std::string& cpuinfo);

}  // namespace stubjit::detail
