// Cache bundles: a set of disk-cache entries carried as one verified file, so that a
// CI job can fill the caches of a cluster's nodes before its jobs run. The commands
// `stubjit cache export|import|bundle-info` are built on this API; docs/cluster.md
// ("Bundles") says how to use them, docs/cache.md ("Bundle format") what a bundle holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"
#include "stubjit/export.hpp"

namespace stubjit {

// A bundle that cannot be written, read or trusted: damaged, truncated, of another
// format version, holding an entry that fails its checks, or a destination that may
// not be written. The message names the bundle (or root) and what is wrong.
class STUBJIT_API CacheBundleError : public Error {
 public:
  using Error::Error;
};

// A toolchain whose stubs a bundle holds, as its entries' keys name it.
struct CacheBundleToolchain {
  std::string backend;    // "cpu", "cuda", "hip"
  std::string target;     // "sm_90", "gfx90a", the CPU's triple, model and features
  std::string compiler;   // the compiler id, e.g. "clang 14.0.6 (...)", "nvrtc 13.0"
  std::string generator;  // the stub generator's version and prelude hash
};

// One entry of a bundle: the file as the cache stores it, byte for byte.
struct CacheBundleEntry {
  std::string path;  // <backend>/<target>/<mode>-r<rank>/<32 hex digits>.bin, under a root
  std::string kernel;
  std::string backend;
  std::string target;
  std::string format;       // the binary's format: "elf-shared-object", "cubin", ...
  std::uint64_t bytes = 0;  // the entry file's size
  std::string checksum;     // XXH3-64 of the entry file, 16 lowercase hex digits
};

struct CacheBundleManifest {
  std::uint32_t bundle_version = 0;              // of the bundle format
  std::string stubjit_version;                   // of the stubjit that wrote it
  std::uint32_t format_version = 0;              // the entries' disk-cache format
  std::string created;                           // UTC, e.g. "2026-11-27T15:30:00Z"
  std::vector<CacheBundleToolchain> toolchains;  // each distinct one of the entries'
  std::vector<CacheBundleEntry> entries;
};

// Which entries to export. Empty lists take every entry.
struct CacheBundleFilter {
  std::vector<std::string> kernels;  // kernel names
  // Target ids as the entries' keys name them ("sm_90") or as their directories do;
  // "host" takes every entry of the CPU backend.
  std::vector<std::string> targets;
};

struct CacheBundleExport {
  std::string path;         // the bundle written
  std::uint64_t bytes = 0;  // its size
  CacheBundleManifest manifest;
  // Entries that passed the filter's target but did not verify (`problem` says why),
  // which are not in the bundle.
  std::vector<DiskCacheEntry> skipped;
  // Directories of the layout that could not be read, and files of another user's.
  std::vector<SkippedCacheDirectory> unread;
};

// Writes the verified entries of the cache under `root` that `filter` takes to the file
// `bundle`: to a temporary file beside it, renamed to `bundle` once complete and
// flushed, so `bundle` is never a partial file (an existing file there is replaced only
// then). Mode 0600: the entries' keys hold the kernels' sources. Throws
// CacheBundleError, leaving no file behind, when `root` holds no cache, when no valid
// entry matches, or when the bundle cannot be written.
STUBJIT_API CacheBundleExport export_cache_bundle(const std::string& root,
                                                  const std::string& bundle,
                                                  const CacheBundleFilter& filter = {});

// Reads and verifies the whole bundle (its checksum, and every entry as an import
// would) and returns its manifest; writes nothing. Throws CacheBundleError.
STUBJIT_API CacheBundleManifest read_cache_bundle_manifest(const std::string& bundle);

struct CacheBundleImportOptions {
  // Verify, and say what would happen to each entry, writing nothing.
  bool dry_run = false;
  // For a layer that other users read: entries written 0644, and the root, the
  // layout's directories it writes into and the tag made readable and searchable by
  // all (never writable). Otherwise entries are 0600 and new directories 0700.
  bool readable_by_all = false;
};

enum class BundleEntryOutcome : std::uint8_t {
  added,          // there was no entry of this key: written
  identical,      // the same bytes were there: left alone
  kept_existing,  // a valid entry of the same key with other bytes was there: kept
  replaced_bad,   // a damaged or unusable file was at the entry's name: replaced
};
STUBJIT_API const char* name_of(BundleEntryOutcome outcome) noexcept;

struct CacheBundleImportedEntry {
  CacheBundleEntry entry;
  BundleEntryOutcome outcome = BundleEntryOutcome::added;
  std::string note;  // kept_existing, replaced_bad: what was there
};

struct CacheBundleImport {
  std::string root;  // normalised
  CacheBundleManifest manifest;
  std::vector<CacheBundleImportedEntry> entries;  // in the manifest's order
  std::size_t added = 0, identical = 0, kept = 0, replaced = 0;
};

// Verifies the whole bundle and every entry (checksums, format version, that each
// key hashes to its file name and names its directory, that the manifest says what
// the entries hold) before anything is written; then publishes each entry atomically
// (a temporary file renamed into place) under `root`, creating and tagging the root
// if missing. The root must be usable as a cache: a directory of the current user's
// that nobody else can write, that holds stubjit's tag, nothing, or only stubjit's
// files; no link is followed below it. Throws CacheBundleError, with nothing written,
// if any check of the bundle fails. An import can still stop part way, with an error:
// if the bundle file is changed while it is being imported, or writing fails (a full
// disk, a quota, a read-only file system; missing directories may have been made by
// then); every entry written until then is whole and verified.
STUBJIT_API CacheBundleImport import_cache_bundle(const std::string& bundle,
                                                  const std::string& root,
                                                  const CacheBundleImportOptions& options = {});

}  // namespace stubjit
