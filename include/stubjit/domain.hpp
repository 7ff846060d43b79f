// The compute domain: an N-dimensional box of logical indices, each dimension an
// arithmetic sequence first + step*k for k < count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "stubjit/export.hpp"

namespace stubjit {

// One dimension of a compute domain. count may be 0; step may be negative, never 0.
struct STUBJIT_API Dim {
  std::int64_t first = 0;
  std::int64_t count = 0;
  std::int64_t step = 1;

  // A Fortran loop `do i = first, last, step`: last is inclusive, and a step that
  // runs away from last gives count 0, as Fortran does. Throws DomainError on
  // step 0 or when the count does not fit in 64 bits.
  static Dim loop(std::int64_t first, std::int64_t last, std::int64_t step = 1);

  // Logical index of position k (0 <= k < count). In wrapping arithmetic: step * k
  // alone may overflow where the index does not (first = INT64_MIN, step = INT64_MAX,
  // k = 2 is INT64_MAX - 1), and a Domain checks that every logical index fits.
  std::int64_t at(std::int64_t k) const noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(first) +
                                     static_cast<std::uint64_t>(step) *
                                         static_cast<std::uint64_t>(k));
  }
};

// Inclusive bounds of a Fortran-style loop, for Domain::loops.
struct Loop {
  std::int64_t first;
  std::int64_t last;
  std::int64_t step = 1;
};

// The dimensions of a domain, outermost first: a view that iterates like a container.
class DimRange {
 public:
  DimRange(const Dim* first, const Dim* last) noexcept : first_(first), last_(last) {}
  const Dim* begin() const noexcept { return first_; }
  const Dim* end() const noexcept { return last_; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(last_ - first_); }
  bool empty() const noexcept { return first_ == last_; }
  const Dim* data() const noexcept { return first_; }
  const Dim& operator[](std::size_t d) const noexcept { return first_[d]; }
  const Dim& front() const noexcept { return first_[0]; }
  const Dim& back() const noexcept { return last_[-1]; }
  // A copy, as the container older versions returned.
  std::vector<Dim> to_vector() const { return std::vector<Dim>(first_, last_); }

 private:
  const Dim* first_;
  const Dim* last_;
};

// A compute domain of rank 1..max_rank, chosen at run time. The constructors
// validate everything a launch relies on, so a Domain that exists is always
// launchable: counts >= 0, steps != 0, the total number of indices and every
// logical index fit in int64. The dimensions are kept inline: making, copying and
// launching over a Domain allocates nothing.
class STUBJIT_API Domain {
 public:
  static constexpr int max_rank = 8;

  // Dimensions with first 0 and step 1: Domain{rows, cols}.
  Domain(std::initializer_list<std::int64_t> counts);
  explicit Domain(const std::vector<Dim>& dims);
  // The same from a range of dimensions, without allocating.
  explicit Domain(DimRange dims);
  // Fortran loop nest, outermost first: Domain::loops({{1, n}, {n, 1, -1}}).
  static Domain loops(const std::vector<Loop>& loops);

  int rank() const noexcept { return rank_; }
  // Throws DomainError (naming d) for d outside 0..rank()-1.
  const Dim& operator[](int d) const;
  DimRange dims() const noexcept { return {dims_.data(), dims_.data() + rank_}; }
  // Number of logical indices: the product of the counts.
  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // "[0:4:1, 10:3:-2]" (first:count:step per dimension).
  std::string to_string() const;

 private:
  // Copies `count` dimensions in (DomainError beyond max_rank), then validates.
  void assign(const Dim* dims, std::size_t count);
  void validate();
  std::array<Dim, max_rank> dims_{};
  int rank_ = 0;
  std::int64_t size_ = 0;
};

}  // namespace stubjit
