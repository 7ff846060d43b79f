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

// The disk cache a Runtime created with `options` would use.
struct DiskCacheInfo {
  bool enabled = false;
  std::string root;
  std::string reason;  // why it is off, or why the root cannot be used
  std::uint64_t max_bytes = 0;
  std::uint32_t format_version = 0;
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
  std::string format;   // binary format, e.g. "elf-object", "cubin"
};

// The entries under `root`. With `verify`, each is read and checked: magic, format
// version, sizes, checksum, that its stored key hashes to its file name, and that it
// sits in the directory its key names.
STUBJIT_API std::vector<DiskCacheEntry> list_disk_cache(const std::string& root, bool verify);

// Removes the given entry files; returns how many were removed. Throws Error if
// `root` is not a private directory of the current user.
STUBJIT_API std::size_t remove_disk_cache_entries(const std::string& root,
                                                  const std::vector<DiskCacheEntry>& entries);

// Removes every entry not used for `older_than_seconds` (0: every entry), lock files
// as old, and temporary files a crashed writer left (older than an hour). Removing an entry never
// disturbs a process reading it (it holds its own descriptor); a later lookup misses and compiles.
// Throws Error if `root` is not a private directory of the current user.
STUBJIT_API std::size_t clear_disk_cache(const std::string& root,
                                         std::int64_t older_than_seconds = 0);

}  // namespace stubjit
