// From a stub's identity to a stub ready to launch: the source from the stub writer,
// the binary from the first store that has it (memory, then disk) or from the
// compiler, once across processes, then loaded on the runtime's device.
#pragma once

#include <memory>
#include <vector>

#include "cache/disk_key.hpp"
#include "cache/stub_identity.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/runtime_state.hpp"
#include "stubjit/stub_exchange.hpp"

namespace stubjit::detail {

// What the stub writer gets for `variant` of `source` on this runtime's target.
StubRequest stub_request(const RuntimeState& runtime, const KernelSource& source,
                         const StubVariant& variant);

// Updates the runtime's compile counter and its stores' counters. `ran_compiler` is
// set when the compiler ran. Throws CompileError or BackendError.
std::shared_ptr<const LoadedStub> build_stub(RuntimeState& runtime, const KernelSource& source,
                                             const StubIdentity& identity, bool& ran_compiler);

// While one is alive on a thread, a stub that no store has is not built for `runtime`
// on that thread: stub_for asks defer_unless_stored first, which adds the stub to
// `orders` (once per key) and throws StubDeferred, which only StubExchange::missing
// catches. It is thrown before the runtime's single-flight cache is asked, so that no
// other thread waiting for the same stub ever receives it, and nothing is remembered
// of a deferred stub: the next build of it looks in the stores again.
class StubCollection {
 public:
  StubCollection(const RuntimeState& runtime, std::vector<StubOrder>& orders);
  ~StubCollection();
  StubCollection(const StubCollection&) = delete;
  StubCollection& operator=(const StubCollection&) = delete;

  // Called by stub_for before it builds: returns where no collection for `runtime` is
  // alive on this thread, or where a store has the stub; else records the order and
  // throws StubDeferred.
  static void defer_unless_stored(RuntimeState& runtime, const KernelSource& source,
                                  const StubIdentity& identity);
  // Whether one for `runtime` is alive on this thread: a stub built on another thread
  // would then be built, not deferred.
  static bool active_for(const RuntimeState& runtime) noexcept;

 private:
  const RuntimeState* runtime_;
  std::vector<StubOrder>* orders_;
  StubCollection* previous_;
};
// Not derived from std::exception, so that no handler for errors takes it by mistake.
struct StubDeferred {};

// The toolchain string of StubOrder: equal strings, equal toolchains.
std::string toolchain_text(const ToolchainIdentity& identity);

// Compiles `stub` with the runtime's toolchain (the node's compile cap applies),
// counting the compile or its failure. Throws CompileError.
Binary compile_stub(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel);

}  // namespace stubjit::detail
