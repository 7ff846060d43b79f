// Kernel::prepare and Kernel::binary: a launch's checks and stub, without issuing it.
// They share every step with Kernel::launch (launch_steps.hpp), so that a prepared
// stub is exactly the one the launch then finds in the kernel's table.
#include <memory>

#include "cache/disk_key.hpp"
#include "runtime/group_launch.hpp"
#include "runtime/kernel_state.hpp"
#include "runtime/launch_steps.hpp"
#include "runtime/reduce_launch.hpp"
#include "runtime/scan_launch.hpp"
#include "runtime/sort_launch.hpp"
#include "runtime/stub_builder.hpp"
#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"
#include "support/log.hpp"

namespace stubjit {
namespace {

void check_stream(const detail::RuntimeState& runtime, const LaunchOptions& options) {
  if (options.stream && !*options.stream) {
    throw Error(
        "the stream passed to prepare is a null Stream (make one with Runtime::create_stream)");
  }
  if (options.stream && options.stream->owner() != &runtime) {
    throw Error("the stream passed to prepare belongs to another runtime");
  }
}

struct Prepared {
  LaunchSummary summary;
  std::optional<detail::StubIdentity> identity;  // none: the plan has no dispatch
  detail::StubVariant variant;
};

// `launching`: the stub a launch would run (detail::check_launch), else the stub's own
// (Kernel::prepare and binary compile the specialized stub whatever the kernel's
// Specialize says).
Prepared prepare_stub(detail::KernelState& kernel, const Domain& domain, const Arg* args,
                      std::size_t count, const LaunchOptions& options, bool launching) {
  detail::RuntimeState& runtime = *kernel.runtime;
  if (kernel.result) {
    Prepared out;
    out.summary =
        kernel.result->is_sort()
            ? detail::prepare_sort(kernel, domain, args, count, options, out.identity, launching)
        : kernel.result->is_scan()
            ? detail::prepare_scan(kernel, domain, args, count, options, out.identity, launching)
            : detail::prepare_reduce(kernel, domain, args, count, options, out.identity, launching);
    return out;
  }
  if (detail::is_group_launch(kernel, options)) {
    Prepared out;
    out.summary =
        detail::prepare_group(kernel, domain, args, count, options, out.identity, launching);
    return out;
  }
  const std::optional<Mode> mode = options.mode;
  detail::BoundArgs bound;
  detail::bind(kernel, domain, args, count, bound);
  detail::RunDomains made;
  const Domain& run = detail::run_domain(kernel, domain, mode, bound, made);
  const Plan plan = detail::plan_run(kernel, domain, run, made, mode);
  Prepared out;
  out.summary = LaunchSummary{plan.mode, plan.rank, plan.dispatches.size(), false};
  if (plan.dispatches.empty()) return out;
  out.variant = detail::variant_of(kernel, run, plan, bound);
  out.identity =
      detail::StubIdentity::of(*kernel.identity, *runtime.toolchain_identity, out.variant);
  std::shared_ptr<const detail::LoadedStub> hold;
  const detail::LoadedStub& stub =
      detail::stub_to_run(kernel, *out.identity, launching, out.summary, hold);
  // What the launch would check before its first dispatch, where there is a device
  // to ask (a compile-only runtime has no module to check against).
  if (runtime.device) runtime.device->check_plan(*stub.module, plan);
  return out;
}

// The binary of a prepared stub: the stores have it unless it was evicted from memory
// and there is no disk cache; then it is compiled again (and counted as a compile).
detail::Binary binary_of(detail::RuntimeState& runtime, const KernelSource& source,
                         const detail::StubIdentity& identity, std::string& entry,
                         std::string& cache_name) {
  const detail::GeneratedStub stub =
      detail::generate_stub(detail::stub_request(runtime, source, identity.variant));
  const detail::DiskKey key = detail::make_disk_key(identity, stub.source);
  entry = stub.entry;
  cache_name = key.name;
  detail::BinaryChain::Found found = runtime.binaries.find(key);
  if (found.binary) return *found.binary;
  detail::logger().debug("compiling {} again for its bytes (no store kept them)", stub.entry);
  const auto binary =
      std::make_shared<const detail::Binary>(detail::compile_stub(runtime, stub, source.name));
  runtime.binaries.put(key, binary, {});
  return *binary;
}

void refuse_empty(const Domain& domain) {
  for (int d = 0; d < domain.rank(); ++d) {
    if (domain[d].count == 0) {
      throw DomainError(d, "domain dimension " + std::to_string(d) +
                               " has no index: a launch over it runs no stub, so there is no "
                               "binary to give");
    }
  }
}

}  // namespace

namespace detail {

LaunchSummary check_launch(KernelState& kernel, const Domain& domain, const Arg* args,
                           std::size_t count, const LaunchOptions& options) {
  check_stream(*kernel.runtime, options);
  return prepare_stub(kernel, domain, args, count, options, true).summary;
}

}  // namespace detail

LaunchSummary Kernel::prepare_args(const Domain& domain, const Arg* args, std::size_t count,
                                   const LaunchOptions& options) {
  if (!state_) throw Error("prepare of a null kernel");
  check_stream(*state_->runtime, options);
  return prepare_stub(*state_, domain, args, count, options, false).summary;
}

StubBinary Kernel::binary(const Domain& domain, const std::vector<Arg>& args,
                          std::optional<Mode> forced) {
  if (!state_) throw Error("binary of a null kernel");
  return binary(domain, args, LaunchOptions{forced});
}

StubBinary Kernel::binary(const Domain& domain, const std::vector<Arg>& args,
                          const LaunchOptions& options) {
  if (!state_) throw Error("binary of a null kernel");
  check_stream(*state_->runtime, options);
  const Prepared prepared = prepare_stub(*state_, domain, args.data(), args.size(), options, false);
  if (!prepared.identity) refuse_empty(domain);
  StubBinary out;
  detail::Binary binary =
      binary_of(*state_->runtime, state_->source, *prepared.identity, out.entry, out.cache_name);
  out.format = std::move(binary.format);
  out.bytes = std::move(binary.bytes);
  out.target = state_->runtime->toolchain_identity->target;
  out.mode = prepared.summary.mode;
  out.rank = prepared.summary.rank;
  return out;
}

}  // namespace stubjit
