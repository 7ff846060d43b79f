// stubjit cache export|import|bundle-info: a set of disk-cache entries carried as one
// verified file (docs/cluster.md, "Bundles"). Public API only (stubjit/cache_bundle.hpp).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/cache_bundle.hpp"
#include "stubjit/error.hpp"

namespace stubjit::tool {
namespace {

using json = nlohmann::ordered_json;

void print(const json& value) { std::printf("%s\n", value.dump(2).c_str()); }

// The root the other cache commands would use: --cache-dir, else a runtime's.
std::string cache_root(const std::string& cache_dir) {
  return cache_dir.empty() ? disk_cache_info().root : cache_dir;
}

json entry_json(const CacheBundleEntry& e) {
  return {{"path", e.path},     {"kernel", e.kernel}, {"backend", e.backend},  {"target", e.target},
          {"format", e.format}, {"bytes", e.bytes},   {"checksum", e.checksum}};
}

json manifest_json(const std::string& bundle, const CacheBundleManifest& m) {
  json toolchains = json::array();
  for (const CacheBundleToolchain& t : m.toolchains) {
    toolchains.push_back({{"backend", t.backend},
                          {"target", t.target},
                          {"compiler", t.compiler},
                          {"generator", t.generator}});
  }
  json entries = json::array();
  std::uint64_t bytes = 0;
  for (const CacheBundleEntry& e : m.entries) {
    entries.push_back(entry_json(e));
    bytes += e.bytes;
  }
  return {{"bundle", bundle},
          {"bundle_version", m.bundle_version},
          {"stubjit_version", m.stubjit_version},
          {"format_version", m.format_version},
          {"created", m.created},
          {"toolchains", toolchains},
          {"entry_bytes", bytes},
          {"entries", entries}};
}

int export_bundle(const BundleFlags& flags, const std::string& cache_dir, bool as_json) {
  const std::string root = cache_root(cache_dir);
  CacheBundleFilter filter;
  filter.kernels = flags.kernels;
  filter.targets = flags.targets;
  const CacheBundleExport result = export_cache_bundle(root, flags.bundle, filter);
  if (as_json) {
    json entries = json::array();
    for (const CacheBundleEntry& e : result.manifest.entries) entries.push_back(entry_json(e));
    json bad = json::array();
    for (const DiskCacheEntry& e : result.skipped)
      bad.push_back({{"path", e.path}, {"problem", e.problem}});
    json unread = json::array();
    for (const SkippedCacheDirectory& d : result.unread)
      unread.push_back({{"path", d.path}, {"problem", d.problem}});
    print({{"root", root},
           {"bundle", result.path},
           {"bytes", result.bytes},
           {"entries", entries},
           {"bad", bad},
           {"skipped", unread}});
  } else {
    for (const DiskCacheEntry& e : result.skipped)
      std::printf("BAD %s: %s (not exported)\n", e.path.c_str(), e.problem.c_str());
    for (const SkippedCacheDirectory& d : result.unread)
      std::printf("SKIPPED %s: %s\n", d.path.c_str(), d.problem.c_str());
    std::printf("exported %zu entries (%zu toolchains) from %s to %s, %llu bytes\n",
                result.manifest.entries.size(), result.manifest.toolchains.size(), root.c_str(),
                result.path.c_str(), static_cast<unsigned long long>(result.bytes));
  }
  // As `cache verify`: a damaged entry, or a directory not read, is worth a look.
  return result.skipped.empty() && result.unread.empty() ? exit_ok : exit_problems_found;
}

int import_bundle(const BundleFlags& flags, const std::string& cache_dir, bool as_json) {
  const std::string root = flags.into.empty() ? cache_root(cache_dir) : flags.into;
  CacheBundleImportOptions options;
  options.dry_run = flags.dry_run;
  options.readable_by_all = flags.shared;
  const CacheBundleImport result = import_cache_bundle(flags.bundle, root, options);
  if (as_json) {
    json entries = json::array();
    for (const CacheBundleImportedEntry& e : result.entries) {
      json entry = {
          {"path", e.entry.path}, {"kernel", e.entry.kernel}, {"outcome", name_of(e.outcome)}};
      if (!e.note.empty()) entry["note"] = e.note;
      entries.push_back(std::move(entry));
    }
    print({{"bundle", flags.bundle},
           {"root", result.root},
           {"dry_run", flags.dry_run},
           {"added", result.added},
           {"identical", result.identical},
           {"kept", result.kept},
           {"replaced", result.replaced},
           {"entries", entries}});
    return exit_ok;
  }
  for (const CacheBundleImportedEntry& e : result.entries) {
    std::printf("%-9s %-20s %s%s%s\n", name_of(e.outcome), e.entry.kernel.c_str(),
                e.entry.path.c_str(), e.note.empty() ? "" : ": ", e.note.c_str());
  }
  std::printf("%s %s into %s: %zu added, %zu identical, %zu kept, %zu replaced\n",
              flags.dry_run ? "would import" : "imported", flags.bundle.c_str(),
              result.root.c_str(), result.added, result.identical, result.kept, result.replaced);
  return exit_ok;
}

int bundle_info(const BundleFlags& flags, bool as_json) {
  const CacheBundleManifest manifest = read_cache_bundle_manifest(flags.bundle);
  if (as_json) {
    print(manifest_json(flags.bundle, manifest));
    return exit_ok;
  }
  std::uint64_t bytes = 0;
  for (const CacheBundleEntry& e : manifest.entries) bytes += e.bytes;
  std::printf("bundle     %s (verified)\n", flags.bundle.c_str());
  std::printf("written by stubjit %s, bundle format %u, cache format %u, %s\n",
              manifest.stubjit_version.c_str(), manifest.bundle_version, manifest.format_version,
              manifest.created.c_str());
  for (const CacheBundleToolchain& t : manifest.toolchains) {
    std::printf("toolchain  %s %s: %s; generator %s\n", t.backend.c_str(), t.target.c_str(),
                t.compiler.c_str(), t.generator.c_str());
  }
  std::printf("entries    %zu, %llu bytes\n", manifest.entries.size(),
              static_cast<unsigned long long>(bytes));
  for (const CacheBundleEntry& e : manifest.entries) {
    std::printf("  %-20s %-18s %10llu  %s\n", e.kernel.c_str(), e.format.c_str(),
                static_cast<unsigned long long>(e.bytes), e.path.c_str());
  }
  return exit_ok;
}

}  // namespace

int run_bundle_export(const BundleFlags& flags, const std::string& cache_dir, bool as_json) {
  return export_bundle(flags, cache_dir, as_json);
}
int run_bundle_import(const BundleFlags& flags, const std::string& cache_dir, bool as_json) {
  return import_bundle(flags, cache_dir, as_json);
}
int run_bundle_info(const BundleFlags& flags, bool as_json) { return bundle_info(flags, as_json); }

}  // namespace stubjit::tool
