// The compiler plugin's C entry points (backends/cpu/compiler_plugin_abi.h): Clang to
// an object, lld to a shared object, results handed back through the caller's sinks.
#include <clang/Basic/Version.h>

#include <exception>
#include <string>
#include <vector>

#include "backends/cpu/compiler/clang_compiler.hpp"
#include "backends/cpu/compiler/shared_object_linker.hpp"
#include "backends/cpu/compiler_plugin_abi.h"

#define STUBJIT_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace {

void hand_back(stubjit_cpu_sink sink, void* context, const std::string& text) {
  if (sink && !text.empty()) sink(context, text.data(), text.size());
}

}  // namespace

extern "C" {

STUBJIT_PLUGIN_EXPORT unsigned stubjit_cpu_plugin_abi(void) { return STUBJIT_CPU_PLUGIN_ABI; }

STUBJIT_PLUGIN_EXPORT const char* stubjit_cpu_plugin_build(void) {
  return STUBJIT_VERSION " clang " CLANG_VERSION_STRING;
}

STUBJIT_PLUGIN_EXPORT int stubjit_cpu_plugin_compile(
    const struct stubjit_cpu_compile_request* request) {
  using namespace stubjit::cpu_compiler;
  try {
    const std::string source(request->source, request->source_size);
    std::vector<std::string> options;
    for (std::size_t i = 0; i < request->option_count; ++i)
      options.emplace_back(request->options[i]);
    const HostObject object = compile_to_host_object(source, request->file_name, options);
    if (!object.ok) {
      hand_back(request->write_diagnostics, request->context, object.diagnostics);
      return STUBJIT_CPU_SOURCE_ERROR;
    }
    const SharedObject linked = link_shared_object(object.bytes);
    hand_back(
        request->write_diagnostics, request->context,
        object.diagnostics + (linked.ok ? "" : "linking the stub failed:\n") + linked.diagnostics);
    if (!linked.ok) return STUBJIT_CPU_COMPILER_ERROR;
    request->write_binary(request->context, linked.bytes.data(), linked.bytes.size());
    return STUBJIT_CPU_COMPILED;
  } catch (const std::exception& error) {
    hand_back(request->write_diagnostics, request->context,
              std::string("the CPU compiler failed: ") + error.what());
  } catch (...) {
    hand_back(request->write_diagnostics, request->context, "the CPU compiler failed");
  }
  return STUBJIT_CPU_COMPILER_ERROR;
}

}  // extern "C"
