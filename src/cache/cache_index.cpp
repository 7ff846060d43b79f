#include "cache/cache_index.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "cache/cache_tag.hpp"
#include "cache/file_lock.hpp"

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
  for (LayoutFile& file : layout.files) {
    if (file.kind != LayoutFileKind::entry) continue;
    StoredEntry entry;
    entry.path = std::move(file.path);
    entry.directory = std::move(file.directory);
    entry.name = file.name.substr(0, file.name.size() - std::string(entry_suffix).size());
    entry.bytes = file.bytes;
    entry.last_used_ns = file.modified_ns;
    scan.entries.push_back(std::move(entry));
  }
  return scan;
}

std::uint64_t total_bytes(const std::vector<StoredEntry>& entries) {
  std::uint64_t total = 0;
  for (const StoredEntry& entry : entries) total += entry.bytes;
  return total;
}

}  // namespace

EntryScan scan_entries(const std::string& root) { return entries_of(scan_layout(root)); }

std::string lock_path_of(const std::string& entry_path) {
  const std::size_t suffix = std::string(entry_suffix).size();
  return entry_path.substr(0, entry_path.size() - suffix) + lock_suffix;
}

bool remove_entry(const std::string& entry_path) {
  if (::unlink(entry_path.c_str()) != 0) return false;
  ::unlink(lock_path_of(entry_path).c_str());  // may not exist
  return true;
}

void remove_stale_temporaries(const LayoutScan& scan) {
  constexpr std::int64_t an_hour_ns = std::int64_t(3600) * 1000000000;
  const std::int64_t now = now_ns();
  for (const LayoutFile& file : scan.files) {
    if (file.kind == LayoutFileKind::temporary && now - file.modified_ns > an_hour_ns) {
      ::unlink(file.path.c_str());
    }
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
  remove_stale_temporaries(layout);
  EntryScan scan = entries_of(std::move(layout));
  result.walked = true;
  result.skipped = std::move(scan.skipped);
  std::vector<StoredEntry>& entries = scan.entries;
  result.bytes_before = total_bytes(entries);
  result.bytes_after = result.bytes_before;
  if (result.bytes_before <= max_bytes) return;
  result.ran = true;
  std::sort(entries.begin(), entries.end(), [](const StoredEntry& a, const StoredEntry& b) {
    return a.last_used_ns < b.last_used_ns;
  });
  const std::uint64_t target = max_bytes / 10 * 9;
  for (const StoredEntry& entry : entries) {
    if (result.bytes_after <= target) break;
    if (entry.path == keep_path) continue;
    if (remove_entry(entry.path)) {
      result.bytes_after -= entry.bytes;
      ++result.removed;
    }
  }
}

std::string eviction_lock_path(const std::string& root) { return root + "/" + eviction_lock_name; }

}  // namespace

EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait) {
  EvictionResult result;
  if (inspect_cache_root(root).kind != RootKind::tagged) return result;
  const FileLock evicting(eviction_lock_path(root), lock_wait);
  if (!evicting.held()) return result;
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
  if (!evicting.held()) return result;
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
  [[maybe_unused]] const int ignored = ::truncate(eviction_lock_path(root).c_str(), 0);
}

}  // namespace stubjit::detail
