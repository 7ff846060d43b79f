#include "cache/cache_layer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cache/cache_entry.hpp"
#include "cache/cache_layout.hpp"
#include "cache/private_files.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

bool writable_by_others(const struct stat& info) { return info.st_mode & (S_IWGRP | S_IWOTH); }

// Closes a directory descriptor when it goes out of scope.
class OpenDirectory {
 public:
  explicit OpenDirectory(int fd) : fd_(fd) {}
  OpenDirectory(const OpenDirectory&) = delete;
  OpenDirectory& operator=(const OpenDirectory&) = delete;
  ~OpenDirectory() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens a layer's root and checks it; its descriptor, or -1 with the problem.
int open_layer_root(const std::string& root, LayerInspection& inspection) {
  // The root may be a link (a site's "current" link to its newest cache), as a
  // per-user root may.
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    inspection.problem = root + " cannot be opened: " + std::strerror(errno);
    return -1;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    inspection.problem = root + ": " + std::strerror(errno);
  } else if (writable_by_others(info)) {
    inspection.problem = root + " is writable by group or others (whoever can write it " +
                         "could plant code that runs in this process)";
  }
  inspection.owner = info.st_uid;
  if (inspection.problem.empty()) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

LayerInspection inspect_cache_layer(const std::string& root) {
  LayerInspection inspection;
  const OpenDirectory directory(open_layer_root(root, inspection));
  return inspection;
}

std::string layer_owner_problem(const struct stat& info, uid_t layer_owner) {
  const uid_t owner = info.st_uid;
  if (owner != 0 && owner != ::geteuid() && owner != layer_owner) {
    return "is owned by user " + std::to_string(owner) + ", neither root, nor user " +
           std::to_string(::geteuid()) + ", nor the layer's owner (user " +
           std::to_string(layer_owner) + ")";
  }
  if (writable_by_others(info)) return "is writable by group or others";
  return {};
}

LayerStore::LayerStore(std::string root) : root_(std::move(root)) {}

LayerStore::~LayerStore() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

void LayerStore::warn_once(const std::string& subject, const std::string& message) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!reported_.insert(subject).second) return;
  }
  logger().warn("{}", message);
}

std::string LayerStore::entry_path(const DiskKey& key) const {
  return root_ + "/" + key.directory + "/" + key.name + entry_suffix;
}

int LayerStore::root_descriptor() {
  std::call_once(opened_, [this] {
    LayerInspection inspection;
    // Kept open: the layer checked once is the layer read, even if its path is
    // pointed elsewhere later (a site switching its "current" link).
    root_fd_ = open_layer_root(root_, inspection);
    if (root_fd_ < 0) {
      logger().warn("cache layer skipped: {}", inspection.problem);
      return;
    }
    owner_ = inspection.owner;
    logger().debug("cache layer {} (owner user {})", root_, owner_);
  });
  return root_fd_;
}

int LayerStore::open_directory(int root, const std::string& directory) {
  // Level by level, never following a link, each level checked: the path to an entry
  // is as trusted as the entry.
  int current = ::fcntl(root, F_DUPFD_CLOEXEC, 0);
  if (current < 0) return -1;
  std::string where = root_;
  for (const auto& part : std::filesystem::path(directory)) {
    const std::string name = part.string();
    where += "/" + name;
    const int next =
        ::openat(current, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    ::close(current);
    if (next < 0) {
      if (error != ENOENT) {
        warn_once(where, "cache layer directory " + where + " not read (" +
                             (error == ELOOP || error == ENOTDIR
                                  ? std::string("a symbolic link or not a directory")
                                  : std::string(std::strerror(error))) +
                             "); its stubs are compiled instead");
      }
      return -1;
    }
    current = next;
    struct stat info {};
    std::string problem =
        ::fstat(current, &info) == 0 ? layer_owner_problem(info, owner_) : std::strerror(errno);
    if (!problem.empty()) {
      ::close(current);
      warn_once(where, "cache layer directory " + where + " " + problem +
                           ": refused, its stubs are compiled instead");
      return -1;
    }
  }
  return current;
}

BinaryStore::Lookup LayerStore::find(const DiskKey& key) {
  const int root = root_descriptor();
  if (root < 0) return {};
  const OpenDirectory directory(open_directory(root, key.directory));
  if (directory.get() < 0) return {};
  const uid_t owner = owner_;
  ReadResult read = read_checked_file(
      directory.get(), key.name + entry_suffix, max_entry_bytes,
      [owner](const struct stat& info) { return layer_owner_problem(info, owner); });
  const std::string path = entry_path(key);
  if (read.status == ReadResult::Status::missing) return {};
  if (read.status == ReadResult::Status::failed) {
    warn_once(path, "cache layer entry " + path + " cannot be read (" + read.problem +
                        "); compiling instead");
    return {};
  }
  std::string problem = read.problem;
  if (read.status == ReadResult::Status::ok) {
    DecodedEntry entry = decode_entry(read.bytes, &key.text);
    if (entry.problem == EntryProblem::none)
      return {Found::hit, std::make_shared<const Binary>(std::move(entry.binary))};
    problem = describe(entry.problem);
  }
  warn_once(path, "cache layer entry " + path + " rejected (" + problem +
                      "); compiling the stub instead (the layer is left as it is)");
  return {Found::rejected, nullptr};
}

void LayerStore::reject(const DiskKey& key, const std::string& why) {
  const std::string path = entry_path(key);
  warn_once(path, "cache layer entry " + path + " could not be loaded (" + why +
                      "); compiling the stub instead (the layer is left as it is)");
}

}  // namespace stubjit::detail
