// The bytes that ranks exchange: strings and numbers, length-prefixed, in the host's
// byte order (the ranks of one job run one build of stubjit). A reader that runs past
// the end throws: a message is never read beyond what was received.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "stubjit/error.hpp"

namespace stubjit::mpi::wire {

class Writer {
 public:
  void number(std::uint64_t value) {
    const char* bytes = reinterpret_cast<const char*>(&value);
    out_.insert(out_.end(), bytes, bytes + sizeof value);
  }
  void text(const std::string& value) { bytes(value.data(), value.size()); }
  void bytes(const char* data, std::size_t size) {
    number(size);
    out_.insert(out_.end(), data, data + size);
  }
  std::vector<char>& buffer() { return out_; }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  Reader(const char* data, std::size_t size) : at_(data), end_(data + size) {}
  std::uint64_t number() {
    std::uint64_t value = 0;
    need(sizeof value);
    std::memcpy(&value, at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string text() {
    const std::uint64_t size = number();
    need(size);
    std::string value(at_, at_ + size);
    at_ += size;
    return value;
  }
  std::vector<char> bytes() {
    const std::uint64_t size = number();
    need(size);
    std::vector<char> value(at_, at_ + size);
    at_ += size;
    return value;
  }
  bool done() const { return at_ == end_; }

 private:
  void need(std::uint64_t size) const {
    if (size > static_cast<std::uint64_t>(end_ - at_))
      throw Error("stubjit::mpi: a message from another rank is truncated");
  }
  const char* at_;
  const char* end_;
};

}  // namespace stubjit::mpi::wire
