// The entries under a cache root, and least-recently-used eviction.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace stubjit::detail {

inline constexpr const char* entry_suffix = ".bin";
inline constexpr const char* lock_suffix = ".lock";

struct StoredEntry {
  std::string path;       // root/<backend>/<target>/<mode>-r<rank>/<name>.bin
  std::string directory;  // <backend>/<target>/<mode>-r<rank>
  std::string name;       // file stem: the key's hash
  std::uint64_t bytes = 0;
  std::int64_t last_used_ns = 0;  // modification time
};

// Every entry file under `root`, found without following links.
std::vector<StoredEntry> scan_entries(const std::string& root);

struct EvictionResult {
  bool ran = false;  // false when another process was evicting
  std::size_t removed = 0;
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
};

// Removes temporary files a crashed writer left behind (publish_file's, older than an
// hour; a younger one may be another process writing right now).
void remove_stale_temporaries(const std::string& root);

// When the entries exceed `max_bytes`, removes the least recently used ones until
// they fit in 90% of it (so that not every store evicts), never `keep_path`. One
// process evicts at a time (an flock on <root>/.evict.lock, waited for up to
// `lock_wait`; ran is false if it was not had): each writer evicts after its own
// write, so once the last writer is done the entries fit the cap. A concurrent reader
// of a removed entry still holds its descriptor; a later one misses and compiles.
EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait);

}  // namespace stubjit::detail
