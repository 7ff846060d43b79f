// The core library's side of the CPU compiler plugin (compiler_plugin_abi.h): found
// beside the library, opened with dlopen the first time a CPU stub must be compiled,
// and kept for the life of the process. Nothing here links LLVM or Clang.
#pragma once

#include <string>
#include <vector>

#include "backends/toolchain.hpp"

namespace stubjit::detail {

// The plugin's file name in <libdir>/stubjit/.
inline constexpr const char* cpu_compiler_plugin_name = "libstubjit-cpu-compiler.so";

// What the core library expects the plugin to report (stubjit_cpu_plugin_build):
// this stubjit version and the Clang it was configured with.
std::string expected_cpu_plugin_build();

// "clang 14.0.6": the compiler CPU stubs are compiled with, known without loading it.
std::string cpu_compiler_id();

struct HostSharedObject {
  std::vector<char> bytes;  // an ELF shared object for this host
  std::string diagnostics;  // warnings and remarks (empty when the compiler was silent)
};

// Compiles a stub with the plugin (loading it on first use). Throws CompileError
// with the compiler's log when the source does not compile, BackendError when the
// plugin cannot be found or loaded, or fails otherwise.
HostSharedObject compile_host_shared_object(const CompileJob& job);

// Where the plugin is (or would be) loaded from; $STUBJIT_CPU_COMPILER overrides it.
// "" when it is not found.
std::string cpu_compiler_plugin_path();

}  // namespace stubjit::detail
