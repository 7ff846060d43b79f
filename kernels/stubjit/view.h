// stubjit device-side prelude: how fields of rank >= 1 reach a kernel.
//
// A View is what the kernel body receives for a field parameter of rank >= 1. A stub
// includes this header only when it has such a parameter or its user code may name
// something declared here (src/codegen/prelude.cpp).
#ifndef STUBJIT_VIEW_H
#define STUBJIT_VIEW_H

#include "stubjit/config.h"

namespace stubjit {

// An R-dimensional window onto a field, indexed with name(i0, ..., iR-1).
template <class T, int R, class I = i64>
struct View {
  static constexpr int rank = R;
  T* data;
  I extent_[R];
  I stride_[R];

  template <class... J>
  STUBJIT_HD T& operator()(J... index) const {
    static_assert(sizeof...(J) == R, "a View of rank R takes R indices");
    const I at[R] = {I(index)...};
    I offset = 0;
    for (int d = 0; d < R; ++d) offset += at[d] * stride_[d];
    return data[offset];
  }
  STUBJIT_HD I extent(int d) const { return extent_[d]; }
  STUBJIT_HD I stride(int d) const { return stride_[d]; }
  STUBJIT_HD I size() const {
    I n = 1;
    for (int d = 0; d < R; ++d) n *= extent_[d];
    return n;
  }
};

// View over the trailing R of a field's dimensions (its extents and strides as the
// host packed them), starting at `base` (already offset by any projected leading
// dimensions).
template <class T, int R, class I, int FieldRank>
STUBJIT_HD View<T, R, I> trailing_view(T* base, const i64 (&extent)[FieldRank],
                                       const i64 (&stride)[FieldRank]) {
  View<T, R, I> view;
  view.data = base;
  for (int d = 0; d < R; ++d) {
    view.extent_[d] = I(extent[FieldRank - R + d]);
    view.stride_[d] = I(stride[FieldRank - R + d]);
  }
  return view;
}

// The same view moved by `offset` elements (partial projection: the leading,
// projected dimensions select where the trailing view starts).
template <class T, int R, class I>
STUBJIT_HD View<T, R, I> offset_view(View<T, R, I> view, I offset) {
  view.data += offset;
  return view;
}

// A group-shared array: `extent` (row-major) at `*at` bytes into the group's memory,
// which moves past it (rounded up to 16 bytes). The host sizes the memory by the same
// rule (src/runtime/group_launch.cpp).
template <class T, int R, class I>
STUBJIT_HD View<T, R, I> shared_view(u8* memory, u64& at, const I (&extent)[R]) {
  View<T, R, I> view;
  view.data = reinterpret_cast<T*>(memory + at);
  u64 elements = 1;
  for (int d = R - 1; d >= 0; --d) {
    view.extent_[d] = extent[d];
    view.stride_[d] = I(elements);
    elements *= u64(extent[d]);
  }
  at += (elements * sizeof(T) + 15) / 16 * 16;
  return view;
}

}  // namespace stubjit

#endif  // STUBJIT_VIEW_H
