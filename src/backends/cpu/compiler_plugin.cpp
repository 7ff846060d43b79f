#include "backends/cpu/compiler_plugin.hpp"

#include <unistd.h>

#include <mutex>

#include "backends/cpu/compiler_flags.hpp"
#include "backends/cpu/compiler_plugin_abi.h"
#include "backends/cpu/cpu_backend.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/hash.hpp"
#include "support/library_files.hpp"
#include "support/log.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail {
namespace {

struct Plugin {
  std::shared_ptr<SharedLibrary> library;
  int (*compile)(const stubjit_cpu_compile_request*) = nullptr;
  std::string problem;  // why it cannot be used; "" when it can
};

Plugin open_plugin() {
  Plugin plugin;
  const std::string path = cpu_compiler_plugin_path();
  if (path.empty()) {
    const std::string chosen = env_or("STUBJIT_CPU_COMPILER", "");
    plugin.problem = chosen.empty() ? std::string(cpu_compiler_plugin_name) +
                                          " is not installed beside libstubjit (in stubjit/)"
                                    : "STUBJIT_CPU_COMPILER=" + chosen + " cannot be read";
    return plugin;
  }
  std::string why;
  plugin.library = SharedLibrary::open(path, why);
  if (!plugin.library) {
    plugin.problem = "cannot load " + path + ": " + why;
    return plugin;
  }
  unsigned (*abi)() = nullptr;
  const char* (*build)() = nullptr;
  std::string missing;
  plugin.library->resolve(abi, "stubjit_cpu_plugin_abi", missing);
  plugin.library->resolve(build, "stubjit_cpu_plugin_build", missing);
  plugin.library->resolve(plugin.compile, "stubjit_cpu_plugin_compile", missing);
  if (!missing.empty()) {
    plugin.problem = path + " is no stubjit CPU compiler plugin (it lacks " + missing + ")";
  } else if (abi() != STUBJIT_CPU_PLUGIN_ABI || expected_cpu_plugin_build() != build()) {
    // Cache keys name the compiler: a plugin of another build would file its binaries
    // under the wrong compiler.
    plugin.problem = path + " is from another build (" + build() + ", interface " +
                     std::to_string(abi()) + "); this library needs " +
                     expected_cpu_plugin_build() + ", interface " +
                     std::to_string(STUBJIT_CPU_PLUGIN_ABI);
  }
  if (plugin.problem.empty()) logger().debug("CPU compiler plugin loaded from {}", path);
  return plugin;
}

// Loaded once per process, on the first compile; a plugin that cannot be used gives
// every compile the same BackendError.
const Plugin& plugin() {
  static const Plugin instance = open_plugin();
  return instance;
}

void append(void* context, const char* data, std::size_t size) {
  static_cast<std::string*>(context)->append(data, size);
}

struct Sinks {
  std::vector<char> binary;
  std::string diagnostics;
};

void write_binary(void* context, const char* data, std::size_t size) {
  static_cast<Sinks*>(context)->binary.assign(data, data + size);
}

void write_diagnostics(void* context, const char* data, std::size_t size) {
  append(&static_cast<Sinks*>(context)->diagnostics, data, size);
}

}  // namespace

std::string expected_cpu_plugin_build() {
  return std::string(STUBJIT_VERSION) + " clang " + STUBJIT_CLANG_VERSION;
}

std::string cpu_compiler_id() {
  // The fixed flags and the binary format shape every binary as much as the version:
  // they are in the id (hashed, to keep it readable) and so in every cache key.
  std::string flags = cpu_binary_format;
  for (const char* flag : cpu_compile_flags) flags += std::string(" ") + flag;
  flags += " |";
  for (const char* flag : cpu_link_flags) flags += std::string(" ") + flag;
  return std::string("clang ") + STUBJIT_CLANG_VERSION + " (" + cpu_binary_format + ", flags " +
         hex64(hash64(flags)).substr(0, 8) + ")";
}

std::string cpu_compiler_plugin_path() {
  const std::string chosen = env_or("STUBJIT_CPU_COMPILER", "");
  if (!chosen.empty()) return ::access(chosen.c_str(), R_OK) == 0 ? chosen : "";
#ifdef STUBJIT_BUILD_TREE_CPU_COMPILER
  const char* build_tree_plugin = STUBJIT_BUILD_TREE_CPU_COMPILER;
#else
  const char* build_tree_plugin = nullptr;
#endif
  return find_beside_library(cpu_compiler_plugin_name, build_tree_plugin, /*executable=*/false);
}

HostSharedObject compile_host_shared_object(const CompileJob& job) {
  const Plugin& compiler = plugin();
  if (!compiler.problem.empty())
    throw BackendError("the CPU backend cannot compile: " + compiler.problem);
  std::vector<const char*> options;
  options.reserve(job.options.size());
  for (const std::string& option : job.options) options.push_back(option.c_str());
  Sinks sinks;
  const stubjit_cpu_compile_request request{job.source.data(),     job.source.size(),
                                            job.file_name.c_str(), options.data(),
                                            options.size(),        &sinks,
                                            &write_binary,         &write_diagnostics};
  const int status = compiler.compile(&request);
  if (status == STUBJIT_CPU_SOURCE_ERROR)
    throw CompileError(job.kernel, sinks.diagnostics, job.source);
  if (status != STUBJIT_CPU_COMPILED || sinks.binary.empty())
    throw BackendError("the CPU compiler failed on " + job.file_name + ": " + sinks.diagnostics);
  if (!sinks.diagnostics.empty())
    logger().debug("clang diagnostics for {}:\n{}", job.file_name, sinks.diagnostics);
  return HostSharedObject{std::move(sinks.binary), std::move(sinks.diagnostics)};
}

}  // namespace stubjit::detail
