// Whether a value of a public enum is one of its enumerators. A value cast from an
// integer (a C caller, a bad cast, a corrupt file) is refused where it enters the
// library, before it can pick a code path by accident. Written as switches, so that a
// new enumerator not added here is a compiler warning (-Wswitch).
#pragma once

#include "stubjit/field.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/signature.hpp"
#include "stubjit/types.hpp"

namespace stubjit::detail {

inline bool is_valid(ElementType value) noexcept {
  switch (value) {
    case ElementType::f32:
    case ElementType::f64:
    case ElementType::i32:
    case ElementType::i64:
    case ElementType::u32:
    case ElementType::i8:
    case ElementType::u8:
    case ElementType::i16:
    case ElementType::u16:
    case ElementType::u64:
    case ElementType::boolean:
    case ElementType::float16:
    case ElementType::bfloat16:
    case ElementType::complex_f32:
    case ElementType::complex_f64:
      return true;
  }
  return false;
}

inline bool is_valid(Specialize value) noexcept {
  switch (value) {
    case Specialize::at_launch:
    case Specialize::background:
      return true;
  }
  return false;
}

inline bool is_valid(ParamKind value) noexcept {
  switch (value) {
    case ParamKind::scalar:
    case ParamKind::field:
    case ParamKind::index:
    case ParamKind::tile_index:
    case ParamKind::local_index:
    case ParamKind::group:
    case ParamKind::shared:
      return true;
  }
  return false;
}

inline bool is_valid(Combiner value) noexcept {
  switch (value) {
    case Combiner::none:
    case Combiner::sum:
    case Combiner::product:
    case Combiner::min:
    case Combiner::max:
    case Combiner::bit_and:
    case Combiner::bit_or:
    case Combiner::bit_xor:
    case Combiner::any:
    case Combiner::all:
    case Combiner::custom:
      return true;
  }
  return false;
}

inline bool is_valid(ScanKind value) noexcept {
  switch (value) {
    case ScanKind::none:
    case ScanKind::inclusive:
    case ScanKind::exclusive:
      return true;
  }
  return false;
}

inline bool is_valid(SortOrder value) noexcept {
  switch (value) {
    case SortOrder::none:
    case SortOrder::ascending:
    case SortOrder::descending:
    case SortOrder::custom:
      return true;
  }
  return false;
}

inline bool is_valid(ReduceUpdate value) noexcept {
  switch (value) {
    case ReduceUpdate::combine:
    case ReduceUpdate::assign:
      return true;
  }
  return false;
}

inline bool is_valid(Access value) noexcept {
  switch (value) {
    case Access::read_only:
    case Access::read_write:
      return true;
  }
  return false;
}

inline bool is_valid(Binding value) noexcept {
  switch (value) {
    case Binding::scalar:
    case Binding::broadcast:
    case Binding::projection:
    case Binding::index:
      return true;
  }
  return false;
}

inline bool is_valid(Mode value) noexcept {
  switch (value) {
    case Mode::direct:
    case Mode::spread:
    case Mode::multi:
      return true;
  }
  return false;
}

inline bool is_valid(Layout value) noexcept {
  switch (value) {
    case Layout::row_major:
    case Layout::column_major:
      return true;
  }
  return false;
}

// "9": the number a value holds, for messages.
template <class Enum>
std::string number_of(Enum value) {
  return std::to_string(static_cast<long long>(value));
}

}  // namespace stubjit::detail
