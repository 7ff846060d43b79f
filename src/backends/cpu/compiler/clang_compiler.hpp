// Clang as a library: C++ source to a relocatable object for the host CPU, in
// process (no subprocess, no temporary files). Part of the compiler plugin.
#pragma once

#include <string>
#include <vector>

namespace stubjit::cpu_compiler {

struct HostObject {
  bool ok = false;
  std::vector<char> bytes;  // a relocatable ELF object, when ok
  std::string diagnostics;  // what Clang printed (errors when not ok; else warnings, remarks)
};

// -O3 for the host CPU (-march=native), position independent, `options` appended.
HostObject compile_to_host_object(const std::string& source, const std::string& file_name,
                                  const std::vector<std::string>& options);

}  // namespace stubjit::cpu_compiler
