// Kernel::launch: bind -> plan -> identity -> stub (the kernel's own table, then the
// runtime's cache, then the binary stores or the compiler) -> check -> dispatches.
//
// On a memory hit nothing here allocates: the bindings and packed arguments live in
// this call's BoundArgs, the plan keeps its dispatches inline, the identity is a
// fixed-size value, the kernel's table is read without a lock, and a launch like one
// this thread made before reuses its plan and stub (launch_memo.hpp).
#include "stubjit/kernel.hpp"

#include <array>
#include <atomic>
#include <cstring>

#include "bind/dense.hpp"
#include "bind/domain_order.hpp"
#include "bind/fusion.hpp"
#include "bind/view_stride.hpp"
#include "codegen/identifier.hpp"
#include "runtime/group_launch.hpp"
#include "runtime/kernel_state.hpp"
#include "runtime/launch_memo.hpp"
#include "runtime/launch_params.hpp"
#include "runtime/launch_steps.hpp"
#include "runtime/reduce_launch.hpp"
#include "runtime/scan_launch.hpp"
#include "runtime/sort_launch.hpp"
#include "runtime/stub_builder.hpp"
#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit {
namespace detail {
namespace {

bool keep_failure(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const CompileError&) {
    return true;  // the same source fails the same way: compile it once
  } catch (...) {
    return false;  // a device or store failure may pass: try again next time
  }
}

void issue_dispatches(RuntimeState& runtime, const LoadedStub& stub, const Domain& domain,
                      const Plan& plan, const PackedArgs& packed, StreamState* stream) {
  Device& device = runtime.device_for("launch a kernel");
  // All or nothing: whatever can be known before the first dispatch is checked here.
  device.check_plan(*stub.module, plan);
  LaunchParams lp;
  fill_domain(lp, domain);
  for (std::size_t i = 0; i < plan.dispatches.size(); ++i) {
    fill_dispatch(lp, plan, plan.dispatches[i]);
    try {
      device.launch(*stub.module, stub.parameters, lp, packed.data(), packed.size(), stream);
    } catch (const BackendError& error) {
      if (i == 0) throw;
      throw LaunchError(i, plan.dispatches.size(),
                        "dispatch " + std::to_string(i + 1) + " of " +
                            std::to_string(plan.dispatches.size()) + " of " + stub.entry +
                            " failed after the first " + std::to_string(i) +
                            " were issued (they ran or will run): " + error.what());
    }
  }
}

}  // namespace

void bind(const KernelState& kernel, const Domain& domain, const Arg* args, std::size_t count,
          BoundArgs& bound) {
  const RuntimeState& runtime = *kernel.runtime;
  bind_arguments(kernel.source.signature, domain, args, count, &runtime, bound, kernel.index32);
  if (!kernel.source.filter.empty()) bound.uses_index = true;
}

namespace {

// The fused domain where fusion applies (in `fused`), else the domain as given.
const Domain& fused_or_given(const KernelState& kernel, const Domain& domain,
                             std::optional<Mode> mode, BoundArgs& bound,
                             std::optional<Domain>& fused) {
  if (!kernel.runtime->options.fuse_dimensions) return domain;
  // Nothing to fuse or reorder (fuse_dimensions would say so): no optional<Domain> to
  // copy on the launch path either.
  if (domain.rank() < 2 || domain.empty()) return domain;
  // A fixed group shape is written for the domain's dimensions: fused, most of its
  // threads would idle.
  if (kernel.source.block.fixed()) return domain;
  if (mode != Mode::direct) {
    fused = fuse_dimensions(kernel.source.signature, domain, bound);
    return fused ? *fused : domain;
  }
  // Direct's limits are per dimension: a forced direct launch is refused or not over
  // the domain as given, and runs fused only where the fused domain fits too.
  if (domain.rank() > 3) return domain;
  std::array<unsigned char, PackedArgs::inline_capacity> saved;
  const std::size_t size = bound.packed.size();
  if (size > saved.size()) return domain;
  std::memcpy(saved.data(), bound.packed.data(), size);
  const IndexOrder order = bound.index_order;
  fused = fuse_dimensions(kernel.source.signature, domain, bound);
  if (!fused) return domain;
  plan_for(kernel, domain, mode);  // PlanError: refused as given
  try {
    plan_for(kernel, *fused, mode);
    return *fused;
  } catch (const PlanError&) {
    bound.packed.restore(saved.data(), size);
    bound.index_order = order;
    fused.reset();
    return domain;
  }
}

std::int64_t inner_count(const Domain& run) {
  return run.dims()[static_cast<std::size_t>(run.rank() - 1)].count;
}

// Whether a launch over `run` gets a stub with its innermost extent compiled in.
bool has_short_rows(const KernelState& kernel, const Domain& run) {
  if (kernel.short_row_limit == 0 || run.rank() < 2) return false;
  const std::int64_t inner = inner_count(run);
  return inner > 0 && inner <= kernel.short_row_limit;
}

}  // namespace

const Domain& run_domain(const KernelState& kernel, const Domain& domain, std::optional<Mode> mode,
                         BoundArgs& bound, RunDomains& made) {
  // Assigned only for a Fortran-order domain: an optional<Domain> is copied whole.
  if (domain.order() == Order::fortran)
    made.c_order = to_c_order(kernel.source.signature, domain, bound);
  // A forced direct launch is refused over the domain as given (fused_or_given), here in
  // the caller's own terms for a Fortran-order domain.
  if (made.c_order && mode == Mode::direct) plan_for(kernel, domain, mode);
  const Domain& given = made.c_order ? *made.c_order : domain;
  const Domain& run = fused_or_given(kernel, given, mode, bound, made.fused);
  bound.dense = kernel.dense_variant && is_dense(kernel.source.signature, run, bound);
  // Rows of any length: a rank-1 stencil over every other element ran at 0.91 of the
  // hand loop with its views' stride known at run time only, 0.98 to 1.00 with it
  // compiled in (bench/results/shapes.md, "View strides in long rows").
  bound.view_stride =
      kernel.short_row_limit != 0 ? view_stride_to_compile(kernel.source.signature, run, bound) : 0;
  return run;
}

Plan plan_run(const KernelState& kernel, const Domain& domain, const Domain& run,
              const RunDomains& made, std::optional<Mode> mode) {
  try {
    return plan_for(kernel, run, mode);
  } catch (const PlanError&) {
    // The run is a Fortran-order domain in C order (perhaps reordered or fused): where
    // the domain as the caller wrote it is refused too, that refusal names it.
    if (made.c_order) plan_for(kernel, domain, mode);
    throw;
  }
}

Plan plan_for(const KernelState& kernel, const Domain& domain, std::optional<Mode> mode) {
  const RuntimeState& runtime = *kernel.runtime;
  Plan plan = make_plan(domain, runtime.limits, kernel.source.block, runtime.options.policy, mode);
  // Overridden limits may exceed the device's: refuse here, before any dispatch runs.
  if (runtime.limits_overridden) check_plan_within(plan, runtime.device_limits);
  return plan;
}

StubVariant variant_of(const KernelState& kernel, const Domain& run, const Plan& plan,
                       const BoundArgs& bound) {
  const RuntimeState& runtime = *kernel.runtime;
  const TargetTraits& traits = runtime.toolchain->traits();
  StubVariant variant;
  variant.pattern = Pattern::forall;
  variant.mode = plan.mode;
  variant.rank = static_cast<std::uint8_t>(plan.rank);
  variant.index_bits = traits.index32 && bound.fits_int32 ? 32 : 64;
  variant.bindings = bound.bindings;
  variant.index_order = bound.index_order;
  if (traits.launch_bounds) {
    variant.launch_bounds = kernel.launch_bounds[static_cast<std::size_t>(plan.mode)]
                                                [static_cast<std::size_t>(plan.rank)];
  }
  if (traits.warp_constant) variant.warp_size = runtime.limits.warp_size;
  variant.dense = bound.dense;
  // Only the values there are: the rest stay zero, so that equal variants compare equal.
  variant.specialized.scalar_count = bound.specialized_count;
  for (std::size_t i = 0; i < bound.specialized_count; ++i)
    variant.specialized.scalars[i] = bound.specialized[i];
  if (has_short_rows(kernel, run)) {
    variant.specialized.count = 1;
    variant.specialized.bits[0] = static_cast<std::uint64_t>(inner_count(run));
  }
  if (bound.view_stride != 0) {  // bits[0] stays 0 for long rows
    variant.specialized.count = 2;
    variant.specialized.bits[1] = static_cast<std::uint64_t>(bound.view_stride);
  }
  return variant;
}

const LoadedStub& stub_for(KernelState& kernel, const StubIdentity& identity, bool& compiled,
                           std::shared_ptr<const LoadedStub>& hold) {
  RuntimeState& runtime = *kernel.runtime;
  if (const KernelStubs::Record* record = kernel.stubs.find(identity)) {
    if (record->failure) std::rethrow_exception(record->failure);
    runtime.memory_hits.add();
    return *record->stub;
  }
  // StubExchange::missing (stub_builder.hpp): a stub no store has is deferred here, on
  // this thread alone, before the single-flight cache could hand the deferral to others.
  StubCollection::defer_unless_stored(runtime, kernel.source, identity);
  const StubKey key{kernel.identity, runtime.toolchain_identity, identity.variant, identity.hash};
  bool created = false;
  bool ran_compiler = false;
  try {
    hold = runtime.stubs.get_or_create(
        key, [&] { return build_stub(runtime, kernel.source, identity, ran_compiler); }, created,
        keep_failure);
  } catch (const CompileError&) {
    kernel.stubs.remember(identity, nullptr, std::current_exception());
    throw;
  }
  if (!created) runtime.memory_hits.add();
  compiled = created && ran_compiler;
  kernel.stubs.remember(identity, hold, nullptr);
  return *hold;
}

namespace {

void log_background_failure(const KernelState& kernel, const char* what, bool again) {
  try {
    logger().warn(
        "kernel '{}': the stub specialized for a launch's values failed in the background; "
        "launches with those values run the generic stub{}: {}",
        kernel.source.name, again ? " (the next one tries again)" : "", what);
  } catch (...) {  // on the worker thread: nothing may leave it
  }
}

// On the kernel's worker thread. The stub lands in the kernel's table (or, where that
// is full, in the runtime's cache, where the launch finds it next).
BackgroundCompiles::Result compile_in_background(KernelState& kernel,
                                                 const StubIdentity& identity) {
  bool compiled = false;
  std::shared_ptr<const LoadedStub> hold;
  try {
    stub_for(kernel, identity, compiled, hold);
    return BackgroundCompiles::Result::ready;
  } catch (const CompileError& error) {
    log_background_failure(kernel, error.what(), false);
    return BackgroundCompiles::Result::failed;
  } catch (const std::exception& error) {
    log_background_failure(kernel, error.what(), true);
    return BackgroundCompiles::Result::retry;
  }
}

}  // namespace

std::optional<StubIdentity> generic_stub_instead(KernelState& kernel,
                                                 const StubIdentity& identity) {
  if (kernel.source.specialize != Specialize::background ||
      identity.variant.specialized.scalar_count == 0)
    return std::nullopt;
  const KernelStubs::Record* record = kernel.stubs.find(identity);
  if (record && !record->failure) return std::nullopt;  // ready
  if (!record && kernel.background.request(identity) == BackgroundCompiles::Outcome::ready)
    return std::nullopt;  // ready, in the runtime's cache: the kernel's table is full
  // The same variant with no values compiled in: its stub reads them as arguments.
  StubVariant generic = identity.variant;
  generic.specialized.scalar_count = 0;
  generic.specialized.scalars = {};
  return StubIdentity::of(*kernel.identity, *kernel.runtime->toolchain_identity, generic);
}

StubIdentity identity_to_run(KernelState& kernel, StubIdentity identity, bool launching,
                             LaunchSummary& summary) {
  std::optional<StubIdentity> generic =
      launching ? generic_stub_instead(kernel, identity) : std::nullopt;
  if (!generic) return identity;
  summary.generic = true;
  return std::move(*generic);
}

const LoadedStub& stub_found(KernelState& kernel, const StubIdentity& identity,
                             LaunchSummary& summary, std::shared_ptr<const LoadedStub>& hold) {
  bool compiled = false;
  const LoadedStub& stub = stub_for(kernel, identity, compiled, hold);
  summary.compiled = summary.compiled || compiled;
  return stub;
}

const LoadedStub& stub_to_run(KernelState& kernel, const StubIdentity& identity, bool launching,
                              LaunchSummary& summary, std::shared_ptr<const LoadedStub>& hold) {
  const std::optional<StubIdentity> generic =
      launching ? generic_stub_instead(kernel, identity) : std::nullopt;
  if (generic) summary.generic = true;
  return stub_found(kernel, generic ? *generic : identity, summary, hold);
}

std::uint64_t next_kernel_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

KernelState::KernelState(std::shared_ptr<RuntimeState> rt, KernelSource src)
    : id(next_kernel_id()),
      runtime(std::move(rt)),
      source(std::move(src)),
      background([this](const StubIdentity& stub) { return compile_in_background(*this, stub); }) {
  validate_kernel_source(source);
  identity = std::make_shared<const KernelIdentity>(identify(source));
  group_kernel = is_group_kernel(source);
  result = result_param(source);
  for (const Param& param : source.signature) {
    if (!tile_token &&
        (param.kind == ParamKind::tile_index || param.kind == ParamKind::local_index))
      tile_token = &param;
  }
  dense_variant = runtime->toolchain->traits().dense_variant;
  index32 = runtime->toolchain->traits().index32;
  if (runtime->options.specialize_short_rows)
    short_row_limit = runtime->toolchain->traits().short_row_limit;
  if (runtime->toolchain->traits().launch_bounds) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      for (int rank = 1; rank <= Domain::max_rank; ++rank) {
        if (mode == Mode::direct && rank > 3) continue;
        launch_bounds[static_cast<std::size_t>(mode)][static_cast<std::size_t>(rank)] =
            max_group_threads(runtime->limits, source.block, mode, rank);
      }
    }
  }
}

void check_arguments_but_result(const KernelState& kernel, std::size_t count, const char* call) {
  const Param* result = kernel.result;
  // Counted here so that the error leaves the result out.
  std::size_t expected = 0;
  std::string names;
  for (const Param& p : kernel.source.signature) {
    if (!takes_argument(p) || &p == result) continue;
    ++expected;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  if (count != expected) {
    throw ArgumentError("", std::string(call) + " of kernel '" + kernel.source.name + "' takes " +
                                std::to_string(expected) + " argument" +
                                (expected == 1 ? "" : "s") + " (" + names + "; the result '" +
                                result->name + "' is its own), got " + std::to_string(count));
  }
}

std::vector<Arg> arguments_with_result(const KernelState& kernel, const Arg* args,
                                       std::size_t count, const Field& result) {
  std::vector<Arg> all;
  all.reserve(count + 1);
  std::size_t next = 0;
  for (const Param& p : kernel.source.signature) {
    if (&p == kernel.result) {
      all.emplace_back(result);
    } else if (takes_argument(p)) {
      all.push_back(args[next++]);
    }
  }
  return all;
}

}  // namespace detail

const std::string& Kernel::name() const {
  if (!state_) throw Error("null kernel");
  return state_->source.name;
}

const Signature& Kernel::signature() const {
  if (!state_) throw Error("null kernel");
  return state_->source.signature;
}

LaunchSummary Kernel::launch_args(const Domain& domain, const Arg* args, std::size_t count,
                                  const LaunchOptions& options) {
  if (!state_) throw Error("launch of a null kernel");
  detail::KernelState& kernel = *state_;
  detail::RuntimeState& runtime = *kernel.runtime;
  if (options.stream && !*options.stream) {
    throw Error(
        "the stream passed to launch is a null Stream (make one with Runtime::create_stream)");
  }
  if (options.stream && options.stream->owner() != &runtime) {
    throw Error("the stream passed to launch belongs to another runtime");
  }
  detail::StreamState* stream =
      options.stream ? options.stream->state() : runtime.default_stream.get();
  if (kernel.result && kernel.result->is_scan())
    return detail::launch_scan(kernel, domain, args, count, options, stream);
  if (kernel.result && kernel.result->is_sort())
    return detail::launch_sort(kernel, domain, args, count, options, stream);
  if (kernel.result) return detail::launch_reduce(kernel, domain, args, count, options, stream);
  if (detail::is_group_launch(kernel, options))
    return detail::launch_group(kernel, domain, args, count, options, stream);
  detail::BoundArgs bound;
  detail::bind(kernel, domain, args, count, bound);
  detail::RunDomains made;
  const Domain& run = detail::run_domain(kernel, domain, options.mode, bound, made);

  // A launch like one this thread made before: its plan and stub, without the planner.
  detail::LaunchMemo& memo = detail::launch_memo(kernel.id);
  if (memo.matches(kernel.id, run, options.mode, bound)) {
    const detail::MemoInUse in_use(memo);
    const Plan& plan = memo.plan;
    const detail::KernelStubs::Record& record = *memo.record;
    if (record.failure) std::rethrow_exception(record.failure);
    runtime.memory_hits.add();
    detail::issue_dispatches(runtime, *record.stub, run, plan, bound.packed, stream);
    runtime.launches.add();
    return LaunchSummary{plan.mode, plan.rank, plan.dispatches.size(), false};
  }

  const Plan plan = detail::plan_run(kernel, domain, run, made, options.mode);
  LaunchSummary summary{plan.mode, plan.rank, plan.dispatches.size(), false};
  if (plan.dispatches.empty()) return summary;
  const detail::StubIdentity identity = detail::StubIdentity::of(
      *kernel.identity, *runtime.toolchain_identity, detail::variant_of(kernel, run, plan, bound));
  std::shared_ptr<const detail::LoadedStub> hold;
  if (const std::optional<detail::StubIdentity> generic =
          detail::generic_stub_instead(kernel, identity)) {
    // Not remembered: a later launch with these values looks for its own stub again.
    summary.generic = true;
    const detail::LoadedStub& stub = detail::stub_for(kernel, *generic, summary.compiled, hold);
    detail::issue_dispatches(runtime, stub, run, plan, bound.packed, stream);
    runtime.launches.add();
    return summary;
  }
  const detail::LoadedStub& stub = detail::stub_for(kernel, identity, summary.compiled, hold);
  // Remembered only when the kernel's table holds the stub (the entry points there).
  if (const detail::KernelStubs::Record* record = kernel.stubs.find(identity))
    memo.remember(kernel.id, run, options.mode, bound, plan, record);
  detail::issue_dispatches(runtime, stub, run, plan, bound.packed, stream);
  runtime.launches.add();
  return summary;
}

LaunchSummary Kernel::reduce_args(const Domain& domain, const Arg* args, std::size_t count,
                                  const LaunchOptions& options, ElementType type, void* value) {
  if (!state_) throw Error("reduce of a null kernel");
  detail::KernelState& kernel = *state_;
  const Param* result = kernel.result;
  if (result && (result->is_scan() || result->is_sort())) {
    const std::string what = result->is_scan() ? "scan" : "sort";
    throw ArgumentError(result->name, "Kernel::reduce of kernel '" + kernel.source.name + "', a " +
                                          what + " kernel (its '" + result->name + "' is a " +
                                          what + "'s field): launch it with the " + what +
                                          "'s field");
  }
  if (!result || result->rank != 0) {
    throw ArgumentError(
        result ? result->name : "",
        "Kernel::reduce of kernel '" + kernel.source.name + "', which " +
            (result ? "reduces along a dimension (its result has rank " +
                          std::to_string(result->rank) + "): launch it with a result field"
                    : "has no result (result<T>)"));
  }
  if (type != result->type) {
    throw ArgumentError(result->name, "Kernel::reduce<" + std::string(name_of(type)) +
                                          "> of kernel '" + kernel.source.name +
                                          "', whose result '" + result->name + "' is " +
                                          name_of(result->type));
  }
  detail::check_arguments_but_result(kernel, count, "Kernel::reduce");
  detail::RuntimeState& runtime = *kernel.runtime;
  const Field field = detail::allocate_field(kernel.runtime, type, {}, Layout::row_major);
  const std::vector<Arg> all = detail::arguments_with_result(kernel, args, count, field);
  LaunchOptions assign = options;
  assign.reduce_update = ReduceUpdate::assign;
  const LaunchSummary summary = launch_args(domain, all.data(), all.size(), assign);
  if (summary.dispatches == 0) {
    throw Error("Kernel::reduce of kernel '" + kernel.source.name + "' ran no group");
  }
  detail::StreamState* stream =
      options.stream ? options.stream->state() : runtime.default_stream.get();
  stream->synchronize();
  field.copy_to_bytes(value, size_of(type));
  return summary;
}

void Kernel::finish_specializing() {
  if (!state_) throw Error("null kernel");
  state_->background.wait_idle();
}

Plan Kernel::plan(const Domain& domain, std::optional<Mode> forced) const {
  if (!state_) throw Error("null kernel");
  if (state_->group_kernel) return detail::group_kernel_plan(*state_, domain, forced);
  if (state_->result) return detail::reduce_kernel_plan(*state_, domain, forced);
  return detail::plan_for(*state_, domain, forced);  // what a launch would check, too
}

std::string Kernel::stub_source(const Domain& domain, const std::vector<Arg>& args,
                                std::optional<Mode> forced) const {
  if (!state_) throw Error("null kernel");
  return stub_source(domain, args, LaunchOptions{forced});
}

std::string Kernel::stub_source(const Domain& domain, const std::vector<Arg>& args,
                                const LaunchOptions& options) const {
  if (!state_) throw Error("null kernel");
  if (state_->result) {
    detail::ReduceLaunch planned;
    detail::plan_reduce_launch(*state_, domain, args.data(), args.size(), options, planned);
    return detail::generate_stub(
               detail::stub_request(*state_->runtime, state_->source, planned.variant))
        .source;
  }
  if (detail::is_group_launch(*state_, options)) {
    detail::GroupLaunch planned;
    detail::plan_group_launch(*state_, domain, args.data(), args.size(), options, planned);
    return detail::generate_stub(
               detail::stub_request(*state_->runtime, state_->source, planned.variant))
        .source;
  }
  const std::optional<Mode> forced = options.mode;
  detail::BoundArgs bound;
  detail::bind(*state_, domain, args.data(), args.size(), bound);
  detail::RunDomains made;
  const Domain& run = detail::run_domain(*state_, domain, forced, bound, made);
  const Plan plan = detail::plan_run(*state_, domain, run, made, forced);
  return detail::generate_stub(detail::stub_request(*state_->runtime, state_->source,
                                                    detail::variant_of(*state_, run, plan, bound)))
      .source;
}

void Stream::synchronize() const {
  if (!state_) throw Error("synchronize on a null stream");
  state_->synchronize();
}

}  // namespace stubjit
