// stubjit device-side prelude: the packed argument slots.
//
// A FieldSlot is what the host packs for one field argument, a ScalarSlot one scalar;
// their layout is part of the host/device contract (the host computes the same
// offsets, src/bind/arg_layout.hpp, and every stub static_asserts them). Every stub
// declares its arguments with them.
#ifndef STUBJIT_SLOT_H
#define STUBJIT_SLOT_H

#include "stubjit/config.h"

namespace stubjit {

// Packed argument of a field of actual rank R: base pointer, then extents and
// strides in elements. 8-byte slots, no padding.
template <class T, int R>
struct FieldSlot {
  T* data;
  i64 extent[R];
  i64 stride[R];
};

template <class T>
struct FieldSlot<T, 0> {
  T* data;
};

// Packed scalar argument: the value in the low bytes of an 8-byte slot.
template <class T>
struct alignas(8) ScalarSlot {
  T value;
};

}  // namespace stubjit

#endif  // STUBJIT_SLOT_H
