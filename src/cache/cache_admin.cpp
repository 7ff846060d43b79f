// The public administration API of the disk cache (stubjit/cache.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_layer.hpp"
#include "cache/cache_layout.hpp"
#include "cache/cache_settings.hpp"
#include "cache/cache_tag.hpp"
#include "cache/disk_key.hpp"
#include "cache/layout_directory.hpp"
#include "cache/private_files.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;

// Whether `root` is one of the layers of $STUBJIT_CACHE_LAYERS, by name or as the same
// directory under another name (a link, a bind mount).
bool is_named_layer(const std::string& root) {
  const std::vector<std::string> layers =
      detail::parse_cache_layers(detail::env_or("STUBJIT_CACHE_LAYERS", ""));
  if (std::find(layers.begin(), layers.end(), root) != layers.end()) return true;
  struct stat target {};
  if (::stat(root.c_str(), &target) != 0) return false;
  return std::any_of(layers.begin(), layers.end(), [&](const std::string& layer) {
    struct stat info {};
    return ::stat(layer.c_str(), &info) == 0 && info.st_dev == target.st_dev &&
           info.st_ino == target.st_ino;
  });
}

void require_removable_root(const std::string& root) {
  if (is_named_layer(root)) {
    throw Error("refusing to remove anything from " + root +
                ": it is a read-only cache layer ($STUBJIT_CACHE_LAYERS); only its owner "
                "changes it, by hand");
  }
  if (const std::string problem = detail::check_private_directory(root, true); !problem.empty()) {
    throw Error("refusing to remove anything from the disk cache: " + problem);
  }
  if (const std::string refusal = detail::cleanup_refusal(root); !refusal.empty()) {
    throw Error(refusal);
  }
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void verify(DiskCacheEntry& entry, const std::string& name) {
  entry.verified = true;
  const detail::ReadResult read = detail::read_private_file(entry.path, detail::max_entry_bytes);
  if (read.status != detail::ReadResult::Status::ok) {
    entry.problem = read.problem.empty() ? "cannot be read" : read.problem;
    return;
  }
  detail::DecodedEntry decoded = detail::decode_entry(read.bytes, nullptr);
  entry.kernel = detail::kernel_of_key_text(decoded.key);
  if (decoded.problem != detail::EntryProblem::none) {
    entry.problem = detail::describe(decoded.problem);
    return;
  }
  // The file name is the hash of the key and the directory is named in the key, so
  // an entry copied or renamed to another key's place is caught without the caller
  // knowing any key.
  if (detail::hash128_hex(decoded.key) != name) {
    entry.problem = "its key does not match its file name";
    return;
  }
  if (detail::directory_of_key_text(decoded.key) != entry.directory) {
    entry.problem = "it is not in the directory its key names";
    return;
  }
  entry.format = decoded.binary.format;
  entry.valid = true;
}

// Where an entry file of the layout under `root` is: its directory and stem.
struct EntryPlace {
  std::string directory;  // <backend>/<target>/<mode>-r<rank>
  std::string stem;       // <32 hex digits>
};

// The place of `path` if it is an entry file of the layout under `root`; throws
// otherwise ("/root/../victim/file" is not under "/root"). Lexical only: the removal
// itself goes through descriptors and never follows a link (layout_directory.hpp).
EntryPlace checked_entry_place(const std::string& root, const std::string& path) {
  const fs::path normal = fs::path(path).lexically_normal();
  const fs::path relative = normal.lexically_relative(root);
  bool climbs = relative.empty();
  for (const fs::path& part : relative) climbs = climbs || part == ".." || part == ".";
  if (climbs || !detail::is_entry_path(relative.string())) {
    throw Error("refusing to remove " + path + ": not an entry file of the cache root " + root +
                " (<backend>/<target>/<mode>-r<rank>/<32 hex digits>.bin)");
  }
  const std::string file = relative.filename().string();
  return {relative.parent_path().generic_string(),
          file.substr(0, file.size() - std::string(detail::entry_suffix).size())};
}

}  // namespace

DiskCacheInfo disk_cache_info(const RuntimeOptions& options) {
  const detail::DiskCacheSettings settings = detail::resolve_cache_settings(options);
  DiskCacheInfo info;
  info.enabled = settings.enabled;
  info.root = settings.root;
  info.reason = settings.disabled_reason;
  info.max_bytes = settings.max_bytes;
  info.format_version = detail::disk_format_version;
  if (info.enabled) {
    struct stat status {};
    if (::stat(info.root.c_str(), &status) == 0) {
      info.reason = detail::check_private_directory(info.root, true);
      if (info.reason.empty()) {
        const detail::RootInspection root = detail::inspect_cache_root(info.root);
        if (root.kind == detail::RootKind::foreign) info.reason = info.root + " " + root.problem;
      }
      info.enabled = info.reason.empty();
    }  // a missing root is created by the first runtime
  }
  for (const std::string& layer : settings.layers) {
    const detail::LayerInspection inspection = detail::inspect_cache_layer(layer);
    info.layers.push_back({layer, inspection.problem.empty(), inspection.problem});
  }
  return info;
}

std::vector<DiskCacheEntry> list_disk_cache(const std::string& root, bool verify_entries,
                                            std::vector<SkippedCacheDirectory>* skipped) {
  const detail::EntryScan scan = detail::scan_entries(detail::normalize_root(root));
  std::vector<DiskCacheEntry> entries;
  for (const detail::StoredEntry& stored : scan.entries) {
    DiskCacheEntry entry;
    entry.path = stored.path;
    entry.directory = stored.directory;
    entry.bytes = stored.bytes;
    entry.last_used = stored.last_used_ns / 1000000000;
    if (verify_entries) verify(entry, stored.name);
    entries.push_back(std::move(entry));
  }
  if (skipped) {
    for (const detail::SkippedDirectory& directory : scan.skipped)
      skipped->push_back({directory.path, directory.problem});
    for (const detail::SkippedDirectory& file : scan.foreign)
      skipped->push_back({file.path, file.problem});
  }
  return entries;
}

std::size_t remove_disk_cache_entries(const std::string& root,
                                      const std::vector<DiskCacheEntry>& entries) {
  const std::string normal_root = detail::normalize_root(root);
  require_removable_root(normal_root);
  std::vector<EntryPlace> places;  // all checked before any is removed
  for (const DiskCacheEntry& entry : entries)
    places.push_back(checked_entry_place(normal_root, entry.path));
  std::size_t removed = 0;
  for (const EntryPlace& place : places)
    if (detail::remove_entry(normal_root, place.directory, place.stem)) ++removed;
  if (removed) detail::forget_size_record(normal_root);
  return removed;
}

std::size_t clear_disk_cache(const std::string& root, std::int64_t older_than_seconds) {
  const std::string normal_root = detail::normalize_root(root);
  require_removable_root(normal_root);
  const std::int64_t now = now_seconds();
  const std::int64_t cutoff = older_than_seconds > 0 ? now - older_than_seconds : now + 1;
  const detail::LayoutScan scan = detail::scan_layout(normal_root);
  std::size_t removed = 0;
  // Lock files only avoid duplicate compiles; removing one while a process waits on
  // it can at worst cause one compile too many (cache_index.hpp, remove_entry).
  for (const detail::LayoutFile& file : scan.files) {
    if (file.modified_ns / 1000000000 >= cutoff) continue;
    if (file.kind == detail::LayoutFileKind::entry) {
      const std::string stem =
          file.name.substr(0, file.name.size() - std::string(detail::entry_suffix).size());
      if (detail::remove_entry(normal_root, file.directory, stem)) ++removed;
    } else if (file.kind == detail::LayoutFileKind::lock) {
      if (const auto folder = detail::LayoutDirectory::open(normal_root, file.directory))
        folder->remove_file(file.name);
    }
  }
  detail::remove_stale_temporaries(normal_root, scan);
  if (removed) detail::forget_size_record(normal_root);
  return removed;
}

}  // namespace stubjit
