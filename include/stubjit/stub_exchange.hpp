// For job-wide compile services (the MPI component, stubjit/mpi.hpp, is one): which
// stubs a set of launches needs that a runtime has in none of its stores, compiling
// such a stub in another process whose toolchain is the same, and handing the binary
// to the runtime that lacked it. Nothing here talks to other processes: the caller
// moves orders and binaries between them (docs/cluster.md).
#pragma once

#include <string>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/export.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit {

// One launch a process will make: a kernel of the runtime, its domain and arguments
// (an Arg refers to its Field, which must outlive the use of the launch). Fields are
// neither read nor written, but the stub depends on more than their type: their
// layout (strides, views, Fortran or C order) and which of them alias, so give the
// fields the launch will use, or ones laid out alike.
struct PlannedLaunch {
  Kernel kernel;
  Domain domain;
  std::vector<Arg> args;
  LaunchOptions options{};
};

// A stub a runtime lacks, with all that a process with the same toolchain needs to
// compile it. Plain strings, so that a caller can send it anywhere.
struct StubOrder {
  // Who can compile it: runtimes whose StubExchange::toolchain is this string
  // (backend, target, compiler and its version, compiler options, stub generator).
  std::string toolchain;
  std::string key;       // the stub's cache name (32 hex digits), unique per stub
  std::string key_text;  // the full cache key the name is the hash of
  std::string kernel;    // the kernel's name, for errors
  std::string source;    // the generated stub, ready to compile
  std::string file_name;
  std::string entry;  // its entry point
};

class STUBJIT_API StubExchange {
 public:
  // This runtime's toolchain string (StubOrder::toolchain).
  static std::string toolchain(const Runtime& runtime);

  // The stubs that `launches` need next and `runtime` has neither in memory nor in
  // its disk cache, each once; empty when every launch would find its stubs. Compiles
  // nothing and runs nothing; a stub found on disk is loaded, as a launch would. A
  // launch of several stages (a scan, a sort) names only the first stage it
  // lacks: once that one is installed, calling again names the next, so a caller
  // repeats until the list is empty (a sort: its runs, then its merge where its
  // segments could split). Throws what Kernel::prepare throws for a bad launch
  // (ArgumentError, PlanError, ...), and Error for a kernel of another runtime.
  static std::vector<StubOrder> missing(Runtime& runtime,
                                        const std::vector<PlannedLaunch>& launches);

  // Compiles `order` with this runtime's toolchain, counted as one of its compiles.
  // Throws CompileError as a launch would (the log names the user's lines), and Error
  // when the order is damaged (its key is not the hash of its key text), its key text
  // names another toolchain (generator, backend, target, compiler, options: read from
  // the key, whatever the order's `toolchain` says), or its source is not the one its
  // key names.
  static StubBinary compile(Runtime& runtime, const StubOrder& order);

  // Gives `binary` (from compile, maybe in another process) to `runtime` as the stub of
  // `order`, which should be an order missing() gave for this runtime: into its memory
  // store, and with `to_disk` into its disk cache too (written in the background, like
  // any entry). Its next launch that needs the stub loads it without compiling, while
  // the memory store keeps it (RuntimeOptions::memory_cache_stubs: four times as many
  // binaries as stubs, at least 64). Returns whether it was queued for the disk cache
  // (false without one). Throws Error, keeping nothing, for an order refused as by
  // compile, an empty binary, or one whose cache_name, target or entry (where set)
  // are another stub's. A binary the device then refuses is reported, compiled again
  // and replaced by the launch, as a refused disk entry is.
  static bool install(Runtime& runtime, const StubOrder& order, const StubBinary& binary,
                      bool to_disk);
};

}  // namespace stubjit
