#include "bind/overlap.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "stubjit/signature.hpp"

namespace stubjit::detail {
namespace {

using wide = __int128;

// A field as a set of byte addresses: base + sum of k_d * stride_d, every stride
// positive (a negative one is walked from its other end; a stride-0 or extent-1
// dimension adds no address and is dropped), in bytes.
struct AddressSet {
  wide base = 0;
  int rank = 0;
  std::array<wide, max_field_rank> extent{};
  std::array<wide, max_field_rank> stride{};
  wide element = 1;

  wide low() const { return base; }
  // One past the last byte.
  wide high() const {
    wide reach = base + element;
    for (int d = 0; d < rank; ++d) reach += (extent[std::size_t(d)] - 1) * stride[std::size_t(d)];
    return reach;
  }
  int largest() const {  // the dimension of the largest stride; -1 for a single element
    int at = -1;
    for (int d = 0; d < rank; ++d)
      if (at < 0 || stride[std::size_t(d)] > stride[std::size_t(at)]) at = d;
    return at;
  }
  AddressSet without(int d, wide shift) const {  // the slice along d, moved by shift
    AddressSet slice = *this;
    slice.base += shift;
    for (int k = d; k + 1 < rank; ++k) {
      slice.extent[std::size_t(k)] = extent[std::size_t(k + 1)];
      slice.stride[std::size_t(k)] = stride[std::size_t(k + 1)];
    }
    --slice.rank;
    return slice;
  }
};

AddressSet address_set(const Field& field) {
  AddressSet set;
  set.element = static_cast<wide>(size_of(field.type()));
  set.base = static_cast<wide>(reinterpret_cast<std::uintptr_t>(field.data()));
  for (int d = 0; d < field.rank(); ++d) {
    const wide extent = field.extent(d);
    const wide stride = wide(field.stride(d)) * set.element;
    if (extent <= 1 || stride == 0) continue;
    if (stride < 0) set.base += (extent - 1) * stride;
    set.extent[std::size_t(set.rank)] = extent;
    set.stride[std::size_t(set.rank)] = stride < 0 ? -stride : stride;
    ++set.rank;
  }
  return set;
}

wide floor_div(wide a, wide b) {  // b > 0
  const wide q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

wide ceil_div(wide a, wide b) { return -floor_div(-a, b); }

wide gcd(wide a, wide b) {
  while (b != 0) {
    const wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

class Search {
 public:
  // Every call is a step, so that no loop below runs past the limit.
  std::optional<SharedElement> run(const AddressSet& a, const AddressSet& b) {
    if (++steps_ > overlap_step_limit) return SharedElement{false, 0};
    if (!meet(a, b)) return std::nullopt;
    if (apart_by_residue(a, b)) return std::nullopt;
    const int da = a.largest();
    const int db = b.largest();
    if (da < 0 && db < 0)  // two elements whose bytes meet
      return SharedElement{true, static_cast<std::uintptr_t>(std::max(a.base, b.base))};
    if (da >= 0 && db >= 0 && a.stride[std::size_t(da)] == b.stride[std::size_t(db)])
      return paired(a, da, b, db);
    // Split the one with the larger stride; only its slices that meet the other.
    const bool split_a =
        db < 0 || (da >= 0 && a.stride[std::size_t(da)] > b.stride[std::size_t(db)]);
    const AddressSet& big = split_a ? a : b;
    const AddressSet& other = split_a ? b : a;
    const int d = split_a ? da : db;
    const wide step = big.stride[std::size_t(d)];
    const AddressSet first = big.without(d, 0);
    // Slice k covers [first.low() + k*step, first.high() + k*step): it meets `other`
    // where first.low() + k*step < other.high() and first.high() + k*step > other.low().
    const wide from = std::max<wide>(0, floor_div(other.low() - first.high(), step) + 1);
    const wide to = std::min<wide>(big.extent[std::size_t(d)] - 1,
                                   ceil_div(other.high() - first.low(), step) - 1);
    for (wide k = from; k <= to; ++k) {
      if (auto found = run(big.without(d, k * step), other)) return found;
      if (steps_ > overlap_step_limit) return SharedElement{false, 0};
    }
    return std::nullopt;
  }

 private:
  static bool meet(const AddressSet& a, const AddressSet& b) {
    return a.low() < b.high() && b.low() < a.high();
  }

  // Every address of a is a.base mod g, of b b.base mod g: elements a and b meet only
  // where b - a lies in (-b.element, a.element).
  static bool apart_by_residue(const AddressSet& a, const AddressSet& b) {
    wide g = 0;
    for (int d = 0; d < a.rank; ++d) g = gcd(g, a.stride[std::size_t(d)]);
    for (int d = 0; d < b.rank; ++d) g = gcd(g, b.stride[std::size_t(d)]);
    if (g == 0) return false;
    wide r = (b.base - a.base) % g;
    if (r < 0) r += g;
    return r >= a.element && r <= g - b.element;
  }

  // Both largest strides are L: slice i of a and slice j of b differ by (j - i) * L
  // plus the bases' difference whatever i is, so each offset j - i = s that some pair
  // has is checked once, on the first slices moved by s * L.
  std::optional<SharedElement> paired(const AddressSet& a, int da, const AddressSet& b, int db) {
    const wide step = a.stride[std::size_t(da)];
    const AddressSet inner_a = a.without(da, 0);
    const AddressSet inner_b = b.without(db, 0);
    // inner_b moved by s*L meets inner_a where inner_b.low() + s*L < inner_a.high()
    // and inner_b.high() + s*L > inner_a.low(); s from -(extent_a - 1) to extent_b - 1.
    const wide from = std::max<wide>(-(a.extent[std::size_t(da)] - 1),
                                     floor_div(inner_a.low() - inner_b.high(), step) + 1);
    const wide to = std::min<wide>(b.extent[std::size_t(db)] - 1,
                                   ceil_div(inner_a.high() - inner_b.low(), step) - 1);
    for (wide s = from; s <= to; ++s) {
      AddressSet moved = inner_b;
      moved.base += s * step;
      if (auto found = run(inner_a, moved)) {
        if (!found->proven) return found;
        // A pair with offset s: slices i of a and i + s of b for some i; the byte
        // found lies in slice 0 of a and slice s of b, or is moved to a pair that exists.
        const wide i = s < 0 ? -s : 0;
        found->address = static_cast<std::uintptr_t>(wide(found->address) + i * step);
        return found;
      }
      if (steps_ > overlap_step_limit) return SharedElement{false, 0};
    }
    return std::nullopt;
  }

  int steps_ = 0;
};

}  // namespace

std::optional<SharedElement> shared_element(const Field& a, const Field& b) {
  if (a.size() == 0 || b.size() == 0) return std::nullopt;
  return Search().run(address_set(a), address_set(b));
}

}  // namespace stubjit::detail
