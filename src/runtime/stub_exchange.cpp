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
#include "support/hash.hpp"
#include "support/log.hpp"

namespace stubjit {
namespace {

void check_toolchain(const detail::RuntimeState& runtime, const StubOrder& order,
                     const char* action) {
  if (order.toolchain != detail::toolchain_text(*runtime.toolchain_identity)) {
    throw Error(std::string("cannot ") + action + " the stub of kernel '" + order.kernel + "' (" +
                order.key + ") here: it is for another toolchain than this runtime's (" +
                runtime.backend_name + ", " + runtime.toolchain_identity->target + ", " +
                runtime.toolchain_identity->compiler + ")");
  }
}

// The cache key of an order, checked: its name is the hash of its text, and the text
// names a layout directory.
detail::DiskKey key_of(const StubOrder& order) {
  detail::DiskKey key;
  key.text = order.key_text;
  key.name = order.key;
  const std::optional<std::string> directory = detail::directory_of_key_text(order.key_text);
  if (detail::hash128_hex(order.key_text) != order.key || !directory) {
    throw Error("the stub order '" + order.key + "' of kernel '" + order.kernel +
                "' is damaged: its key is not the hash of a stubjit cache key");
  }
  key.directory = *directory;
  return key;
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
  check_toolchain(state, order, "compile");
  key_of(order);
  // The key names the source it was made for (its "stub" line: hash and size), so a
  // binary compiled from another source can never be stored under it.
  const std::string stub_line = "\nstub " + detail::hex64(detail::hash64(order.source)) + " " +
                                std::to_string(order.source.size()) + "\n";
  if (order.key_text.find(stub_line) == std::string::npos) {
    throw Error("the stub order '" + order.key + "' of kernel '" + order.kernel +
                "' is damaged: its source is not the one its key names");
  }
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

void StubExchange::install(Runtime& runtime, const StubOrder& order, const StubBinary& binary,
                           bool to_disk) {
  detail::RuntimeState& state = *runtime.state_;
  check_toolchain(state, order, "install");
  const detail::DiskKey key = key_of(order);
  if (binary.bytes.empty() || binary.format.empty()) {
    throw Error("the binary given for the stub of kernel '" + order.kernel + "' (" + order.key +
                ") is empty");
  }
  const auto stored =
      std::make_shared<const detail::Binary>(detail::Binary{binary.format, binary.bytes});
  // The chain's first store is the memory store (runtime_state.cpp).
  state.binaries.store(0).put(key, stored, nullptr);
  if (to_disk && state.disk) state.disk->put(key, stored, nullptr);
  detail::logger().debug("installed the stub {} of kernel '{}'{}", order.key, order.kernel,
                         to_disk && state.disk ? " (and queued its disk entry)" : "");
}

}  // namespace stubjit
