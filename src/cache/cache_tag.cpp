#include "cache/cache_tag.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "cache/cache_layout.hpp"
#include "cache/private_files.hpp"

namespace stubjit::detail {
namespace {

// The first two lines identify the tag as stubjit's; later lines only explain it.
const std::string tag_identity =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by stubjit (run-time kernel compiler).\n";

constexpr std::uint64_t max_tag_bytes = 4096;

// What a stubjit root may hold before it is tagged: nothing, the tag being written,
// what stubjit wrote before it tagged its roots (backend directories and the eviction
// lock; only these three backends existed then), or the compile locks' file (a root
// whose tag was removed by hand is tagged again).
bool allowed_untagged(const std::string& root, const std::string& name) {
  if (name == ".evict.lock" || name == build_lock_name) return true;
  if (name.rfind(std::string(temporary_prefix) + cache_tag_name + ".", 0) == 0) return true;
  if (name == "cpu" || name == "cuda" || name == "hip") {
    struct stat info {};
    return ::lstat((root + "/" + name).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  }
  return false;
}

RootInspection foreign(const std::string& what) { return {RootKind::foreign, what}; }

}  // namespace

const std::string& cache_tag_text() {
  static const std::string text =
      tag_identity +
      "# For information about cache directory tags, see https://bford.info/cachedir/\n"
      "# stubjit keeps compiled stubs below this directory and only ever removes its own\n"
      "# files (docs/cache.md).\n";
  return text;
}

namespace {

RootInspection inspect(const std::string& root, int retries);

}  // namespace

RootInspection inspect_cache_root(const std::string& root) { return inspect(root, 1); }

namespace {

RootInspection inspect(const std::string& root, int retries) {
  struct stat info {};
  if (::stat(root.c_str(), &info) != 0) {
    if (errno == ENOENT) return {RootKind::missing, {}};
    return foreign(std::string("cannot be examined: ") + std::strerror(errno));
  }
  if (!S_ISDIR(info.st_mode)) return foreign("is not a directory");
  const ReadResult tag = read_private_file(root + "/" + cache_tag_name, max_tag_bytes);
  if (tag.status == ReadResult::Status::ok) {
    const std::string text(tag.bytes.begin(), tag.bytes.end());
    if (text.compare(0, tag_identity.size(), tag_identity) == 0) return {RootKind::tagged, {}};
    return foreign(std::string("holds a ") + cache_tag_name +
                   " that stubjit did not write (another program's cache)");
  }
  if (tag.status != ReadResult::Status::missing) {
    return foreign(std::string("has a ") + cache_tag_name + " stubjit cannot use (" + tag.problem +
                   ")");
  }
  DIR* dir = ::opendir(root.c_str());
  if (!dir) return foreign(std::string("cannot be read: ") + std::strerror(errno));
  RootInspection inspection{RootKind::claimable, {}};
  while (const dirent* item = ::readdir(dir)) {
    const std::string name = item->d_name;
    if (name == "." || name == ".." || allowed_untagged(root, name)) continue;
    if (name == cache_tag_name && retries > 0) {
      // Another process published its tag after the read above found none: look again
      // (it was taken for a foreign file, and the root for another program's).
      ::closedir(dir);
      return inspect(root, retries - 1);
    }
    inspection = foreign("already holds '" + name + "' and no " + cache_tag_name +
                         " from stubjit: stubjit keeps its cache only in a new or "
                         "empty directory, or one it tagged");
    break;
  }
  ::closedir(dir);
  return inspection;
}

}  // namespace

std::string write_cache_tag(const std::string& root) {
  const std::string& text = cache_tag_text();
  return publish_file(root, cache_tag_name, std::vector<char>(text.begin(), text.end()));
}

std::string cleanup_refusal(const std::string& root) {
  const RootInspection inspection = inspect_cache_root(root);
  if (inspection.kind != RootKind::foreign) return {};
  return "refusing to remove anything from " + root + ": it " + inspection.problem;
}

}  // namespace stubjit::detail
