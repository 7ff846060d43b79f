// StubExchange: a runtime's missing stubs as orders, compiled anywhere the toolchain
// is the same, and installed where they were missing. The orders come from the same
// steps as Kernel::prepare (stub_builder.hpp's StubCollection stops a build before it
// compiles), so an installed stub is exactly the one the launch then looks for.
#include "stubjit/stub_exchange.hpp"

#include <memory>

#include "cache/disk_key.hpp"
#include "runtime/kernel_state.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/stub_builder.hpp"
#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit {
namespace {

// The cache key of an order this runtime may compile or keep: its name is the hash of
// its text, which names a layout directory, this runtime's toolchain (generator,
// backend, target, compiler, options: read from the key itself, not from the order's
// label) and the order's own source.
detail::DiskKey checked_key(const detail::RuntimeState& runtime, const StubOrder& order,
                            const char* action) {
  const auto refuse = [&](const std::string& why) {
    return Error(std::string("cannot ") + action + " the stub " + order.key + " of kernel '" +
                 order.kernel + "' here: " + why);
  };
  const std::optional<std::string> directory = detail::directory_of_key_text(order.key_text);
  if (detail::hash128_hex(order.key_text) != order.key || !directory)
    throw refuse("the order is damaged (its key is not the hash of a stubjit cache key)");
  const std::string mismatch =
      detail::key_text_mismatch(order.key_text, *runtime.toolchain_identity, order.source);
  if (!mismatch.empty()) {
    throw refuse(mismatch + " (this runtime: " + runtime.backend_name + ", " +
                 runtime.toolchain_identity->target + ", " + runtime.toolchain_identity->compiler +
                 ")");
  }
  return detail::DiskKey{order.key_text, order.key, *directory};
}

}  // namespace

std::string StubExchange::toolchain(const Runtime& runtime) {
  return detail::toolchain_text(*runtime.state_->toolchain_identity);
}

std::vector<StubOrder> StubExchange::missing(Runtime& runtime,
                                             const std::vector<PlannedLaunch>& launches) {
  detail::RuntimeState& state = *runtime.state_;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const Kernel& kernel = launches[i].kernel;
    if (!kernel.state_) throw Error("planned launch " + std::to_string(i) + " has a null kernel");
    if (kernel.state_->runtime.get() != &state) {
      throw Error("planned launch " + std::to_string(i) + " (kernel '" +
                  kernel.state_->source.name + "') is of a kernel of another runtime");
    }
  }
  std::vector<StubOrder> orders;
  const detail::StubCollection collection(state, orders);
  for (const PlannedLaunch& launch : launches) {
    Kernel kernel = launch.kernel;
    try {
      kernel.prepare_args(launch.domain, launch.args.data(), launch.args.size(), launch.options);
    } catch (const detail::StubDeferred&) {
      // Recorded in `orders`; this launch's later stages show once it is installed.
    }
  }
  return orders;
}

StubBinary StubExchange::compile(Runtime& runtime, const StubOrder& order) {
  detail::RuntimeState& state = *runtime.state_;
  checked_key(state, order, "compile");
  detail::GeneratedStub stub;
  stub.source = order.source;
  stub.entry = order.entry;
  stub.file_name = order.file_name;
  detail::Binary binary = detail::compile_stub(state, stub, order.kernel);
  StubBinary out;
  out.format = std::move(binary.format);
  out.bytes = std::move(binary.bytes);
  out.target = state.toolchain_identity->target;
  out.entry = order.entry;
  out.cache_name = order.key;
  return out;
}

bool StubExchange::install(Runtime& runtime, const StubOrder& order, const StubBinary& binary,
                           bool to_disk) {
  detail::RuntimeState& state = *runtime.state_;
  const detail::DiskKey key = checked_key(state, order, "install");
  const auto refuse = [&](const std::string& why) {
    return Error("the binary given for the stub " + order.key + " of kernel '" + order.kernel +
                 "' " + why);
  };
  if (binary.bytes.empty() || binary.format.empty()) throw refuse("is empty");
  if (!binary.cache_name.empty() && binary.cache_name != order.key)
    throw refuse("is that of another stub (" + binary.cache_name + ")");
  if (!binary.target.empty() && binary.target != state.toolchain_identity->target)
    throw refuse("is for target " + binary.target + ", not " + state.toolchain_identity->target);
  if (!binary.entry.empty() && binary.entry != order.entry)
    throw refuse("has the entry point '" + binary.entry + "', not '" + order.entry + "'");
  const auto stored =
      std::make_shared<const detail::Binary>(detail::Binary{binary.format, binary.bytes});
  // The chain's first store is the memory store (runtime_state.cpp).
  state.binaries.store(0).put(key, stored, nullptr);
  const bool queued = to_disk && state.disk && !state.disk->root().empty();
  if (queued) state.disk->put(key, stored, nullptr);
  detail::logger().debug("installed the stub {} of kernel '{}'{}", order.key, order.kernel,
                         queued ? " (and queued its disk entry)" : "");
  return queued;
}

}  // namespace stubjit
