// The file operations of cache bundles: a descriptor that closes itself, and whole
// reads and writes that go on after EINTR and short transfers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stubjit::detail {

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  // Closes now; "" on success, else the error (a close can report a failed write).
  std::string close();

 private:
  int fd_ = -1;
};

// Reads `size` bytes at `offset`; "" on success, else the error ("ends early" when the
// file is shorter).
std::string read_at(int fd, std::uint64_t offset, std::size_t size, std::vector<char>& bytes);

// Writes all of `data` at the descriptor's position; "" on success, else the error.
std::string write_all(int fd, const char* data, std::size_t size);

// Writes all of `data` at `offset`; "" on success, else the error.
std::string write_at(int fd, std::uint64_t offset, const char* data, std::size_t size);

// Six letters and digits for a temporary file's name.
std::string unique_suffix();

}  // namespace stubjit::detail
