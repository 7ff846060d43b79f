// The persistent disk cache of compiled stubs, for tools and administration: where
// it is, what it holds, verification and cleanup. Runtimes use it on their own; see
// docs/cache.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/export.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit {

// A read-only cache layer a Runtime would search after its root
// (RuntimeOptions::cache_layers, $STUBJIT_CACHE_LAYERS; docs/cluster.md).
struct CacheLayerInfo {
  std::string path;
  bool usable = false;
  std::string problem;  // why a runtime would skip it
};

// The disk cache a Runtime created with `options` would use.
struct DiskCacheInfo {
  bool enabled = false;
  std::string root;
  std::string reason;  // why it is off, or why the root cannot be used
  std::uint64_t max_bytes = 0;
  std::uint32_t format_version = 0;
  // In search order; empty when the disk cache is switched off.
  std::vector<CacheLayerInfo> layers;
};
// Reads the options and environment; creates nothing.
STUBJIT_API DiskCacheInfo disk_cache_info(const RuntimeOptions& options = {});

struct DiskCacheEntry {
  std::string path;            // the entry file
  std::string directory;       // <backend>/<target>/<mode>-r<rank>, relative to the root
  std::uint64_t bytes = 0;     // file size
  std::int64_t last_used = 0;  // seconds since the epoch (the file's modification time)
  // Filled when verified:
  bool verified = false;
  bool valid = false;
  std::string problem;  // why it is not valid
  std::string kernel;   // kernel name from the stored key
  std::string format;   // binary format, e.g. "elf-shared-object", "cubin"
};

// A directory of the cache's layout that a listing did not enter (its entries are
// missing from the listing), or a file of the layout that another user owns (never
// counted or removed).
struct SkippedCacheDirectory {
  std::string path;
  // "cannot be read: Permission denied", "is writable by group or others",
  // "is owned by user 65534, not by user 1000: neither counted nor removed"
  std::string problem;
};

// The entries under `root`: only files of stubjit's layout
// (<backend>/<target>/<mode>-r<rank>/<32 hex digits>.bin, see docs/cache.md). With
// `verify`, each is read and checked: magic, format version, sizes, checksum, that
// its stored key hashes to its file name, and that it sits in the directory its key
// names. Directories that cannot be read are skipped (the others are still listed)
// and, with `skipped`, reported there.
STUBJIT_API std::vector<DiskCacheEntry> list_disk_cache(
    const std::string& root, bool verify, std::vector<SkippedCacheDirectory>* skipped = nullptr);

// Removes the given entry files (and their lock files); returns how many were
// removed. Throws Error, before removing any, if one is not an entry file of the
// layout under `root`, or if `root` is not a private directory of the current user,
// not a stubjit cache, or one of the read-only layers of $STUBJIT_CACHE_LAYERS (see
// clear_disk_cache).
STUBJIT_API std::size_t remove_disk_cache_entries(const std::string& root,
                                                  const std::vector<DiskCacheEntry>& entries);

// Removes every entry not used for `older_than_seconds` (0: every entry) with its
// lock file, other lock files as old, and temporary files a crashed writer left
// (older than an hour); only files of stubjit's layout, nothing else. Removing an
// entry never disturbs a process reading it (it holds its own descriptor); a later
// lookup misses and compiles. Throws Error if `root` is not a private directory of
// the current user, holds other things and no CACHEDIR.TAG written by stubjit, or is
// one of the read-only layers of $STUBJIT_CACHE_LAYERS (a layer is changed only by
// its owner, by hand).
STUBJIT_API std::size_t clear_disk_cache(const std::string& root,
                                         std::int64_t older_than_seconds = 0);

}  // namespace stubjit
