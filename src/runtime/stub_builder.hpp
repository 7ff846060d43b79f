// From a stub's identity to a stub ready to launch: the source from the stub writer,
// the binary from the first store that has it (memory, then disk) or from the
// compiler, once across processes, then loaded on the runtime's device.
#pragma once

#include <memory>

#include "cache/stub_identity.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/runtime_state.hpp"

namespace stubjit::detail {

// What the stub writer gets for `variant` of `source` on this runtime's target.
StubRequest stub_request(const RuntimeState& runtime, const KernelSource& source,
                         const StubVariant& variant);

// Updates the runtime's compile counter and its stores' counters. `ran_compiler` is
// set when the compiler ran. Throws CompileError or BackendError.
std::shared_ptr<const LoadedStub> build_stub(RuntimeState& runtime, const KernelSource& source,
                                             const StubIdentity& identity, bool& ran_compiler);

}  // namespace stubjit::detail
