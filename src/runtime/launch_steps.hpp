// The steps of Kernel::launch that Kernel::prepare and Kernel::binary share with it,
// so that all three check and choose exactly alike (kernel.cpp).
#pragma once

#include <memory>
#include <optional>

#include "bind/bind.hpp"
#include "runtime/kernel_state.hpp"

namespace stubjit::detail {

// Arguments against the signature (ArgumentError, AliasError).
void bind(const KernelState& kernel, const Domain& domain, const Arg* args, std::size_t count,
          BoundArgs& bound);
// The domains run_domain makes and the launch runs over: the C-order form of a
// Fortran-order domain, and the fusion of the one given or of that form.
struct RunDomains {
  std::optional<Domain> c_order;
  std::optional<Domain> fused;
};
// The domain the launch runs over, in C order (every stub runs its last dimension
// fastest): `domain` as given, its C-order form (bind/domain_order.hpp), or the
// fusion of either (bind/fusion.hpp), kept in `made`, with `bound` rewritten for it.
// Not fused where the runtime's options say so or the kernel fixes its group shape.
// A forced direct launch is refused or not over the domain as given (PlanError from
// here), and fused only where the fused domain fits as well, so that whether it is
// refused never depends on strides. Sets bound.dense for targets
// with a dense variant (bind/dense.hpp), and bound.view_stride for targets that compile
// short rows in, whatever the rows' length (bind/view_stride.hpp).
const Domain& run_domain(const KernelState& kernel, const Domain& domain, std::optional<Mode> mode,
                         BoundArgs& bound, RunDomains& made);
// The plan, checked against the device's own limits when the runtime's are
// overridden (PlanError).
Plan plan_for(const KernelState& kernel, const Domain& domain, std::optional<Mode> mode);
// plan_for of `run`, the domain run_domain gave for `domain`; a refused launch over a
// Fortran-order domain names that domain as the caller gave it where the planner
// refuses it too (otherwise the refusal of `run`).
Plan plan_run(const KernelState& kernel, const Domain& domain, const Domain& run,
              const RunDomains& made, std::optional<Mode> mode);
// Which stub the plan and the bound arguments need on this runtime's target; `run` is
// the domain the plan is of (after fusion).
StubVariant variant_of(const KernelState& kernel, const Domain& run, const Plan& plan,
                       const BoundArgs& bound);
// The stub for `identity`: from the kernel's own table (no lock), else the runtime's
// cache, else built. `hold` keeps a stub the table could not take alive for the
// caller; `compiled` is set when the compiler ran for it.
const LoadedStub& stub_for(KernelState& kernel, const StubIdentity& identity, bool& compiled,
                           std::shared_ptr<const LoadedStub>& hold);
// Specialize::background: where the stub of `identity` (one with specialized values
// compiled in) is not ready, queues its compile on the kernel's worker (once) and
// returns the generic stub's identity to run instead; nullopt where `identity` itself
// is to run (ready, no values compiled in, or a kernel that specializes at launch).
std::optional<StubIdentity> generic_stub_instead(KernelState& kernel, const StubIdentity& identity);
// `identity`, or with `launching` the identity a launch runs in its place
// (generic_stub_instead: `summary.generic` then says so).
StubIdentity identity_to_run(KernelState& kernel, StubIdentity identity, bool launching,
                             LaunchSummary& summary);
// stub_for, which sets `summary.compiled` where the compiler ran for the stub.
const LoadedStub& stub_found(KernelState& kernel, const StubIdentity& identity,
                             LaunchSummary& summary, std::shared_ptr<const LoadedStub>& hold);
// The stub for `identity` (stub_for), or with `launching` the one a launch runs in its
// place (generic_stub_instead: `summary.generic` then says so); `summary.compiled` is
// set when the compiler ran for it.
const LoadedStub& stub_to_run(KernelState& kernel, const StubIdentity& identity, bool launching,
                              LaunchSummary& summary, std::shared_ptr<const LoadedStub>& hold);
// A launch's checks and the stub it would run, found or compiled as the launch would
// (the generic one where Specialize::background still compiles the kernel's own),
// without issuing anything: what SplitKernel runs on every part before it launches any,
// and Kernel::repeat on the launch after its first trade.
LaunchSummary check_launch(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options);

}  // namespace stubjit::detail
