// The bindings of a launch, one per parameter, kept inline (2 bits each): what a
// launch compares and hashes on every call, so it must not allocate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "stubjit/signature.hpp"

namespace stubjit::detail {

class BindingList {
 public:
  static constexpr std::size_t capacity = max_kernel_parameters;

  BindingList() = default;
  BindingList(std::initializer_list<Binding> bindings) {
    resize(bindings.size());
    std::size_t i = 0;
    for (Binding b : bindings) set(i++, b);
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // New elements are Binding::scalar. At most `capacity` (signatures are validated
  // against max_kernel_parameters before anything is bound).
  void resize(std::size_t size) noexcept {
    for (std::size_t i = size; i < size_; ++i) set(i, Binding::scalar);
    size_ = static_cast<std::uint16_t>(size < capacity ? size : capacity);
  }
  Binding operator[](std::size_t i) const noexcept {
    return static_cast<Binding>((words_[i / per_word] >> shift(i)) & 3u);
  }
  void set(std::size_t i, Binding binding) noexcept {
    std::uint64_t& word = words_[i / per_word];
    word = (word & ~(std::uint64_t(3) << shift(i))) |
           (std::uint64_t(static_cast<std::uint8_t>(binding) & 3u) << shift(i));
  }
  // Unused slots are always zero, so whole words compare and hash.
  bool operator==(const BindingList& other) const noexcept {
    return size_ == other.size_ && words_ == other.words_;
  }
  bool operator!=(const BindingList& other) const noexcept { return !(*this == other); }
  const std::array<std::uint64_t, capacity / 32>& words() const noexcept { return words_; }

 private:
  static constexpr std::size_t per_word = 32;
  static constexpr unsigned shift(std::size_t i) noexcept {
    return static_cast<unsigned>(2 * (i % per_word));
  }
  std::array<std::uint64_t, capacity / 32> words_{};
  std::uint16_t size_ = 0;
};

static_assert(static_cast<int>(Binding::index) < 4, "a binding must fit in 2 bits");

}  // namespace stubjit::detail
