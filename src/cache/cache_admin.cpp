// The public administration API of the disk cache (stubjit/cache.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_key.hpp"
#include "cache/private_files.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;

void require_private_root(const std::string& root) {
  if (const std::string problem = detail::check_private_directory(root, true); !problem.empty()) {
    throw Error("refusing to remove anything from the disk cache: " + problem);
  }
}

void verify(DiskCacheEntry& entry, const std::string& name) {
  entry.verified = true;
  const detail::ReadResult read = detail::read_private_file(entry.path);
  if (read.status != detail::ReadResult::Status::ok) {
    entry.problem = read.problem.empty() ? "cannot be read" : read.problem;
    return;
  }
  detail::DecodedEntry decoded = detail::decode_entry(read.bytes, nullptr);
  entry.kernel = detail::kernel_of_key_text(decoded.key);
  if (decoded.problem != detail::EntryProblem::none) {
    entry.problem = detail::describe(decoded.problem);
    return;
  }
  // The file name is the hash of the key and the directory is named in the key, so
  // an entry copied or renamed to another key's place is caught without the caller
  // knowing any key.
  if (detail::hash128_hex(decoded.key) != name) {
    entry.problem = "its key does not match its file name";
    return;
  }
  if (detail::directory_of_key_text(decoded.key) != entry.directory) {
    entry.problem = "it is not in the directory its key names";
    return;
  }
  entry.format = decoded.binary.format;
  entry.valid = true;
}

}  // namespace

DiskCacheInfo disk_cache_info(const RuntimeOptions& options) {
  const detail::DiskCacheSettings settings = detail::resolve_cache_settings(options);
  DiskCacheInfo info;
  info.enabled = settings.enabled;
  info.root = settings.root;
  info.reason = settings.disabled_reason;
  info.max_bytes = settings.max_bytes;
  info.format_version = detail::disk_format_version;
  if (info.enabled) {
    struct stat status {};
    if (::stat(info.root.c_str(), &status) == 0) {
      info.reason = detail::check_private_directory(info.root, true);
      info.enabled = info.reason.empty();
    }  // a missing root is created by the first runtime
  }
  return info;
}

std::vector<DiskCacheEntry> list_disk_cache(const std::string& root, bool verify_entries) {
  std::vector<DiskCacheEntry> entries;
  for (const detail::StoredEntry& stored : detail::scan_entries(root)) {
    DiskCacheEntry entry;
    entry.path = stored.path;
    entry.directory = stored.directory;
    entry.bytes = stored.bytes;
    entry.last_used = stored.last_used_ns / 1000000000;
    if (verify_entries) verify(entry, stored.name);
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::size_t remove_disk_cache_entries(const std::string& root,
                                      const std::vector<DiskCacheEntry>& entries) {
  require_private_root(root);
  std::size_t removed = 0;
  const std::string inside = root + "/";
  for (const DiskCacheEntry& entry : entries) {
    if (entry.path.rfind(inside, 0) != 0) {
      throw Error("refusing to remove " + entry.path + ": not inside the cache root " + root);
    }
    if (::unlink(entry.path.c_str()) == 0) ++removed;
  }
  return removed;
}

std::size_t clear_disk_cache(const std::string& root, std::int64_t older_than_seconds) {
  require_private_root(root);
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::int64_t cutoff = older_than_seconds > 0 ? now - older_than_seconds : now + 1;
  std::size_t removed = 0;
  for (const detail::StoredEntry& stored : detail::scan_entries(root)) {
    if (stored.last_used_ns / 1000000000 < cutoff && ::unlink(stored.path.c_str()) == 0) {
      ++removed;
    }
  }
  detail::remove_stale_temporaries(root);
  // Lock files only avoid duplicate compiles; removing one while a process waits on
  // it can at worst cause one compile too many.
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    const bool lock = name.size() > 5 && name.compare(name.size() - 5, 5, detail::lock_suffix) == 0;
    struct stat info {};
    if (lock && ::lstat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        info.st_mtim.tv_sec < cutoff) {
      ::unlink(it->path().c_str());
    }
  }
  return removed;
}

}  // namespace stubjit
