#include "cache/cache_index.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

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

EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait) {
  EvictionResult result;
  EntryScan scan = scan_entries(root);
  result.bytes_before = total_bytes(scan.entries);
  result.bytes_after = result.bytes_before;
  result.skipped = std::move(scan.skipped);
  if (result.bytes_before <= max_bytes) return result;
  if (inspect_cache_root(root).kind != RootKind::tagged) return result;
  const FileLock evicting(root + "/.evict.lock", lock_wait);
  if (!evicting.held()) return result;
  result.ran = true;
  // Scan again under the lock: another evictor may just have finished, another
  // writer may just have added an entry.
  LayoutScan layout = scan_layout(root);
  remove_stale_temporaries(layout);
  scan = entries_of(std::move(layout));
  result.skipped = std::move(scan.skipped);
  std::vector<StoredEntry>& entries = scan.entries;
  result.bytes_after = total_bytes(entries);
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
  return result;
}

}  // namespace stubjit::detail
