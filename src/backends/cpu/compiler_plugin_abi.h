/* The C interface between the core library and the CPU backend's compiler plugin
 * (libstubjit-cpu-compiler.so, built from compiler/). The plugin holds Clang, LLVM and
 * lld; the core opens it with dlopen the first time a CPU stub must be compiled, so a
 * process whose stubs are all cached never maps a compiler. Plain C: no exception,
 * allocator or standard-library type crosses the boundary. */
#ifndef STUBJIT_CPU_COMPILER_PLUGIN_ABI_H
#define STUBJIT_CPU_COMPILER_PLUGIN_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a function or structure below changes. */
#define STUBJIT_CPU_PLUGIN_ABI 1

/* Receives bytes the plugin produced; called at most once per kind and request. */
typedef void (*stubjit_cpu_sink)(void* context, const char* data, size_t size);

struct stubjit_cpu_compile_request {
  const char* source; /* C++ source of one stub */
  size_t source_size;
  const char* file_name;      /* the name diagnostics use */
  const char* const* options; /* extra compiler flags */
  size_t option_count;
  void* context;                      /* passed back to the sinks */
  stubjit_cpu_sink write_binary;      /* the linked shared object */
  stubjit_cpu_sink write_diagnostics; /* what the compiler or linker printed */
};

enum stubjit_cpu_compile_status {
  STUBJIT_CPU_COMPILED = 0,
  STUBJIT_CPU_SOURCE_ERROR = 1,   /* the source does not compile: diagnostics say why */
  STUBJIT_CPU_COMPILER_ERROR = 2, /* the compiler or linker failed otherwise */
};

/* Exported by the plugin. */
unsigned stubjit_cpu_plugin_abi(void);
/* The stubjit version and compiler the plugin was built with: "0.2.0 clang 14.0.6". It
 * must equal the core's, whose cache keys name that compiler. */
const char* stubjit_cpu_plugin_build(void);
/* Compiles the source for this host's CPU (-O3 -march=native) and links it into a
 * position-independent shared object. Thread-safe. */
int stubjit_cpu_plugin_compile(const struct stubjit_cpu_compile_request* request);

#ifdef __cplusplus
}
#endif

#endif
