#include "cache/private_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

namespace stubjit::detail {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

// Closes a descriptor when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// What is wrong with a private file or directory's owner and mode, as a phrase after
// its name; "" when nothing is.
std::string private_owner_problem(const struct stat& info) {
  if (info.st_uid != ::geteuid()) {
    return "is owned by user " + std::to_string(info.st_uid) + ", not by user " +
           std::to_string(::geteuid());
  }
  if (info.st_mode & (S_IWGRP | S_IWOTH)) return "is writable by group or others";
  return {};
}

}  // namespace

std::string check_private_directory(const std::string& path, bool follow_links) {
  struct stat info {};
  const int rc = follow_links ? ::stat(path.c_str(), &info) : ::lstat(path.c_str(), &info);
  if (rc != 0) return path + ": " + errno_text(errno);
  if (S_ISLNK(info.st_mode)) return path + " is a symbolic link";
  if (!S_ISDIR(info.st_mode)) return path + " is not a directory";
  const std::string problem = private_owner_problem(info);
  return problem.empty() ? problem : path + " " + problem;
}

std::string make_private_directory(const std::string& path, bool follow_links) {
  // Create missing components one by one, each 0700 (umask permitting); existing
  // parents outside the cache are left as they are.
  for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    struct stat existing {};
    if (prefix.empty() || ::stat(prefix.c_str(), &existing) == 0) {
      // exists (checked below for the root itself)
    } else if (::mkdir(prefix.c_str(), 0700) == 0) {
      ::chmod(prefix.c_str(), 0700);  // whatever the umask
    } else if (errno != EEXIST) {     // EEXIST: another process created it meanwhile
      return "cannot create " + prefix + ": " + errno_text(errno);
    }
    if (slash == std::string::npos) break;
  }
  return check_private_directory(path, follow_links);
}

ReadResult read_private_file(const std::string& path, std::uint64_t max_bytes) {
  return read_checked_file(AT_FDCWD, path, max_bytes, private_owner_problem);
}

ReadResult read_checked_file(int directory, const std::string& path, std::uint64_t max_bytes,
                             const OwnerCheck& check) {
  ReadResult result;
  Descriptor fd(::openat(directory, path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    const int error = errno;
    result.status = error == ENOENT  ? ReadResult::Status::missing
                    : error == ELOOP ? ReadResult::Status::refused
                                     : ReadResult::Status::failed;
    result.problem = error == ELOOP ? "is a symbolic link" : errno_text(error);
    return result;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    result.status = ReadResult::Status::failed;
    result.problem = errno_text(errno);
    return result;
  }
  if (!S_ISREG(info.st_mode)) {
    result.status = ReadResult::Status::refused;
    result.problem = "is not a regular file";
    return result;
  }
  if (std::string problem = check(info); !problem.empty()) {
    result.status = ReadResult::Status::refused;
    result.problem = "the entry " + problem;
    return result;
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    result.status = ReadResult::Status::refused;
    result.problem = "is " + std::to_string(info.st_size) + " bytes long, more than the " +
                     std::to_string(max_bytes) + " bytes stubjit reads";
    return result;
  }
  result.modified_seconds = static_cast<std::int64_t>(info.st_mtime);
  result.bytes.resize(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < result.bytes.size()) {
    const ssize_t got = ::read(fd.get(), result.bytes.data() + done, result.bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      result.status = ReadResult::Status::failed;
      result.problem = errno_text(errno);
      return result;
    }
    if (got == 0) break;  // shorter than fstat said: the entry check reports it
    done += static_cast<std::size_t>(got);
  }
  result.bytes.resize(done);
  result.status = ReadResult::Status::ok;
  return result;
}

void mark_used(const std::string& path, std::int64_t modified_seconds) noexcept {
  constexpr std::int64_t recent_enough = 60;  // LRU order is kept to the minute
  const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  if (modified_seconds <= now && now - modified_seconds < recent_enough) return;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

std::string publish_file(const std::string& directory, const std::string& name,
                         const std::vector<char>& bytes, Durability durability) {
  std::string temporary = directory + "/" + temporary_prefix + name + ".XXXXXX";
  Descriptor fd(::mkostemp(temporary.data(), O_CLOEXEC));  // mode 0600
  if (fd.get() < 0) return "cannot create a file in " + directory + ": " + errno_text(errno);
  auto fail = [&](const std::string& what) {
    const std::string message = what + " " + temporary + ": " + errno_text(errno);
    ::unlink(temporary.c_str());
    return message;
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return fail("cannot write");
    done += static_cast<std::size_t>(put);
  }
  // Synced: data on disk before the name points at it, so a power loss leaves the
  // old file or the new one, never a named file with missing blocks.
  if (durability == Durability::synced && ::fsync(fd.get()) != 0) return fail("cannot fsync");
  if (::close(fd.release()) != 0) return fail("cannot close");
  const std::string final_path = directory + "/" + name;
  if (::rename(temporary.c_str(), final_path.c_str()) != 0) return fail("cannot rename");
  return {};
}

}  // namespace stubjit::detail
