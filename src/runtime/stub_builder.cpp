#include "runtime/stub_builder.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "cache/disk_key.hpp"
#include "stubjit/error.hpp"
#include "support/compile_slot.hpp"
#include "support/hash.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

void dump_stub(const RuntimeState& runtime, const GeneratedStub& stub, const DiskKey& key) {
  namespace fs = std::filesystem;
  static std::once_flag warned;
  std::error_code error;
  fs::create_directories(runtime.dump_dir, error);
  const fs::path path =
      fs::path(runtime.dump_dir) /
      (stub.entry + "-" + key.name.substr(0, 16) + fs::path(stub.file_name).extension().string());
  std::ofstream out(path, std::ios::binary);
  out << stub.source;
  if (!out) {
    std::call_once(warned,
                   [&] { logger().warn("cannot write generated stubs to {}", runtime.dump_dir); });
    return;
  }
  logger().debug("wrote {}", path.string());
}

Binary compile(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel) {
  logger().debug("compiling {} ({} bytes of source)", stub.entry, stub.source.size());
  const CompileJob job{stub.source, stub.file_name, stub.entry, kernel, runtime.compiler_options};
  try {
    // One of the node's compile slots, for the compile only (STUBJIT_MAX_PARALLEL_COMPILES).
    const CompileSlot slot(kernel);
    Binary binary = runtime.toolchain->compile(job);
    runtime.compiles.fetch_add(1, std::memory_order_relaxed);
    return binary;
  } catch (const CompileError& error) {
    runtime.compile_failures.fetch_add(1, std::memory_order_relaxed);
    logger().debug("compiling {} failed:\n{}", stub.entry, error.log());
    throw;
  }
}

// Loads `binary` on the device into `stub` (nothing to load on a compile-only
// runtime: a binary there is the whole result).
void load(RuntimeState& runtime, const Binary& binary, LoadedStub& stub) {
  if (runtime.device) stub.module = runtime.device->load(binary, stub.entry);
}

// The binary a store found, loaded. A verified entry that the device then refuses (a
// binary the key did not fully describe) counts as rejected like a corrupt one: it
// is reported, compiled again and replaced.
bool load_found(RuntimeState& runtime, const DiskKey& key, BinaryChain::Found& found,
                LoadedStub& stub) {
  BinaryStore& store = runtime.binaries.store(found.store);
  try {
    load(runtime, *found.binary, stub);
    store.counters().hits.fetch_add(1, std::memory_order_relaxed);
    logger().debug("loaded {} from a binary store", stub.entry);
    return true;
  } catch (const Error& error) {
    store.reject(key, error.what());
    store.counters().rejected.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
}

// The innermost collection alive on this thread (StubCollection).
thread_local StubCollection* active_collection = nullptr;

}  // namespace

void StubCollection::defer_unless_stored(RuntimeState& runtime, const KernelSource& source,
                                         const StubIdentity& identity) {
  StubCollection* collection = active_collection;
  if (!collection || collection->runtime_ != &runtime) return;
  const GeneratedStub stub = generate_stub(stub_request(runtime, source, identity.variant));
  const DiskKey key = make_disk_key(identity, stub.source);
  // A hit (copied into memory where it came from disk) is built from the stores as
  // usual; one the device then refuses is compiled here, as without a collection.
  const BinaryChain::Found found = runtime.binaries.find(key);
  if (found.binary) {
    // The build that follows finds it in memory, where the chain copied it: the store
    // it came from (the disk, a layer) counts the hit here.
    if (found.store != 0)
      runtime.binaries.store(found.store).counters().hits.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::vector<StubOrder>& orders = *collection->orders_;
  const bool known = std::any_of(orders.begin(), orders.end(),
                                 [&](const StubOrder& order) { return order.key == key.name; });
  if (!known) {
    orders.push_back(StubOrder{toolchain_text(*runtime.toolchain_identity), key.name, key.text,
                               source.name, stub.source, stub.file_name, stub.entry});
  }
  throw StubDeferred{};
}

StubCollection::StubCollection(const RuntimeState& runtime, std::vector<StubOrder>& orders)
    : runtime_(&runtime), orders_(&orders), previous_(active_collection) {
  active_collection = this;
}

StubCollection::~StubCollection() { active_collection = previous_; }

bool StubCollection::active_for(const RuntimeState& runtime) noexcept {
  return active_collection && active_collection->runtime_ == &runtime;
}

std::string toolchain_text(const ToolchainIdentity& identity) {
  // Length-prefixed, so that no choice of option text makes two toolchains equal.
  std::string text = "stubjit-toolchain\n";
  const auto add = [&](const std::string& part) {
    text += std::to_string(part.size()) + ":" + part + "\n";
  };
  add(identity.backend);
  add(identity.target);
  add(identity.compiler);
  add(identity.generator);
  text += std::to_string(identity.options.size()) + " options\n";
  for (const std::string& option : identity.options) add(option);
  return text;
}

Binary compile_stub(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel) {
  return compile(runtime, stub, kernel);
}

StubRequest stub_request(const RuntimeState& runtime, const KernelSource& source,
                         const StubVariant& variant) {
  StubRequest request;
  request.emitter = runtime.toolchain->traits().emitter;
  request.pattern = variant.pattern;
  request.tile_rank = variant.tile_rank;
  request.tile = variant.tile;
  request.reduce_dimension = variant.reduce_dimension;
  request.mode = variant.mode;
  request.rank = variant.rank;
  request.index_bits = variant.index_bits;
  request.kernel = &source;
  request.bindings.reserve(variant.bindings.size());
  for (std::size_t i = 0; i < variant.bindings.size(); ++i)
    request.bindings.push_back(variant.bindings[i]);
  request.max_threads_per_group = variant.launch_bounds;
  request.warp_size = variant.warp_size;
  request.dense = variant.dense;
  if (variant.specialized.count > 0)
    request.inner_count = static_cast<std::int64_t>(variant.specialized.bits[0]);
  if (variant.specialized.count > 1)
    request.view_stride = static_cast<std::int64_t>(variant.specialized.bits[1]);
  request.specialized_values.assign(
      variant.specialized.scalars.begin(),
      variant.specialized.scalars.begin() + variant.specialized.scalar_count);
  request.index_order = variant.index_order;
  request.quoted_includes = !runtime.options.include_directories.empty();
  request.compiler_options = runtime.compiler_options;
  return request;
}

std::shared_ptr<const LoadedStub> build_stub(RuntimeState& runtime, const KernelSource& source,
                                             const StubIdentity& identity, bool& ran_compiler) {
  ran_compiler = false;
  const GeneratedStub stub = generate_stub(stub_request(runtime, source, identity.variant));
  const DiskKey key = make_disk_key(identity, stub.source);
  if (!runtime.dump_dir.empty()) dump_stub(runtime, stub, key);
  auto loaded = std::make_shared<LoadedStub>();
  loaded->entry = stub.entry;
  loaded->parameters = stub.parameters;

  BinaryChain::Found found = runtime.binaries.find(key);
  bool rejected = found.rejected;
  if (found.binary) {
    if (load_found(runtime, key, found, *loaded)) return loaded;
    rejected = true;
  }
  // One compile per key across processes: whoever holds the key's lock compiles;
  // the others wait, then find the entry. After a rejected entry we compile without
  // looking again (the same bad bytes would be reported twice).
  std::vector<std::unique_ptr<BuildLock>> locks = runtime.binaries.lock_for_build(key);
  bool waited = false;
  for (const auto& lock : locks) waited = waited || lock->held();
  if (waited && !rejected) {
    found = runtime.binaries.find(key);
    if (found.binary && load_found(runtime, key, found, *loaded)) return loaded;
  }
  // Stored before it is loaded: waiters get it sooner, and a runtime that can compile
  // but not load (compile-only on a build machine) still fills the cache. The disk
  // write happens in the background; the locks go with it and are released once the
  // entry is on disk, so a process waiting on them finds it there.
  const auto binary = std::make_shared<const Binary>(compile(runtime, stub, source.name));
  ran_compiler = true;
  runtime.binaries.put(key, binary, std::move(locks));
  load(runtime, *binary, *loaded);
  return loaded;
}

}  // namespace stubjit::detail
