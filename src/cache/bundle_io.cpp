#include "cache/bundle_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace stubjit::detail {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

std::string FileDescriptor::close() {
  if (fd_ < 0) return {};
  const int rc = ::close(std::exchange(fd_, -1));
  return rc == 0 ? std::string() : std::strerror(errno);
}

std::string read_at(int fd, std::uint64_t offset, std::size_t size, std::vector<char>& bytes) {
  bytes.resize(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, bytes.data() + done, size - done, off_t(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::strerror(errno);
    if (got == 0) return "ends early";
    done += std::size_t(got);
  }
  return {};
}

std::string write_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t put = ::write(fd, data + done, size - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return std::strerror(errno);
    done += std::size_t(put);
  }
  return {};
}

std::string write_at(int fd, std::uint64_t offset, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t put = ::pwrite(fd, data + done, size - done, off_t(offset + done));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return std::strerror(errno);
    done += std::size_t(put);
  }
  return {};
}

std::string unique_suffix() {
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof letters - 2);
  std::string suffix;
  for (int i = 0; i < 6; ++i) suffix += letters[pick(generator)];
  return suffix;
}

}  // namespace stubjit::detail
