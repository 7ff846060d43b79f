// From generated source to a loaded module: through the disk cache when the runtime
// has one (verified hit: load without compiling; miss: compile once across
// processes, store, load), straight through the compiler otherwise.
#pragma once

#include <memory>

#include "cache/cache_key.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/runtime_state.hpp"

namespace stubjit::detail {

struct BuiltStub {
  std::unique_ptr<LoadedModule> module;
  bool compiled = false;  // the compiler ran (false: loaded from disk)
};

// Updates the runtime's compile and disk counters. Throws CompileError/BackendError.
BuiltStub build_stub(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel,
                     const StubVariant& variant, const CacheKey& key);

}  // namespace stubjit::detail
