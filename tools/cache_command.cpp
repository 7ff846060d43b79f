// stubjit cache ls|stats|verify|clear: the disk cache's entries, totals,
// verification and cleanup.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "durations.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"

namespace stubjit::tool {
namespace {

using json = nlohmann::ordered_json;

// The root as the library spells it: "/a/b/" and "/a/./b" are "/a/b".
std::string root_of(const CacheFlags& flags) {
  if (flags.cache_dir.empty()) return disk_cache_info().root;
  std::string root = std::filesystem::path(flags.cache_dir).lexically_normal().string();
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

std::vector<DiskCacheEntry> entries_of(const std::string& root, bool verify,
                                       std::vector<SkippedCacheDirectory>* skipped = nullptr) {
  return exists(root) ? list_disk_cache(root, verify, skipped) : std::vector<DiskCacheEntry>{};
}

std::string local_time(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &tm);
  return text;
}

json entry_json(const DiskCacheEntry& e) {
  json entry = {{"path", e.path},           {"directory", e.directory}, {"bytes", e.bytes},
                {"last_used", e.last_used}, {"kernel", e.kernel},       {"format", e.format},
                {"valid", e.valid}};
  if (!e.valid) entry["problem"] = e.problem;
  return entry;
}

void print(const json& value) { std::printf("%s\n", value.dump(2).c_str()); }

// The read-only layers searched after the root (docs/cluster.md); never written,
// cleared or evicted by these commands.
json layers_json(const DiskCacheInfo& info) {
  json layers = json::array();
  for (const CacheLayerInfo& layer : info.layers)
    layers.push_back({{"path", layer.path}, {"usable", layer.usable}, {"problem", layer.problem}});
  return layers;
}

void print_layers(const DiskCacheInfo& info) {
  for (const CacheLayerInfo& layer : info.layers) {
    std::printf("layer     %s%s%s\n", layer.path.c_str(),
                layer.usable ? " (read-only)" : ": skipped, ", layer.problem.c_str());
  }
}

int list(const CacheFlags& flags, bool as_json) {
  const std::string root = root_of(flags);
  std::vector<DiskCacheEntry> entries = entries_of(root, true);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.last_used != b.last_used ? a.last_used > b.last_used : a.path < b.path;
  });
  if (as_json) {
    json list = json::array();
    for (const DiskCacheEntry& e : entries) list.push_back(entry_json(e));
    print({{"root", root}, {"entries", list}});
    return exit_ok;
  }
  std::printf("%s: %zu entries\n", root.c_str(), entries.size());
  for (const DiskCacheEntry& e : entries) {
    std::printf("%s %10llu  %-20s %s%s\n", local_time(e.last_used).c_str(),
                static_cast<unsigned long long>(e.bytes), e.kernel.empty() ? "?" : e.kernel.c_str(),
                std::filesystem::path(e.path).lexically_relative(root).c_str(),
                e.valid ? "" : ("  BAD: " + e.problem).c_str());
  }
  return exit_ok;
}

int stats(const CacheFlags& flags, bool as_json) {
  const std::string root = root_of(flags);
  const std::vector<DiskCacheEntry> entries = entries_of(root, false);
  std::uint64_t bytes = 0;
  std::int64_t oldest = 0, newest = 0;
  std::map<std::string, std::pair<std::size_t, std::uint64_t>> per_backend;
  for (const DiskCacheEntry& e : entries) {
    bytes += e.bytes;
    oldest = oldest == 0 ? e.last_used : std::min(oldest, e.last_used);
    newest = std::max(newest, e.last_used);
    auto& backend = per_backend[e.directory.substr(0, e.directory.find('/'))];
    ++backend.first;
    backend.second += e.bytes;
  }
  const DiskCacheInfo info = disk_cache_info();
  if (as_json) {
    json backends = json::object();
    for (const auto& [name, totals] : per_backend)
      backends[name] = {{"entries", totals.first}, {"bytes", totals.second}};
    print({{"root", root},
           {"entries", entries.size()},
           {"bytes", bytes},
           {"max_bytes", info.max_bytes},
           {"oldest_use", oldest},
           {"newest_use", newest},
           {"backends", backends},
           {"layers", layers_json(info)}});
    return exit_ok;
  }
  std::printf("root      %s\nentries   %zu\nbytes     %llu of %llu (cap)\n", root.c_str(),
              entries.size(), static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(info.max_bytes));
  if (!entries.empty()) {
    std::printf("used      %s .. %s\n", local_time(oldest).c_str(), local_time(newest).c_str());
  }
  for (const auto& [name, totals] : per_backend) {
    std::printf("  %-6s %zu entries, %llu bytes\n", name.c_str(), totals.first,
                static_cast<unsigned long long>(totals.second));
  }
  print_layers(info);
  return exit_ok;
}

int verify(const CacheFlags& flags, bool as_json) {
  const std::string root = root_of(flags);
  std::vector<SkippedCacheDirectory> skipped;
  const std::vector<DiskCacheEntry> entries = entries_of(root, true, &skipped);
  std::vector<DiskCacheEntry> bad;
  for (const DiskCacheEntry& e : entries)
    if (!e.valid) bad.push_back(e);
  const std::size_t removed =
      flags.remove && !bad.empty() ? remove_disk_cache_entries(root, bad) : 0;
  if (as_json) {
    json list = json::array();
    for (const DiskCacheEntry& e : bad) list.push_back(entry_json(e));
    json not_read = json::array();
    for (const SkippedCacheDirectory& d : skipped)
      not_read.push_back({{"path", d.path}, {"problem", d.problem}});
    print({{"root", root},
           {"entries", entries.size()},
           {"bad", list},
           {"removed", removed},
           {"skipped", not_read}});
  } else {
    for (const DiskCacheEntry& e : bad) {
      std::printf("BAD %s: %s%s\n", e.path.c_str(), e.problem.c_str(),
                  flags.remove ? " (removed)" : "");
    }
    for (const SkippedCacheDirectory& d : skipped) {
      std::printf("SKIPPED %s: %s\n", d.path.c_str(), d.problem.c_str());
    }
    std::printf("%zu entries checked, %zu bad, %zu removed, %zu skipped\n", entries.size(),
                bad.size(), removed, skipped.size());
  }
  // Unread directories may hold bad entries: not a clean bill of health.
  return bad.size() > removed || !skipped.empty() ? exit_problems_found : exit_ok;
}

int clear(const CacheFlags& flags, bool as_json) {
  const std::string root = root_of(flags);
  std::int64_t older_than = 0;
  if (!flags.older_than.empty()) {
    const auto seconds = parse_duration_seconds(flags.older_than);
    if (!seconds || *seconds == 0) {
      throw Error("--older-than " + flags.older_than +
                  ": expected a duration such as 30d, 12h, 90m, 45s");
    }
    older_than = *seconds;
  }
  const std::size_t removed = exists(root) ? clear_disk_cache(root, older_than) : 0;
  if (as_json) {
    print({{"root", root}, {"removed", removed}});
  } else {
    std::printf("removed %zu entries from %s\n", removed, root.c_str());
  }
  return exit_ok;
}

}  // namespace

int run_cache_list(const CacheFlags& flags, bool as_json) { return list(flags, as_json); }
int run_cache_stats(const CacheFlags& flags, bool as_json) { return stats(flags, as_json); }
int run_cache_verify(const CacheFlags& flags, bool as_json) { return verify(flags, as_json); }
int run_cache_clear(const CacheFlags& flags, bool as_json) { return clear(flags, as_json); }

}  // namespace stubjit::tool
