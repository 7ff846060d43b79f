#include "stubjit/domain.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "stubjit/error.hpp"

namespace stubjit {
namespace {

using wide = __int128;
constexpr wide int64_max = std::numeric_limits<std::int64_t>::max();
constexpr wide int64_min = std::numeric_limits<std::int64_t>::min();

bool fits_int64(wide value) { return value >= int64_min && value <= int64_max; }

}  // namespace

const char* name_of(Order order) noexcept { return order == Order::fortran ? "fortran" : "c"; }

Dim Dim::loop(std::int64_t first, std::int64_t last, std::int64_t step) {
  if (step == 0) throw DomainError(-1, "loop step must not be 0");
  const wide distance = wide(last) - wide(first);
  wide count = 0;
  if (step > 0 && distance >= 0) count = distance / step + 1;
  if (step < 0 && distance <= 0) count = (-distance) / (-wide(step)) + 1;
  if (!fits_int64(count)) {
    throw DomainError(-1, "loop " + std::to_string(first) + "," + std::to_string(last) + "," +
                              std::to_string(step) + " has more than 2^63-1 iterations");
  }
  return Dim{first, static_cast<std::int64_t>(count), step};
}

Domain::Domain(std::initializer_list<std::int64_t> counts) {
  if (counts.size() > static_cast<std::size_t>(max_rank)) {
    throw DomainError(-1, "domain rank must be 1.." + std::to_string(max_rank) + ", got " +
                              std::to_string(counts.size()));
  }
  for (std::int64_t count : counts) dims_[static_cast<std::size_t>(rank_++)] = Dim{0, count, 1};
  validate();
}

Domain::Domain(const std::vector<Dim>& dims, Order order) : order_(order) {
  assign(dims.data(), dims.size());
}

Domain::Domain(DimRange dims, Order order) : order_(order) { assign(dims.data(), dims.size()); }

Domain Domain::in_c_order() const noexcept {
  if (order_ == Order::c) return *this;
  Domain reversed = *this;
  for (int d = 0; d < rank_; ++d)
    reversed.dims_[static_cast<std::size_t>(d)] = dims_[static_cast<std::size_t>(rank_ - 1 - d)];
  reversed.order_ = Order::c;
  return reversed;
}

void Domain::assign(const Dim* dims, std::size_t count) {
  if (count > static_cast<std::size_t>(max_rank)) {
    throw DomainError(-1, "domain rank must be 1.." + std::to_string(max_rank) + ", got " +
                              std::to_string(count));
  }
  for (std::size_t d = 0; d < count; ++d) dims_[d] = dims[d];
  rank_ = static_cast<int>(count);
  validate();
}

const Dim& Domain::operator[](int d) const {
  if (d < 0 || d >= rank_) {
    throw DomainError(d, "dimension " + std::to_string(d) + " of a rank-" + std::to_string(rank_) +
                             " domain: dimensions are 0.." + std::to_string(rank_ - 1));
  }
  return dims_[static_cast<std::size_t>(d)];
}

Domain Domain::loops(const std::vector<Loop>& loops, Order order) {
  std::vector<Dim> dims;
  dims.reserve(loops.size());
  for (std::size_t d = 0; d < loops.size(); ++d) {
    try {
      dims.push_back(Dim::loop(loops[d].first, loops[d].last, loops[d].step));
    } catch (const DomainError& error) {
      // The dimension the loop becomes: Fortran order lists the innermost loop first.
      const std::size_t dim = order == Order::fortran ? loops.size() - 1 - d : d;
      throw DomainError(static_cast<int>(dim), "dimension " + std::to_string(dim) + " (loop " +
                                                   std::to_string(d) +
                                                   " of the nest): " + error.what());
    }
  }
  // Fortran order lists the dimensions fastest first: the innermost loop first.
  if (order == Order::fortran) std::reverse(dims.begin(), dims.end());
  return Domain(dims, order);
}

void Domain::validate() {
  if (order_ != Order::c && order_ != Order::fortran) {
    throw DomainError(-1, "domain order " + std::to_string(static_cast<int>(order_)) +
                              " is no Order (c or fortran)");
  }
  if (rank_ == 0 || rank_ > max_rank) {
    throw DomainError(-1, "domain rank must be 1.." + std::to_string(max_rank) + ", got " +
                              std::to_string(rank()));
  }
  wide total = 1;
  bool any_empty = false;
  for (int d = 0; d < rank(); ++d) {
    const Dim& dim = dims_[static_cast<std::size_t>(d)];
    const std::string where = "dimension " + std::to_string(d);
    if (dim.count < 0) {
      throw DomainError(d, where + " has negative count " + std::to_string(dim.count));
    }
    if (dim.step == 0) throw DomainError(d, where + " has step 0");
    if (dim.count == 0) {
      any_empty = true;
      continue;
    }
    const wide last = wide(dim.first) + wide(dim.step) * wide(dim.count - 1);
    if (!fits_int64(last)) {
      throw DomainError(d, where + ": logical index " + std::to_string(dim.first) + " + " +
                               std::to_string(dim.step) + "*(" + std::to_string(dim.count) +
                               "-1) overflows int64");
    }
    if (total <= int64_max) total *= dim.count;  // saturates once above int64
  }
  if (!any_empty && total > int64_max) {
    throw DomainError(-1, "domain " + to_string() + " has more than 2^63-1 indices");
  }
  size_ = any_empty ? 0 : static_cast<std::int64_t>(total);
}

std::string Domain::to_string() const {
  std::ostringstream out;
  out << '[';
  for (std::size_t d = 0; d < static_cast<std::size_t>(rank_); ++d) {
    if (d) out << ", ";
    out << dims_[d].first << ':' << dims_[d].count << ':' << dims_[d].step;
  }
  out << ']';
  if (order_ == Order::fortran) out << " fortran";
  return out.str();
}

}  // namespace stubjit
