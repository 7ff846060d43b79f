// A directory of the cache's layout reached through descriptors, for removing and
// truncating files: the root (which may itself be a link, as the user chose), then each
// level opened relative to the one above with O_NOFOLLOW | O_DIRECTORY and checked
// private (owned by the effective user, writable by nobody else). Files are then acted
// on by name relative to that descriptor, and only when they are regular files of the
// effective user: a link, at any level or in place of a file, is never followed, and
// whatever is swapped in between a scan and the removal cannot redirect it.
#pragma once

#include <optional>
#include <string>

namespace stubjit::detail {

class LayoutDirectory {
 public:
  // `directory`: "" for the root, else "<backend>/<target>/<mode>-r<rank>" (or a
  // prefix of it). nullopt when any level is missing, a link, not a directory or not
  // private; `problem` (if given) says which and why.
  static std::optional<LayoutDirectory> open(const std::string& root, const std::string& directory,
                                             std::string* problem = nullptr);
  LayoutDirectory(LayoutDirectory&& other) noexcept;
  LayoutDirectory& operator=(LayoutDirectory&& other) noexcept;
  LayoutDirectory(const LayoutDirectory&) = delete;
  LayoutDirectory& operator=(const LayoutDirectory&) = delete;
  ~LayoutDirectory();

  int descriptor() const noexcept { return fd_; }

  // Removes `name` if it is a regular file owned by the effective user; true when it
  // was removed. Anything else (missing, a link, a directory, another user's file) is
  // left alone.
  bool remove_file(const std::string& name) const;
  // Empties `name` under the same rule (opened with O_NOFOLLOW, truncated through its
  // descriptor); true when it was.
  bool truncate_file(const std::string& name) const;

 private:
  explicit LayoutDirectory(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace stubjit::detail
