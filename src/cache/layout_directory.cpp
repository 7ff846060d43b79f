#include "cache/layout_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace stubjit::detail {
namespace {

bool private_directory(const struct stat& info) {
  return S_ISDIR(info.st_mode) && info.st_uid == ::geteuid() &&
         (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

bool own_regular_file(int directory, const std::string& name) {
  struct stat info {};
  return ::fstatat(directory, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(info.st_mode) && info.st_uid == ::geteuid();
}

}  // namespace

std::optional<LayoutDirectory> LayoutDirectory::open(const std::string& root,
                                                     const std::string& directory,
                                                     std::string* problem) {
  const auto fail = [&](const std::string& where, const std::string& why) {
    if (problem) *problem = where + " " + why;
    return std::nullopt;
  };
  // The root may be a link to a directory elsewhere (the user's choice); nothing below
  // it may.
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fail(root, std::string("cannot be opened: ") + std::strerror(errno));
  LayoutDirectory current(fd);
  struct stat info {};
  if (::fstat(current.fd_, &info) != 0 || !private_directory(info))
    return fail(root, "is not a private directory of the current user");
  std::string where = root;
  for (const auto& part : std::filesystem::path(directory)) {
    const std::string name = part.string();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
      return fail(where + "/" + name, "is not a layout directory name");
    where += "/" + name;
    const int next =
        ::openat(current.fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      return fail(where, errno == ELOOP || errno == ENOTDIR
                             ? "is a symbolic link or not a directory"
                             : std::string("cannot be opened: ") + std::strerror(errno));
    }
    current = LayoutDirectory(next);
    if (::fstat(current.fd_, &info) != 0 || !private_directory(info))
      return fail(where, "is not a private directory of the current user");
  }
  return current;
}

LayoutDirectory::LayoutDirectory(LayoutDirectory&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

LayoutDirectory& LayoutDirectory::operator=(LayoutDirectory&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

LayoutDirectory::~LayoutDirectory() {
  if (fd_ >= 0) ::close(fd_);
}

bool LayoutDirectory::remove_file(const std::string& name) const {
  // Checked, then removed by name in this directory. The window between the two can
  // only swap in another entry of this (private) directory; unlinkat never follows a
  // link, it removes the link itself.
  return own_regular_file(fd_, name) && ::unlinkat(fd_, name.c_str(), 0) == 0;
}

bool LayoutDirectory::truncate_file(const std::string& name) const {
  const int fd =
      ::openat(fd_, name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  struct stat info {};
  // A hard link to another of the user's files is not ours to empty either.
  const bool ours = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
                    info.st_uid == ::geteuid() && info.st_nlink <= 1;
  const bool emptied = ours && ::ftruncate(fd, 0) == 0;
  ::close(fd);
  return emptied;
}

}  // namespace stubjit::detail
