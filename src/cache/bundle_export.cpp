// export_cache_bundle (stubjit/cache_bundle.hpp): the verified entries of a cache root,
// written as one bundle in one pass, published by rename.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <new>
#include <set>
#include <tuple>

#include "cache/bundle_entry_check.hpp"
#include "cache/bundle_format.hpp"
#include "cache/bundle_io.hpp"
#include "cache/cache_entry.hpp"
#include "cache/cache_layout.hpp"
#include "cache/disk_key.hpp"
#include "cache/private_files.hpp"
#include "stubjit/cache_bundle.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The bundle being written: a temporary file beside its final path (mode 0600), the
// entries appended as they come, then the manifest and the header; renamed into place
// only when complete and flushed, removed if anything fails first.
class BundleWriter {
 public:
  explicit BundleWriter(std::string path) : path_(std::move(path)) {
    const fs::path final_path(path_);
    const fs::path directory = final_path.has_parent_path() ? final_path.parent_path() : ".";
    temporary_ = (directory / ("." + final_path.filename().string() + ".tmp-")).string() +
                 detail::unique_suffix();
    fd_ = detail::FileDescriptor(
        ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd_.valid()) {
      throw CacheBundleError("cannot write the cache bundle " + path_ + ": cannot create " +
                             temporary_ + ": " + std::strerror(errno));
    }
    state_.reset(XXH3_createState());
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_.get());
    const std::array<char, detail::bundle_header_size> placeholder{};
    append(placeholder.data(), placeholder.size(), false);
  }
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;
  ~BundleWriter() {
    if (!published_) ::unlink(temporary_.c_str());
  }

  void add_entry(const std::vector<char>& bytes) {
    append(bytes.data(), bytes.size(), true);
    ++entries_;
  }

  // Writes the manifest and the header, flushes, and renames; returns the size.
  std::uint64_t publish(const std::string& manifest) {
    detail::BundleHeader header;
    header.entry_format = detail::disk_format_version;
    header.entry_count = entries_;
    header.manifest_offset = size_;
    header.manifest_size = manifest.size();
    append(manifest.data(), manifest.size(), true);
    std::array<char, detail::bundle_header_size> bytes = detail::encode_bundle_header(header);
    XXH3_64bits_update(state_.get(), bytes.data(), 40);
    header.checksum = XXH3_64bits_digest(state_.get());
    bytes = detail::encode_bundle_header(header);
    check(detail::write_at(fd_.get(), 0, bytes.data(), bytes.size()), "write");
    // Synced: a bundle is carried to other machines; its name never points at a file
    // whose blocks a power loss could have lost.
    if (::fsync(fd_.get()) != 0) check(std::strerror(errno), "flush");
    check(fd_.close(), "close");
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) check(std::strerror(errno), "rename");
    published_ = true;
    return size_;
  }

 private:
  void append(const char* data, std::size_t size, bool hashed) {
    check(detail::write_all(fd_.get(), data, size), "write");
    if (hashed) XXH3_64bits_update(state_.get(), data, size);
    size_ += size;
  }

  void check(const std::string& error, const char* what) const {
    if (!error.empty()) {
      throw CacheBundleError("cannot write the cache bundle " + path_ + ": cannot " + what + " " +
                             temporary_ + ": " + error);
    }
  }

  std::string path_;
  std::string temporary_;
  detail::FileDescriptor fd_;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state_{nullptr, &XXH3_freeState};
  std::uint64_t size_ = 0;
  std::uint64_t entries_ = 0;
  bool published_ = false;
};

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Whether the filter's targets take the entries of `directory`
// (<backend>/<target>/<mode>-r<rank>): the directory names the target as
// path_component() writes it, so either spelling of a target matches.
bool target_taken(const CacheBundleFilter& filter, const std::string& directory) {
  if (filter.targets.empty()) return true;
  const std::string backend = directory.substr(0, directory.find('/'));
  const std::size_t after_backend = backend.size() + 1;
  const std::string target =
      directory.substr(after_backend, directory.find('/', after_backend) - after_backend);
  for (const std::string& wanted : filter.targets) {
    if (wanted == "host" ? backend == "cpu" : detail::path_component(wanted) == target) return true;
  }
  return false;
}

std::string filter_text(const CacheBundleFilter& filter) {
  std::string text;
  for (const std::string& kernel : filter.kernels) text += " kernel " + kernel + ",";
  for (const std::string& target : filter.targets) text += " target " + target + ",";
  if (!text.empty()) text = " of" + text.substr(0, text.size() - 1);
  return text;
}

}  // namespace

CacheBundleExport export_cache_bundle(const std::string& root, const std::string& bundle,
                                      const CacheBundleFilter& filter) {
  const std::string normal_root = detail::normalize_root(root);
  struct stat info {};
  if (normal_root.empty() || ::stat(normal_root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw CacheBundleError("nothing to export: there is no cache at '" + normal_root + "'");
  CacheBundleExport result;
  std::vector<DiskCacheEntry> entries = list_disk_cache(normal_root, false, &result.unread);
  std::sort(entries.begin(), entries.end(),
            [](const DiskCacheEntry& a, const DiskCacheEntry& b) { return a.path < b.path; });

  CacheBundleManifest& manifest = result.manifest;
  manifest.bundle_version = detail::bundle_format_version;
  manifest.stubjit_version = STUBJIT_VERSION;
  manifest.format_version = detail::disk_format_version;
  manifest.created = utc_now();
  std::set<std::tuple<std::string, std::string, std::string, std::string>> toolchains;
  BundleWriter writer(bundle);
  for (DiskCacheEntry& entry : entries) {
    if (!target_taken(filter, entry.directory)) continue;
    const std::string relative = fs::path(entry.path).lexically_relative(normal_root).string();
    entry.verified = true;
    const detail::ReadResult read = detail::read_private_file(entry.path, detail::max_entry_bytes);
    if (read.status != detail::ReadResult::Status::ok) {
      entry.problem = read.problem.empty() ? "cannot be read" : read.problem;
      result.skipped.push_back(entry);
      continue;
    }
    const detail::EntryFacts facts = detail::check_entry_file(read.bytes, relative);
    if (!facts.problem.empty()) {
      entry.problem = facts.problem;
      result.skipped.push_back(entry);
      continue;
    }
    if (!filter.kernels.empty() && !contains(filter.kernels, facts.kernel)) continue;
    // The bytes verified are the bytes written: one read of each entry.
    writer.add_entry(read.bytes);
    manifest.entries.push_back({relative, facts.kernel, facts.backend, facts.target, facts.format,
                                read.bytes.size(), detail::entry_checksum(read.bytes)});
    if (toolchains.emplace(facts.backend, facts.target, facts.compiler, facts.generator).second)
      manifest.toolchains.push_back({facts.backend, facts.target, facts.compiler, facts.generator});
  }
  if (manifest.entries.empty()) {
    throw CacheBundleError(
        "nothing to export: no valid entry" + filter_text(filter) + " in " + normal_root +
        (result.skipped.empty() ? ""
                                : " (" + std::to_string(result.skipped.size()) +
                                      " entries that do not verify were skipped)"));
  }
  const std::string manifest_text = detail::write_manifest(manifest);
  // What every reader refuses (bundle_format.hpp) is not written either.
  if (manifest_text.size() > detail::max_manifest_bytes) {
    throw CacheBundleError("cannot export " + std::to_string(manifest.entries.size()) +
                           " entries into one bundle: its manifest would take " +
                           std::to_string(manifest_text.size()) + " bytes, more than the " +
                           std::to_string(detail::max_manifest_bytes) +
                           " a bundle may hold; export fewer (--kernel, --target)");
  }
  result.bytes = writer.publish(manifest_text);
  result.path = bundle;
  return result;
}

}  // namespace stubjit
