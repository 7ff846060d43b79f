// import_cache_bundle and read_cache_bundle_manifest (stubjit/cache_bundle.hpp): a
// bundle verified whole, then its entries published under a root, each atomically,
// through directory descriptors that never follow a link.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "cache/bundle_entry_check.hpp"
#include "cache/bundle_format.hpp"
#include "cache/bundle_io.hpp"
#include "cache/bundle_reader.hpp"
#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_layout.hpp"
#include "cache/cache_tag.hpp"
#include "cache/private_files.hpp"
#include "stubjit/cache_bundle.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;

constexpr mode_t readable_by_all = S_IRGRP | S_IROTH;
constexpr mode_t searchable_by_all = S_IRGRP | S_IXGRP | S_IROTH | S_IXOTH;

std::string errno_text() { return std::strerror(errno); }

// The root an import writes into, checked before anything is written: a cache root
// (stubjit's tag, empty, or missing), of the current user's, writable by nobody else.
class ImportRoot {
 public:
  ImportRoot(std::string root, bool readable) : root_(std::move(root)), readable_(readable) {
    if (root_.empty()) fail("no cache root was given (the disk cache is off, or has no root)");
    const detail::RootInspection inspection = detail::inspect_cache_root(root_);
    if (inspection.kind == detail::RootKind::foreign) fail("it " + inspection.problem);
    if (inspection.kind != detail::RootKind::missing) {
      if (const std::string problem = detail::check_private_directory(root_, true);
          !problem.empty())
        fail(problem);
    }
  }

  const std::string& path() const { return root_; }

  // Throws, before anything is written, if what is already at `relative`'s directories
  // or name could not take the entry: a link, another user's directory or one others
  // can write, a directory where the entry goes.
  void check_place(const std::string& relative) const {
    std::string path = root_;
    for (const auto& part : fs::path(relative)) {
      path += "/" + part.string();
      struct stat info {};
      if (::lstat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) return;  // created when written
        fail(path + ": " + errno_text());
      }
      if (path.size() == root_.size() + 1 + relative.size()) {
        if (S_ISDIR(info.st_mode)) fail(path + " is a directory, where an entry goes");
        return;
      }
      if (const std::string problem = detail::check_private_directory(path, false);
          !problem.empty())
        fail(problem);
    }
  }

  // Creates (mode 0700, or 0755 for a readable layer) and tags the root if needed.
  void prepare() {
    create_missing_directories();
    if (const std::string problem = detail::check_private_directory(root_, true); !problem.empty())
      fail(problem);
    if (detail::inspect_cache_root(root_).kind != detail::RootKind::tagged) {
      if (const std::string problem = detail::write_cache_tag(root_); !problem.empty())
        fail("cannot tag it as stubjit's cache: " + problem);
      const detail::RootInspection again = detail::inspect_cache_root(root_);
      if (again.kind != detail::RootKind::tagged) fail("it " + again.problem);
    }
    root_fd_ = detail::FileDescriptor(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root_fd_.valid()) fail("cannot be opened: " + errno_text());
    // The directory opened is the one that was checked: whoever could swap the path in
    // between (by renaming its parent's entries) gets a directory refused here.
    struct stat opened {};
    if (::fstat(root_fd_.get(), &opened) != 0) fail("cannot be examined: " + errno_text());
    if (opened.st_uid != ::geteuid() || (opened.st_mode & (S_IWGRP | S_IWOTH)) != 0)
      fail(
          "changed while it was being checked: the directory opened is another user's or "
          "writable by others");
    if (readable_) {
      add_mode(root_fd_.get(), searchable_by_all, root_);
      const detail::FileDescriptor tag(
          ::openat(root_fd_.get(), detail::cache_tag_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      if (tag.valid()) add_mode(tag.get(), readable_by_all, root_ + "/" + detail::cache_tag_name);
    }
  }

  // Publishes `bytes` at `relative`: a temporary file in the entry's directory, flushed,
  // then renamed over the name.
  void publish(const std::string& relative, const std::vector<char>& bytes) {
    const int directory = directory_of(relative);
    const std::string name = fs::path(relative).filename().string();
    const std::string temporary =
        std::string(detail::temporary_prefix) + name + "." + detail::unique_suffix();
    const mode_t mode = S_IRUSR | S_IWUSR | (readable_ ? readable_by_all : 0);
    detail::FileDescriptor fd(::openat(directory, temporary.c_str(),
                                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    const std::string where = root_ + "/" + fs::path(relative).parent_path().string();
    if (!fd.valid()) fail("cannot create a file in " + where + ": " + errno_text());
    std::string error = ::fchmod(fd.get(), mode) == 0 ? "" : errno_text();  // whatever the umask
    if (error.empty()) error = detail::write_all(fd.get(), bytes.data(), bytes.size());
    // Synced: a layer that other users read cannot replace an entry a power loss tore.
    if (error.empty() && ::fsync(fd.get()) != 0) error = errno_text();
    if (error.empty()) error = fd.close();
    if (error.empty() && ::renameat(directory, temporary.c_str(), directory, name.c_str()) != 0)
      error = errno_text();
    if (!error.empty()) {
      ::unlinkat(directory, temporary.c_str(), 0);
      fail("cannot write " + where + "/" + name + ": " + error);
    }
  }

  // Makes the entry at `relative` readable by all (a readable layer's existing entries).
  void make_readable(const std::string& relative) {
    const int directory = directory_of(relative);
    const detail::FileDescriptor fd(::openat(directory, fs::path(relative).filename().c_str(),
                                             O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (fd.valid()) add_mode(fd.get(), readable_by_all, root_ + "/" + relative);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw CacheBundleError("cannot import into " + (root_.empty() ? "the cache" : root_) + ": " +
                           what);
  }

  mode_t directory_mode() const { return S_IRWXU | (readable_ ? searchable_by_all : 0); }

  void create_missing_directories() const {
    for (std::size_t slash = root_.find('/', 1);; slash = root_.find('/', slash + 1)) {
      const std::string prefix = root_.substr(0, slash);
      struct stat existing {};
      if (::stat(prefix.c_str(), &existing) != 0) {
        if (::mkdir(prefix.c_str(), directory_mode()) == 0)
          ::chmod(prefix.c_str(), directory_mode());  // whatever the umask
        else if (errno != EEXIST)
          fail("cannot create " + prefix + ": " + errno_text());
      }
      if (slash == std::string::npos) break;
    }
  }

  // Only adds bits, and only on a file or directory of the user's.
  void add_mode(int fd, mode_t bits, const std::string& what) const {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_uid != ::geteuid()) return;
    if ((info.st_mode & bits) != bits && ::fchmod(fd, (info.st_mode & 07777) | bits) != 0)
      fail("cannot make " + what + " readable: " + errno_text());
  }

  // The descriptor of `relative`'s directory, each level created if missing, opened
  // relative to the one above without following a link, and checked: the user's,
  // writable by nobody else.
  int directory_of(const std::string& relative) {
    const std::string directory = fs::path(relative).parent_path().string();
    if (const auto known = directories_.find(directory); known != directories_.end())
      return known->second.get();
    int parent = root_fd_.get();
    std::string where = root_;
    detail::FileDescriptor current;
    for (const auto& part : fs::path(directory)) {
      const std::string name = part.string();
      where += "/" + name;
      if (::mkdirat(parent, name.c_str(), directory_mode()) != 0 && errno != EEXIST)
        fail("cannot create " + where + ": " + errno_text());
      detail::FileDescriptor next(
          ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!next.valid()) fail(where + " cannot be opened (or is a link): " + errno_text());
      struct stat info {};
      if (::fstat(next.get(), &info) != 0 || info.st_uid != ::geteuid() ||
          (info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        fail(where + " is not a directory of the current user's that only it can write");
      // A directory created here has the mode the umask left it.
      add_mode(next.get(), readable_ ? searchable_by_all : 0, where);
      current = std::move(next);
      parent = current.get();
    }
    return directories_.emplace(directory, std::move(current)).first->second.get();
  }

  std::string root_;
  bool readable_;
  detail::FileDescriptor root_fd_;
  std::map<std::string, detail::FileDescriptor> directories_;
};

// What is at an entry's name now, and so what an import does with it.
CacheBundleImportedEntry decide(const detail::BundleReader& reader, std::size_t index,
                                const std::string& root) {
  CacheBundleImportedEntry decision;
  decision.entry = reader.manifest().entries[index];
  const CacheBundleEntry& entry = decision.entry;
  const detail::ReadResult read =
      detail::read_private_file(root + "/" + entry.path, detail::max_entry_bytes);
  if (read.status == detail::ReadResult::Status::missing) return decision;  // added
  if (read.status != detail::ReadResult::Status::ok) {
    decision.outcome = BundleEntryOutcome::replaced_bad;
    decision.note = read.problem.empty() ? "cannot be read" : read.problem;
    return decision;
  }
  if (read.bytes.size() == entry.bytes && detail::entry_checksum(read.bytes) == entry.checksum &&
      read.bytes == reader.entry_bytes(index)) {
    decision.outcome = BundleEntryOutcome::identical;
    return decision;
  }
  const detail::EntryFacts facts = detail::check_entry_file(read.bytes, entry.path);
  if (facts.problem.empty()) {
    // The same key, compiled again: both binaries are good. The one in use stays.
    decision.outcome = BundleEntryOutcome::kept_existing;
    decision.note = "a valid entry of the same key with other bytes";
  } else {
    decision.outcome = BundleEntryOutcome::replaced_bad;
    decision.note = facts.problem;
  }
  return decision;
}

}  // namespace

const char* name_of(BundleEntryOutcome outcome) noexcept {
  switch (outcome) {
    case BundleEntryOutcome::added:
      return "added";
    case BundleEntryOutcome::identical:
      return "identical";
    case BundleEntryOutcome::kept_existing:
      return "kept";
    case BundleEntryOutcome::replaced_bad:
      return "replaced";
  }
  return "?";
}

CacheBundleManifest read_cache_bundle_manifest(const std::string& bundle) {
  return detail::BundleReader(bundle).manifest();
}

CacheBundleImport import_cache_bundle(const std::string& bundle, const std::string& root,
                                      const CacheBundleImportOptions& options) {
  // Everything is checked before the first write: the bundle, then the root and
  // every place an entry goes.
  const detail::BundleReader reader(bundle);
  ImportRoot destination(detail::normalize_root(root), options.readable_by_all);
  CacheBundleImport result;
  result.root = destination.path();
  result.manifest = reader.manifest();
  for (std::size_t i = 0; i < reader.manifest().entries.size(); ++i) {
    destination.check_place(reader.manifest().entries[i].path);
    result.entries.push_back(decide(reader, i, result.root));
  }
  for (const CacheBundleImportedEntry& decision : result.entries) {
    switch (decision.outcome) {
      case BundleEntryOutcome::added:
        ++result.added;
        break;
      case BundleEntryOutcome::identical:
        ++result.identical;
        break;
      case BundleEntryOutcome::kept_existing:
        ++result.kept;
        break;
      case BundleEntryOutcome::replaced_bad:
        ++result.replaced;
        break;
    }
  }
  if (options.dry_run) return result;
  destination.prepare();
  for (std::size_t i = 0; i < result.entries.size(); ++i) {
    const CacheBundleImportedEntry& decision = result.entries[i];
    const bool write = decision.outcome == BundleEntryOutcome::added ||
                       decision.outcome == BundleEntryOutcome::replaced_bad;
    if (write)
      destination.publish(decision.entry.path, reader.entry_bytes(i));
    else if (options.readable_by_all)
      destination.make_readable(decision.entry.path);
  }
  // The cache's size record does not count these entries: the next store walks the
  // layout and evicts beyond the cap.
  if (result.added + result.replaced > 0) detail::forget_size_record(result.root);
  return result;
}

}  // namespace stubjit
