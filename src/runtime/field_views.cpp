// Field views: transpose, permute, spread, section and slice. Each is the same memory
// with other extents, strides and offset (docs/views.md).
#include <limits>
#include <string>

#include "stubjit/field.hpp"
#include "stubjit/signature.hpp"

namespace stubjit {
namespace {

using wide = __int128;
constexpr wide int64_max = std::numeric_limits<std::int64_t>::max();

}  // namespace

void Field::check_dimension(const char* what, int d, int limit) const {
  if (!*this) throw FieldError(std::string(what) + " of a null field");
  if (d < 0 || d >= limit) {
    throw FieldError(std::string(what) + ": dimension " + std::to_string(d) + " of a rank-" +
                     std::to_string(rank()) + " field (valid 0.." + std::to_string(limit - 1) +
                     ")");
  }
}

Field Field::view(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides,
                  std::int64_t offset) const {
  wide size = 1;
  for (std::int64_t extent : extents) {
    size *= extent;
    if (size * static_cast<wide>(size_of(type_)) > int64_max)
      throw FieldError("view extents overflow: more than 2^63-1 bytes");
  }
  Field view = *this;
  view.extents_ = std::move(extents);
  view.strides_ = std::move(strides);
  view.size_ = static_cast<std::int64_t>(size);
  // Within the field's own reach: offset * element size fits as the field's does.
  view.data_ = static_cast<unsigned char*>(data_) +
               static_cast<std::ptrdiff_t>(offset) * static_cast<std::ptrdiff_t>(size_of(type_));
  return view;
}

Field Field::transpose(int d1, int d2) const {
  check_dimension("transpose", d1, rank());
  check_dimension("transpose", d2, rank());
  std::vector<int> order(static_cast<std::size_t>(rank()));
  for (int d = 0; d < rank(); ++d) order[std::size_t(d)] = d;
  std::swap(order[std::size_t(d1)], order[std::size_t(d2)]);
  return permute(order);
}

Field Field::permute(const std::vector<int>& order) const {
  if (!*this) throw FieldError("permute of a null field");
  if (order.size() != extents_.size()) {
    throw FieldError("permute: " + std::to_string(order.size()) + " dimensions given for a rank-" +
                     std::to_string(rank()) + " field");
  }
  std::vector<bool> seen(order.size(), false);
  std::vector<std::int64_t> extents, strides;
  for (int d : order) {
    check_dimension("permute", d, rank());
    if (seen[std::size_t(d)])
      throw FieldError("permute: dimension " + std::to_string(d) + " is given twice");
    seen[std::size_t(d)] = true;
    extents.push_back(extents_[std::size_t(d)]);
    strides.push_back(strides_[std::size_t(d)]);
  }
  return view(std::move(extents), std::move(strides), 0);
}

Field Field::spread(int dim, std::int64_t extent) const {
  check_dimension("spread", dim, rank() + 1);
  if (rank() + 1 > max_field_rank) {
    throw FieldError("spread: a rank-" + std::to_string(rank()) +
                     " field has no room for another dimension (rank at most " +
                     std::to_string(max_field_rank) + ")");
  }
  if (extent < 0) throw FieldError("spread: negative extent " + std::to_string(extent));
  std::vector<std::int64_t> extents = extents_, strides = strides_;
  extents.insert(extents.begin() + dim, extent);
  strides.insert(strides.begin() + dim, 0);
  return view(std::move(extents), std::move(strides), 0);
}

Field Field::section(int dim, std::int64_t first, std::int64_t last, std::int64_t step) const {
  check_dimension("section", dim, rank());
  const std::string where = "section of dimension " + std::to_string(dim) + " (extent " +
                            std::to_string(extent(dim)) + ")";
  if (step == 0) throw FieldError(where + ": step 0");
  const wide distance = wide(last) - wide(first);
  wide count = 0;
  if (step > 0 && distance >= 0) count = distance / step + 1;
  if (step < 0 && distance <= 0) count = -distance / -wide(step) + 1;
  const std::int64_t n = extent(dim);
  if (count > 0) {
    const wide reached = wide(first) + wide(step) * (count - 1);
    if (first < 0 || first >= n || reached < 0 || reached >= n) {
      throw FieldError(
          where + ": " + std::to_string(first) + ":" + std::to_string(last) + ":" +
          std::to_string(step) + " reaches index " +
          std::to_string(first < 0 || first >= n ? first : static_cast<std::int64_t>(reached)) +
          ", outside 0.." + std::to_string(n - 1));
    }
  }
  std::vector<std::int64_t> extents = extents_, strides = strides_;
  extents[std::size_t(dim)] = static_cast<std::int64_t>(count);
  // |step| < n here (or count <= 1), so the stride stays within the field's reach.
  strides[std::size_t(dim)] =
      count > 1 ? strides_[std::size_t(dim)] * step : strides_[std::size_t(dim)];
  return view(std::move(extents), std::move(strides),
              count > 0 ? first * strides_[std::size_t(dim)] : 0);
}

Field Field::slice(int dim, std::int64_t i) const {
  check_dimension("slice", dim, rank());
  if (i < 0 || i >= extent(dim)) {
    throw FieldError("slice of dimension " + std::to_string(dim) + " at index " +
                     std::to_string(i) + ", outside 0.." + std::to_string(extent(dim) - 1));
  }
  std::vector<std::int64_t> extents = extents_, strides = strides_;
  extents.erase(extents.begin() + dim);
  strides.erase(strides.begin() + dim);
  return view(std::move(extents), std::move(strides), i * strides_[std::size_t(dim)]);
}

}  // namespace stubjit
