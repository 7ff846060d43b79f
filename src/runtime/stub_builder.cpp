#include "runtime/stub_builder.hpp"

#include "cache/disk_key.hpp"
#include "runtime/log.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

Binary compile(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel) {
  logger().debug("compiling {} ({} bytes of source)", stub.entry, stub.source.size());
  const CompileJob job{stub.source, stub.file_name, stub.entry, kernel,
                       runtime.options.compiler_options};
  Binary binary = runtime.backend->compile(job);
  runtime.compiles.fetch_add(1, std::memory_order_relaxed);
  return binary;
}

enum class DiskOutcome { loaded, miss, rejected };

// A verified entry that the backend then refuses to load (a binary the key did not
// fully describe) counts as rejected like a corrupt one: compiled again, replaced.
DiskOutcome load_from_disk(RuntimeState& runtime, const DiskKey& key, const std::string& entry,
                           BuiltStub& built) {
  DiskCache::Lookup lookup = runtime.disk->load(key);
  if (lookup.found == DiskCache::Found::miss) return DiskOutcome::miss;
  if (lookup.found == DiskCache::Found::hit) {
    try {
      built.module = runtime.backend->load(lookup.binary, entry);
      runtime.disk_hits.fetch_add(1, std::memory_order_relaxed);
      logger().debug("loaded {} from the disk cache", entry);
      return DiskOutcome::loaded;
    } catch (const Error& error) {
      runtime.disk->reject(key, error.what());
    }
  }
  runtime.disk_rejected.fetch_add(1, std::memory_order_relaxed);
  return DiskOutcome::rejected;
}

}  // namespace

BuiltStub build_stub(RuntimeState& runtime, const GeneratedStub& stub, const std::string& kernel,
                     const StubVariant& variant, const CacheKey& key) {
  BuiltStub built;
  if (!runtime.disk) {
    built.module = runtime.backend->load(compile(runtime, stub, kernel), stub.entry);
    built.compiled = true;
    return built;
  }
  const DiskKey disk_key = make_disk_key(key, variant, runtime.toolchain, stub.source);
  DiskOutcome outcome = load_from_disk(runtime, disk_key, stub.entry, built);
  if (outcome == DiskOutcome::loaded) return built;
  // One compile per key across processes: whoever holds the key's lock compiles;
  // the others wait, then find the entry. After a rejected entry we compile without
  // looking again (the same bad bytes would be reported twice).
  const FileLock lock = runtime.disk->lock(disk_key);
  if (lock.held() && outcome == DiskOutcome::miss) {
    outcome = load_from_disk(runtime, disk_key, stub.entry, built);
    if (outcome == DiskOutcome::loaded) return built;
  }
  // Stored before it is loaded: waiters get it sooner, and a backend that can compile
  // but not load here (CUDA compile-only on a build machine) still fills the cache.
  const Binary binary = compile(runtime, stub, kernel);
  if (runtime.disk->store(disk_key, binary)) {
    runtime.disk_writes.fetch_add(1, std::memory_order_relaxed);
  }
  built.module = runtime.backend->load(binary, stub.entry);
  built.compiled = true;
  return built;
}

}  // namespace stubjit::detail
