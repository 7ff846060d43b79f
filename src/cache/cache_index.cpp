#include "cache/cache_index.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cache/file_lock.hpp"
#include "cache/private_files.hpp"

namespace stubjit::detail {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::int64_t modification_ns(const struct stat& info) {
  return std::int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<StoredEntry> scan_entries(const std::string& root) {
  std::vector<StoredEntry> entries;
  std::error_code error;
  // Links are not followed (the iterator's default), so nothing outside the root
  // is ever listed, let alone evicted.
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    const fs::path& path = it->path();
    const std::string file = path.filename().string();
    if (!ends_with(file, entry_suffix) || file.rfind(temporary_prefix, 0) == 0) continue;
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    StoredEntry entry;
    entry.path = path.string();
    entry.directory = path.parent_path().lexically_relative(root).string();
    entry.name = file.substr(0, file.size() - std::string(entry_suffix).size());
    entry.bytes = static_cast<std::uint64_t>(info.st_size);
    entry.last_used_ns = modification_ns(info);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void remove_stale_temporaries(const std::string& root) {
  constexpr std::int64_t an_hour_ns = std::int64_t(3600) * 1000000000;
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(temporary_prefix, 0) != 0) continue;
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        now_ns() - modification_ns(info) > an_hour_ns) {
      ::unlink(it->path().c_str());
    }
  }
}

EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait) {
  EvictionResult result;
  std::vector<StoredEntry> entries = scan_entries(root);
  for (const StoredEntry& entry : entries) result.bytes_before += entry.bytes;
  result.bytes_after = result.bytes_before;
  if (result.bytes_before <= max_bytes) return result;
  const FileLock evicting(root + "/.evict.lock", lock_wait);
  if (!evicting.held()) return result;
  result.ran = true;
  remove_stale_temporaries(root);
  // Scan again under the lock: another evictor may just have finished, another
  // writer may just have added an entry.
  entries = scan_entries(root);
  result.bytes_after = 0;
  for (const StoredEntry& entry : entries) result.bytes_after += entry.bytes;
  std::sort(entries.begin(), entries.end(), [](const StoredEntry& a, const StoredEntry& b) {
    return a.last_used_ns < b.last_used_ns;
  });
  const std::uint64_t target = max_bytes / 10 * 9;
  for (const StoredEntry& entry : entries) {
    if (result.bytes_after <= target) break;
    if (entry.path == keep_path) continue;
    if (::unlink(entry.path.c_str()) == 0) {
      result.bytes_after -= entry.bytes;
      ++result.removed;
    }
  }
  return result;
}

}  // namespace stubjit::detail
