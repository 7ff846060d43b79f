// Kernel::launch: bind -> plan -> key -> cache (codegen + compile once) -> launch.
#include <filesystem>
#include <fstream>
#include <mutex>

#include "bind/bind.hpp"
#include "cache/hash.hpp"
#include "codegen/stub_request.hpp"
#include "runtime/log.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/stub_builder.hpp"
#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit {
namespace detail {
namespace {

StubRequest stub_request(const KernelState& kernel, const StubVariant& variant) {
  StubRequest request;
  request.dialect = kernel.runtime->backend->dialect();
  request.mode = variant.mode;
  request.rank = variant.rank;
  request.index_bits = variant.index_bits;
  request.kernel = &kernel.source;
  request.bindings = variant.bindings;
  request.max_threads_per_group = variant.max_threads_per_group;
  request.warp_size = variant.warp_size;
  return request;
}

void dump_stub(const RuntimeState& runtime, const GeneratedStub& stub, const CacheKey& key) {
  namespace fs = std::filesystem;
  static std::once_flag warned;
  std::error_code error;
  fs::create_directories(runtime.dump_dir, error);
  const fs::path path =
      fs::path(runtime.dump_dir) /
      (stub.entry + "-" + hex64(key.hash) + fs::path(stub.file_name).extension().string());
  std::ofstream out(path, std::ios::binary);
  out << stub.source;
  if (!out) {
    std::call_once(warned,
                   [&] { logger().warn("cannot write generated stubs to {}", runtime.dump_dir); });
    return;
  }
  logger().debug("wrote {}", path.string());
}

// Codegen, then the disk cache or the compiler (stub_builder.cpp). `ran_compiler` is
// false when the stub came from disk.
std::shared_ptr<const CompiledStub> compile_stub(KernelState& kernel, const StubVariant& variant,
                                                 const CacheKey& key, bool& ran_compiler) {
  RuntimeState& runtime = *kernel.runtime;
  const GeneratedStub stub = generate_stub(stub_request(kernel, variant));
  if (!runtime.dump_dir.empty()) dump_stub(runtime, stub, key);
  BuiltStub built = build_stub(runtime, stub, kernel.source.name, variant, key);
  ran_compiler = built.compiled;
  auto compiled = std::make_shared<CompiledStub>();
  compiled->module = std::move(built.module);
  compiled->entry = stub.entry;
  compiled->variant = variant;
  return compiled;
}

const CompiledStub& find_or_compile(KernelState& kernel, const StubVariant& variant,
                                    bool& compiled) {
  RuntimeState& runtime = *kernel.runtime;
  auto& recent =
      kernel.recent[KernelState::slot_of(variant.mode, variant.rank, variant.index_bits)];
  if (const CompiledStub* stub = recent.load(std::memory_order_acquire);
      stub && stub->variant.bindings == variant.bindings) {
    runtime.memory_hits.fetch_add(1, std::memory_order_relaxed);
    return *stub;
  }
  const CacheKey key = make_cache_key(kernel.identity, variant, runtime.toolchain);
  bool created = false;
  bool ran_compiler = false;
  auto stub = runtime.stubs.get_or_create(
      key, [&] { return compile_stub(kernel, variant, key, ran_compiler); }, created);
  if (!created) runtime.memory_hits.fetch_add(1, std::memory_order_relaxed);
  compiled = created && ran_compiler;
  // The cache keeps the stub alive as long as the runtime, so a raw pointer is safe.
  recent.store(stub.get(), std::memory_order_release);
  return *stub;
}

void fill_domain(LaunchParams& lp, const Domain& domain) {
  for (int d = 0; d < domain.rank(); ++d) {
    lp.first[d] = domain[d].first;
    lp.count[d] = domain[d].count;
    lp.step[d] = domain[d].step;
  }
}

void fill_dispatch(LaunchParams& lp, const Plan& plan, const Dispatch& dispatch) {
  for (int p = 0; p < 3; ++p) {
    lp.origin[p] = dispatch.origin[p];
    lp.grid[p] = dispatch.grid[p];
    lp.block[p] = plan.block[p];
  }
  lp.linear_begin = dispatch.linear_begin;
  lp.linear_end = dispatch.linear_end;
}

// Bind + plan + variant: everything a launch decides before it needs a stub.
struct Prepared {
  Plan plan;
  StubVariant variant;
};

Prepared prepare(const KernelState& kernel, const Domain& domain, const Arg* args,
                 std::size_t count, std::optional<Mode> mode, BoundArgs& bound) {
  const RuntimeState& runtime = *kernel.runtime;
  bind_arguments(kernel.source.signature, domain, args, count, &runtime, bound);
  Prepared prepared;
  prepared.plan =
      make_plan(domain, runtime.limits, kernel.source.block, runtime.options.policy, mode);
  // Overridden limits may exceed the device's: refuse here, before any dispatch runs.
  if (runtime.options.limits) check_plan_within(prepared.plan, runtime.device_limits);
  prepared.variant.mode = prepared.plan.mode;
  prepared.variant.rank = domain.rank();
  prepared.variant.index_bits = runtime.backend->prefers_index32() && bound.fits_int32 ? 32 : 64;
  prepared.variant.bindings = bound.bindings;
  if (runtime.backend->dialect() != Dialect::cpp) {
    prepared.variant.max_threads_per_group =
        max_group_threads(runtime.limits, kernel.source.block, prepared.plan.mode, domain.rank());
    prepared.variant.warp_size = runtime.limits.warp_size;
  }
  return prepared;
}

}  // namespace
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
  if (options.stream && options.stream->owner() != &runtime) {
    throw Error("the stream passed to launch belongs to another runtime");
  }
  thread_local detail::BoundArgs bound;
  const detail::Prepared prepared =
      detail::prepare(kernel, domain, args, count, options.mode, bound);
  const Plan& plan = prepared.plan;
  LaunchSummary summary{plan.mode, plan.rank, plan.dispatches.size(), false};
  if (plan.dispatches.empty()) return summary;

  const detail::CompiledStub& stub =
      detail::find_or_compile(kernel, prepared.variant, summary.compiled);
  detail::StreamState* stream =
      options.stream ? options.stream->state() : runtime.default_stream.get();
  LaunchParams lp{};
  detail::fill_domain(lp, domain);
  for (const Dispatch& dispatch : plan.dispatches) {
    detail::fill_dispatch(lp, plan, dispatch);
    runtime.backend->launch(*stub.module, lp, bound.packed.data(), bound.packed.size(), stream);
  }
  runtime.launches.fetch_add(1, std::memory_order_relaxed);
  return summary;
}

Plan Kernel::plan(const Domain& domain, std::optional<Mode> forced) const {
  if (!state_) throw Error("null kernel");
  const detail::RuntimeState& runtime = *state_->runtime;
  return make_plan(domain, runtime.limits, state_->source.block, runtime.options.policy, forced);
}

std::string Kernel::stub_source(const Domain& domain, const std::vector<Arg>& args,
                                std::optional<Mode> forced) const {
  if (!state_) throw Error("null kernel");
  detail::BoundArgs bound;
  const detail::Prepared prepared =
      detail::prepare(*state_, domain, args.data(), args.size(), forced, bound);
  return detail::generate_stub(detail::stub_request(*state_, prepared.variant)).source;
}

void Stream::synchronize() const {
  if (!state_) throw Error("synchronize on a null stream");
  state_->synchronize();
}

}  // namespace stubjit
