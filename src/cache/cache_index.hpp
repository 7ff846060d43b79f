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
  std::string path;                   // root/<backend>/<target>/<mode>-r<rank>/<name>.bin
  std::string directory;              // <backend>/<target>/<mode>-r<rank>
  std::string name;                   // file stem: the key's hash
  std::uint64_t bytes = 0;            // the file's size
  std::uint64_t allocated_bytes = 0;  // the blocks it takes on disk
  std::int64_t last_used_ns = 0;      // modification time
};

struct EntryScan {
  std::vector<StoredEntry> entries;
  std::vector<SkippedDirectory> skipped;  // layout directories not read (and why)
  std::vector<SkippedDirectory> foreign;  // files of another user's: not in `entries`
};

// Every entry file under `root`, found without following links; directories that
// cannot be read are skipped and reported, the others still scanned.
EntryScan scan_entries(const std::string& root);

// Removes the entry <root>/<directory>/<stem>.bin, and the compile lock file
// <stem>.lock that stubjit kept beside each entry before <root>/.build.lock, through
// descriptors (layout_directory.hpp): never through a link, never another user's file.
// An older process that holds or waits on such a removed lock file keeps its
// descriptor, and one that comes later creates a new lock file, so at worst the stub is
// compiled once more, and either compile publishes the same entry atomically.
bool remove_entry(const std::string& root, const std::string& directory, const std::string& stem);

struct EvictionResult {
  bool walked = false;  // the layout was walked and the entries' sizes totalled
  bool ran = false;     // they exceeded the cap and eviction ran (under the lock)
  std::size_t removed = 0;
  std::uint64_t bytes_before = 0;  // walked: the total found; else the size record's
  std::uint64_t bytes_after = 0;
  std::vector<SkippedDirectory> skipped;  // not read, so neither counted nor evicted
  // Why the eviction lock could not be opened or locked at all (a link planted at
  // <root>/.evict.lock, say): eviction cannot run until it is fixed. "" when it was
  // had, or only taken by another evictor past the wait.
  std::string lock_problem;
  // The file system cannot lock (FileLock::unsupported): the record was read and
  // written, and the walk run, without the lock. Two writers may then each miss the
  // other's count (the record understates until the next walk), and two evictors may
  // remove a little more than needed; the entries themselves are never damaged.
  bool lock_free = false;
  std::string lock_free_reason;  // the lock's problem, when lock_free
};

// Removes the temporary files of stubjit's layout that a crashed writer left behind
// (older than an hour; a younger one may be another process writing right now).
void remove_stale_temporaries(const std::string& root, const LayoutScan& scan);

// Eviction runs under an OFD lock on the whole of <root>/.evict.lock (file_lock.hpp),
// one process at a time, waited for up to `lock_wait` (nothing happens if it is held
// by another past that; it runs lock-free where the file system cannot lock). Nothing
// is ever removed from a root that does not hold stubjit's tag (cache_tag.hpp).
inline constexpr const char* eviction_lock_name = ".evict.lock";

// Walks the layout and, when the entries exceed `max_bytes` (each counted at its size,
// or at the blocks it takes on disk when that is less: a sparse file counts what it
// takes, not what it claims), removes the least recently used ones
// (with their locks) until they fit in 90% of it (so that not every store evicts),
// never `keep_path`. Files that cannot be entries stubjit wrote go first, whatever
// their modification time says: larger than an entry may be, sparse, or dated in the
// future. A concurrent reader of a removed entry still holds its descriptor; a later
// one misses and compiles.
EvictionResult evict_least_recently_used(const std::string& root, std::uint64_t max_bytes,
                                         const std::string& keep_path,
                                         std::chrono::milliseconds lock_wait);

// How many stores may pass between two walks at most.
inline constexpr std::uint32_t stores_between_walks = 256;

// What a writer calls after storing an entry of `added_bytes`. The eviction lock file
// holds a record of the entries' total size, updated by every writer under the lock;
// the layout is walked (and evicted if needed) only when the record is missing or
// damaged, when it says the cap is exceeded, or once stores_between_walks stores have
// passed since the last walk. A walk costs about 2 us per entry
// (bench/results/cache.md); the record, one pread and one pwrite. While every writer
// gets the lock the record can only overstate the total (two writers may both count
// an entry a walk already saw), so the cap still holds once the last writer is done.
// What it can miss (a writer that timed out on the lock or crashed before counting,
// files another program put there) is corrected at the next walk.
EvictionResult evict_after_store(const std::string& root, std::uint64_t max_bytes,
                                 std::uint64_t added_bytes, const std::string& keep_path,
                                 std::chrono::milliseconds lock_wait);

// Forgets the size record (after entries were removed), so the next store walks. The
// record's file is emptied through a descriptor opened without following links.
void forget_size_record(const std::string& root);

}  // namespace stubjit::detail
