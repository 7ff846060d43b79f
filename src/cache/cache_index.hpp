// The entries under a cache root, and least-recently-used eviction. Only files of
// stubjit's layout (cache_layout.hpp) are ever counted or removed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_layout.hpp"

namespace stubjit::detail {

struct StoredEntry {
  std::string path;       // root/<backend>/<target>/<mode>-r<rank>/<name>.bin
  std::string directory;  // <backend>/<target>/<mode>-r<rank>
  std::string name;       // file stem: the key's hash
  std::uint64_t bytes = 0;
  std::int64_t last_used_ns = 0;  // modification time
};

struct EntryScan {
  std::vector<StoredEntry> entries;
  std::vector<SkippedDirectory> skipped;  // layout directories not read (and why)
};

// Every entry file under `root`, found without following links; directories that
// cannot be read are skipped and reported, the others still scanned.
EntryScan scan_entries(const std::string& root);

// Path of the compile lock that belongs to an entry file.
std::string lock_path_of(const std::string& entry_path);

// Removes an entry and its compile lock. The lock only spares duplicate compiles: a
// process that holds or waits on the removed lock file keeps its descriptor, and
// one that comes later creates a new lock file, so at worst the stub is compiled
// once more, and either compile publishes the same entry atomically.
bool remove_entry(const std::string& entry_path);

struct EvictionResult {
  bool ran = false;  // false when another process was evicting or the root is not tagged
  std::size_t removed = 0;
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
  std::vector<SkippedDirectory> skipped;  // not read, so neither counted nor evicted
};

// Removes the temporary files of stubjit's layout that a crashed writer left behind
// (older than an hour; a younger one may be another process writing right now).
void remove_stale_temporaries(const LayoutScan& scan);

// When the entries exceed `max_bytes`, removes the least recently used ones (with
// their locks) until they fit in 90% of it (so that not every store evicts), never
// `keep_path`. Nothing is removed from a root that does not hold stubjit's tag
// (cache_tag.hpp). One process evicts at a time (an flock on <root>/.evict.lock,
// waited for up to `lock_wait`; ran is false if it was not had): each writer evicts
// after its own write, so once the last writer is done the entries fit the cap. A
// concurrent reader of a removed entry still holds its descriptor; a later one
// misses and compiles.
EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait);

}  // namespace stubjit::detail
