// A fuzzer's bytes read as a sequence of small decisions. Past the end every read gives
// zero, so any input, the empty one included, decodes to some case: the fuzzer's
// mutations then move between cases rather than falling off the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace stubjit::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  std::uint64_t u64() noexcept { return bytes(8); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(bytes(4)); }
  std::uint8_t u8() noexcept { return static_cast<std::uint8_t>(bytes(1)); }
  bool flag() noexcept { return (u8() & 1) != 0; }
  // In [0, bound); bound must be at least 1. Bounds up to 256 take one byte.
  std::uint64_t below(std::uint64_t bound) noexcept {
    const std::uint64_t raw = bound <= 256 ? u8() : bound <= (1ull << 32) ? u32() : u64();
    return raw % bound;
  }
  // In [low, high].
  std::int64_t between(std::int64_t low, std::int64_t high) noexcept {
    const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    const std::uint64_t offset = span == ~std::uint64_t(0) ? u64() : below(span + 1);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + offset);
  }
  // Every byte not read yet.
  std::string rest() {
    std::string text(reinterpret_cast<const char*>(data_ + used_), size_ - used_);
    used_ = size_;
    return text;
  }

 private:
  // The next n bytes, little-endian; zeros past the end.
  std::uint64_t bytes(std::size_t n) noexcept {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < n && used_ < size_; ++i)
      value |= std::uint64_t(data_[used_++]) << (8 * i);
    return value;
  }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace stubjit::fuzz
