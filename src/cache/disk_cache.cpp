#include "cache/disk_cache.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_tag.hpp"
#include "cache/private_files.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

namespace {

// Creates the root if it is missing and tags it as stubjit's; "" when it can be used.
// A directory stubjit did not create and that holds other things is never used: its
// eviction would otherwise run among someone else's files.
std::string claim_root(const std::string& root) {
  RootInspection inspection = inspect_cache_root(root);
  if (inspection.kind == RootKind::foreign) return root + " " + inspection.problem;
  if (std::string problem = make_private_directory(root, true); !problem.empty()) return problem;
  if (inspection.kind == RootKind::tagged) return {};
  if (std::string problem = write_cache_tag(root); !problem.empty()) {
    return "cannot tag " + root + " as stubjit's cache: " + problem;
  }
  // Another process may have put something in meanwhile: look again.
  inspection = inspect_cache_root(root);
  return inspection.kind == RootKind::tagged ? std::string() : root + " " + inspection.problem;
}

}  // namespace

std::unique_ptr<DiskCache> DiskCache::open(DiskCacheSettings settings) {
  if (!settings.enabled) {
    logger().debug("disk cache off ({})", settings.disabled_reason);
    return nullptr;
  }
  settings.root = normalize_root(settings.root);
  if (const std::string problem = claim_root(settings.root); !problem.empty()) {
    logger().warn("disk cache not used, stubs are cached in memory only: {}", problem);
    return nullptr;
  }
  logger().debug("disk cache at {} (cap {} bytes)", settings.root, settings.max_bytes);
  return std::unique_ptr<DiskCache>(new DiskCache(std::move(settings)));
}

DiskCache::DiskCache(DiskCacheSettings settings) : settings_(std::move(settings)) {}

std::string DiskCache::entry_path(const DiskKey& key) const {
  return settings_.root + "/" + key.directory + "/" + key.name + entry_suffix;
}

void DiskCache::warn_once(const std::string& subject, const std::string& message) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!reported_.insert(subject).second) return;
  }
  logger().warn("{}", message);
}

std::string DiskCache::prepare_directory(const DiskKey& key) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (ready_directories_.count(key.directory)) return {};
  }
  // Each level below the root is ours and private, and no link: a directory planted
  // by someone else is refused like an unsafe root.
  std::string path = settings_.root;
  std::size_t begin = 0;
  while (begin <= key.directory.size()) {
    std::size_t end = key.directory.find('/', begin);
    if (end == std::string::npos) end = key.directory.size();
    path += "/" + key.directory.substr(begin, end - begin);
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      return "cannot create " + path + ": " + std::strerror(errno);
    }
    if (std::string problem = check_private_directory(path, false); !problem.empty()) {
      return problem;
    }
    begin = end + 1;
  }
  std::lock_guard<std::mutex> guard(mutex_);
  ready_directories_.insert(key.directory);
  return {};
}

DiskCache::Lookup DiskCache::load(const DiskKey& key) {
  Lookup lookup;
  if (const std::string problem = prepare_directory(key); !problem.empty()) {
    warn_once("dir:" + key.directory,
              "disk cache directory refused, its stubs stay in memory only: " + problem);
    return lookup;
  }
  const std::string path = entry_path(key);
  ReadResult read = read_private_file(path, max_entry_bytes);
  if (read.status == ReadResult::Status::missing) return lookup;
  if (read.status == ReadResult::Status::failed) {
    warn_once(path, "disk cache entry " + path + " cannot be read (" + read.problem +
                        "); compiling instead");
    return lookup;
  }
  std::string problem = read.problem;
  if (read.status == ReadResult::Status::ok) {
    DecodedEntry entry = decode_entry(read.bytes, &key.text);
    if (entry.problem == EntryProblem::none) {
      mark_used(path, read.modified_seconds);
      lookup.found = Found::hit;
      lookup.binary = std::move(entry.binary);
      return lookup;
    }
    problem = describe(entry.problem);
  }
  lookup.found = Found::rejected;
  warn_once(path, "disk cache entry " + path + " rejected (" + problem +
                      "); compiling the stub again and replacing the entry");
  return lookup;
}

void DiskCache::reject(const DiskKey& key, const std::string& why) {
  const std::string path = entry_path(key);
  warn_once(path, "disk cache entry " + path + " could not be loaded (" + why +
                      "); compiling the stub again and replacing the entry");
}

void DiskCache::go_lock_free(const std::string& why) {
  if (lock_free_.exchange(true)) return;
  // Info, not a warning: results stay right (entries are renamed into place and
  // verified on load); at worst two processes compile the same stub.
  logger().info(
      "disk cache at {} goes on without file locks ({}): processes may compile a stub "
      "at the same time, and the size cap is kept approximately",
      settings_.root, why);
}

FileLock DiskCache::lock(const DiskKey& key) {
  if (lock_free_.load(std::memory_order_relaxed)) return FileLock();
  if (!prepare_directory(key).empty()) return FileLock();
  FileLock lock = FileLock::on_byte(settings_.root + "/" + build_lock_name,
                                    build_lock_byte(key.name), settings_.lock_timeout);
  if (lock.unsupported()) {
    go_lock_free(lock.problem());
    return FileLock();
  }
  if (!lock.held()) logger().info("compiling without the disk-cache lock: {}", lock.problem());
  return lock;
}

bool DiskCache::store(const DiskKey& key, const Binary& binary) {
  if (const std::string problem = prepare_directory(key); !problem.empty()) {
    warn_once("dir:" + key.directory,
              "disk cache directory refused, its stubs stay in memory only: " + problem);
    return false;
  }
  if (const std::string problem = entry_size_problem(key.text, binary); !problem.empty()) {
    warn_once("size:" + key.name, "stub " + key.name + " is not stored in the disk cache: " +
                                      problem + "; it stays in memory only");
    return false;
  }
  const std::string directory = settings_.root + "/" + key.directory;
  const std::vector<char> entry = encode_entry(key.text, binary);
  // Not synced: an entry a power loss damaged fails its checksum on load and is
  // compiled again (docs/cache.md, "Durability").
  const std::string error =
      publish_file(directory, key.name + entry_suffix, entry, Durability::unsynced);
  if (!error.empty()) {
    warn_once("write", "cannot write to the disk cache (" + error +
                           "); stubs that are not on disk yet stay in memory only");
    return false;
  }
  // Counted in the cache's size record; a walk and eviction only when it says so.
  // Waiting a little for another evictor is cheap, and keeps the cap exact once
  // writers are done.
  const EvictionResult evicted =
      evict_after_store(settings_.root, settings_.max_bytes, entry.size(), entry_path(key),
                        std::chrono::milliseconds(2000));
  if (evicted.lock_free) go_lock_free(evicted.lock_free_reason);
  if (!evicted.lock_problem.empty()) {
    warn_once("evict-lock", "disk cache size cap not enforced: " + evicted.lock_problem);
  }
  for (const SkippedDirectory& skipped : evicted.skipped) {
    warn_once("skipped:" + skipped.path, "disk cache directory " + skipped.path + " " +
                                             skipped.problem +
                                             ": its entries are neither counted nor evicted");
  }
  if (evicted.removed) {
    logger().debug("disk cache over its cap: evicted {} entries ({} -> {} bytes)", evicted.removed,
                   evicted.bytes_before, evicted.bytes_after);
  }
  return true;
}

}  // namespace stubjit::detail
