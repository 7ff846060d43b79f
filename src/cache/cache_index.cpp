#include "cache/cache_index.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "cache/cache_entry.hpp"
#include "cache/cache_tag.hpp"
#include "cache/file_lock.hpp"
#include "cache/layout_directory.hpp"

namespace stubjit::detail {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

EntryScan entries_of(LayoutScan layout) {
  EntryScan scan;
  scan.skipped = std::move(layout.skipped);
  scan.foreign = std::move(layout.foreign);
  for (LayoutFile& file : layout.files) {
    if (file.kind != LayoutFileKind::entry) continue;
    StoredEntry entry;
    entry.path = std::move(file.path);
    entry.directory = std::move(file.directory);
    entry.name = file.name.substr(0, file.name.size() - std::string(entry_suffix).size());
    entry.bytes = file.bytes;
    entry.allocated_bytes = file.allocated_bytes;
    entry.last_used_ns = file.modified_ns;
    scan.entries.push_back(std::move(entry));
  }
  return scan;
}

// What an entry counts against the cap: its size, or the blocks it takes when that is
// less (a sparse file claims a size it does not take).
std::uint64_t charged_bytes(const StoredEntry& entry) {
  return std::min(entry.bytes, entry.allocated_bytes);
}

std::uint64_t total_bytes(const std::vector<StoredEntry>& entries) {
  std::uint64_t total = 0;
  for (const StoredEntry& entry : entries) total += charged_bytes(entry);
  return total;
}

// Whether a file of the layout cannot be an entry stubjit wrote: larger than an entry
// may be, sparse (entries are written whole), or last used in the future (beyond a
// minute of clock skew). Such files must not keep their place by the age they claim.
bool implausible(const StoredEntry& entry, std::int64_t now) {
  constexpr std::int64_t skew_ns = std::int64_t(60) * 1000000000;
  return entry.bytes > max_entry_bytes || entry.allocated_bytes + 4096 < entry.bytes / 2 ||
         entry.last_used_ns > now + skew_ns;
}

}  // namespace

EntryScan scan_entries(const std::string& root) { return entries_of(scan_layout(root)); }

bool remove_entry(const std::string& root, const std::string& directory, const std::string& stem) {
  const std::optional<LayoutDirectory> folder = LayoutDirectory::open(root, directory);
  if (!folder || !folder->remove_file(stem + entry_suffix)) return false;
  folder->remove_file(stem + lock_suffix);  // an older stubjit's lock file, if any
  return true;
}

void remove_stale_temporaries(const std::string& root, const LayoutScan& scan) {
  constexpr std::int64_t an_hour_ns = std::int64_t(3600) * 1000000000;
  const std::int64_t now = now_ns();
  for (const LayoutFile& file : scan.files) {
    if (file.kind != LayoutFileKind::temporary || now - file.modified_ns <= an_hour_ns) continue;
    if (const std::optional<LayoutDirectory> folder = LayoutDirectory::open(root, file.directory))
      folder->remove_file(file.name);
  }
}

namespace {

// The size record in the eviction lock file: magic, total bytes, stores since the
// last walk; 24 bytes, little-endian.
constexpr char record_magic[8] = {'S', 'T', 'U', 'B', 'J', 'I', 'T', 'U'};
constexpr std::size_t record_size = 24;

struct SizeRecord {
  std::uint64_t bytes = 0;
  std::uint64_t stores_since_walk = 0;
};

std::optional<SizeRecord> read_record(int fd) {
  unsigned char bytes[record_size];
  if (::pread(fd, bytes, record_size, 0) != static_cast<ssize_t>(record_size)) return std::nullopt;
  if (std::memcmp(bytes, record_magic, sizeof record_magic) != 0) return std::nullopt;
  auto number = [&](std::size_t offset) {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= std::uint64_t(bytes[offset + i]) << (8 * i);
    return value;
  };
  return SizeRecord{number(8), number(16)};
}

void write_record(int fd, const SizeRecord& record) {
  unsigned char bytes[record_size];
  std::memcpy(bytes, record_magic, sizeof record_magic);
  for (int i = 0; i < 8; ++i) {
    bytes[8 + i] = static_cast<unsigned char>(record.bytes >> (8 * i));
    bytes[16 + i] = static_cast<unsigned char>(record.stores_since_walk >> (8 * i));
  }
  // Best effort: a short or failed write leaves a record that reads as damaged, and
  // the next store walks.
  if (::pwrite(fd, bytes, record_size, 0) != static_cast<ssize_t>(record_size)) {
    [[maybe_unused]] const int ignored = ::ftruncate(fd, 0);
  }
}

// Walks and evicts; the caller holds the eviction lock.
void walk_and_evict(const std::string& root, std::uint64_t max_bytes, const std::string& keep_path,
                    EvictionResult& result) {
  LayoutScan layout = scan_layout(root);
  remove_stale_temporaries(root, layout);
  EntryScan scan = entries_of(std::move(layout));
  result.walked = true;
  result.skipped = std::move(scan.skipped);
  std::vector<StoredEntry>& entries = scan.entries;
  result.bytes_before = total_bytes(entries);
  result.bytes_after = result.bytes_before;
  if (result.bytes_before <= max_bytes) return;
  result.ran = true;
  // Implausible files first, then the least recently used.
  const std::int64_t now = now_ns();
  std::sort(entries.begin(), entries.end(), [now](const StoredEntry& a, const StoredEntry& b) {
    const bool a_first = implausible(a, now);
    const bool b_first = implausible(b, now);
    if (a_first != b_first) return a_first;
    return a.last_used_ns < b.last_used_ns;
  });
  const std::uint64_t target = max_bytes / 10 * 9;
  for (const StoredEntry& entry : entries) {
    if (result.bytes_after <= target) break;
    if (entry.path == keep_path) continue;
    if (remove_entry(root, entry.directory, entry.name)) {
      result.bytes_after -= charged_bytes(entry);
      ++result.removed;
    }
  }
}

std::string eviction_lock_path(const std::string& root) { return root + "/" + eviction_lock_name; }

// Whether eviction may go on with `evicting`: held, or open on a file system that
// cannot lock (then lock-free, as `result` says); otherwise why not, in `result`.
bool may_evict(const FileLock& evicting, EvictionResult& result) {
  if (evicting.unsupported()) {
    result.lock_free = true;
    result.lock_free_reason = evicting.problem();
    return true;
  }
  if (evicting.held()) return true;
  if (!evicting.timed_out()) result.lock_problem = evicting.problem();
  return false;
}

}  // namespace

EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait) {
  EvictionResult result;
  if (inspect_cache_root(root).kind != RootKind::tagged) return result;
  const FileLock evicting(eviction_lock_path(root), lock_wait);
  if (!may_evict(evicting, result)) return result;
  walk_and_evict(root, max_bytes, keep_path, result);
  write_record(evicting.descriptor(), {result.bytes_after, 0});
  return result;
}

EvictionResult evict_after_store(const std::string& root, std::uint64_t max_bytes,
                                 std::uint64_t added_bytes, const std::string& keep_path,
                                 std::chrono::milliseconds lock_wait) {
  EvictionResult result;
  if (inspect_cache_root(root).kind != RootKind::tagged) return result;
  const FileLock evicting(eviction_lock_path(root), lock_wait);
  if (!may_evict(evicting, result)) return result;
  const std::optional<SizeRecord> record = read_record(evicting.descriptor());
  if (record && record->stores_since_walk < stores_between_walks && added_bytes <= max_bytes &&
      record->bytes <= max_bytes - added_bytes) {
    result.bytes_before = record->bytes + added_bytes;
    result.bytes_after = result.bytes_before;
    write_record(evicting.descriptor(), {result.bytes_after, record->stores_since_walk + 1});
    return result;
  }
  walk_and_evict(root, max_bytes, keep_path, result);
  write_record(evicting.descriptor(), {result.bytes_after, 0});
  return result;
}

void forget_size_record(const std::string& root) {
  // Without the lock: a writer that wrote its record meanwhile can only overstate.
  if (const std::optional<LayoutDirectory> top = LayoutDirectory::open(root, ""))
    top->truncate_file(eviction_lock_name);
}

}  // namespace stubjit::detail
