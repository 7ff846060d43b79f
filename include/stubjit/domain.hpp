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

// Which logical dimension of a domain varies fastest: the one a GPU's x threads (and a
// CPU stub's innermost loop) step through, and the one that should be contiguous in the
// fields the domain projects. C order: the last, as in a row-major array a[j][i].
// Fortran order: the first, as in a column-major array a(i, j).
enum class Order : std::uint8_t { c, fortran };

STUBJIT_API const char* name_of(Order order) noexcept;

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
//
// Dimension d of a domain always binds dimension d of the fields it projects, and is
// dimension d of the kernel's index token, whatever the order. The order says which
// dimension is fastest (see Order): a Fortran-order domain over column-major fields
// lines up with them as a C-order domain does with row-major ones.
class STUBJIT_API Domain {
 public:
  static constexpr int max_rank = 8;

  // Dimensions with first 0 and step 1: Domain{rows, cols}.
  Domain(std::initializer_list<std::int64_t> counts);
  explicit Domain(const std::vector<Dim>& dims, Order order = Order::c);
  // The same from a range of dimensions, without allocating.
  explicit Domain(DimRange dims, Order order = Order::c);
  // A loop nest as written, outermost loop first: Domain::loops({{1, n}, {n, 1, -1}}).
  // In C order (the default) dimension d is the d-th loop, so the innermost loop is
  // the last dimension. In Fortran order the dimensions are the loops innermost first:
  // for `do j = 1, n; do i = 1, m` the index token's p[0] is i and p[1] is j, as in
  // the subscripts of a column-major a(i, j), and i is still the fastest.
  static Domain loops(const std::vector<Loop>& loops, Order order = Order::c);

  int rank() const noexcept { return rank_; }
  Order order() const noexcept { return order_; }
  // The same logical indices as a C-order domain: a Fortran-order domain's dimensions
  // in reverse (its index (i, j, k) is the result's (k, j, i)); a C-order domain as is.
  Domain in_c_order() const noexcept;
  // Throws DomainError (naming d) for d outside 0..rank()-1.
  const Dim& operator[](int d) const;
  DimRange dims() const noexcept { return {dims_.data(), dims_.data() + rank_}; }
  // Number of logical indices: the product of the counts.
  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // "[0:4:1, 10:3:-2]" (first:count:step per dimension), with " fortran" after a
  // Fortran-order domain.
  std::string to_string() const;

 private:
  // Copies `count` dimensions in (DomainError beyond max_rank), then validates.
  void assign(const Dim* dims, std::size_t count);
  void validate();
  std::array<Dim, max_rank> dims_{};
  int rank_ = 0;
  std::int64_t size_ = 0;
  Order order_ = Order::c;
};

}  // namespace stubjit
