// Element types a kernel can take, and their mapping from C++ types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stubjit/export.hpp"

namespace stubjit {

// The first five keep their values (they are in cache keys and files); the others
// follow in the order they came.
enum class ElementType : std::uint8_t { f32, f64, i32, i64, u32, i8, u8, i16, u16, u64, boolean };

STUBJIT_API std::size_t size_of(ElementType type) noexcept;
// The spelling used in messages and signatures: "float", "double", "int32", ...
STUBJIT_API const char* name_of(ElementType type) noexcept;

namespace detail {
template <class T>
constexpr bool always_false = false;

template <class T>
constexpr ElementType element_type_of() {
  using U = std::remove_cv_t<T>;
  // Character types are text, and plain char's signedness depends on the platform:
  // std::int8_t and std::uint8_t (signed and unsigned char) are the byte types.
  constexpr bool character = std::is_same_v<U, char> || std::is_same_v<U, wchar_t> ||
                             std::is_same_v<U, char16_t> || std::is_same_v<U, char32_t>;
  constexpr bool integer = std::is_integral_v<U> && !std::is_same_v<U, bool> && !character;
  constexpr bool is_signed = std::is_signed_v<U>;
  if constexpr (std::is_same_v<U, float>)
    return ElementType::f32;
  else if constexpr (std::is_same_v<U, double>)
    return ElementType::f64;
  else if constexpr (std::is_same_v<U, bool>)
    return ElementType::boolean;
  else if constexpr (integer && is_signed && sizeof(U) == 1)
    return ElementType::i8;
  else if constexpr (integer && is_signed && sizeof(U) == 2)
    return ElementType::i16;
  else if constexpr (integer && is_signed && sizeof(U) == 4)
    return ElementType::i32;
  else if constexpr (integer && is_signed && sizeof(U) == 8)
    return ElementType::i64;
  else if constexpr (integer && !is_signed && sizeof(U) == 1)
    return ElementType::u8;
  else if constexpr (integer && !is_signed && sizeof(U) == 2)
    return ElementType::u16;
  else if constexpr (integer && !is_signed && sizeof(U) == 4)
    return ElementType::u32;
  else if constexpr (integer && !is_signed && sizeof(U) == 8)
    return ElementType::u64;
  else
    static_assert(always_false<T>,
                  "stubjit supports float, double, bool and 8- to 64-bit integer elements "
                  "(std::int8_t / std::uint8_t for bytes, not char)");
}
}  // namespace detail

// ElementType of a C++ type; a compile error for unsupported types.
template <class T>
inline constexpr ElementType element_type_v = detail::element_type_of<T>();

}  // namespace stubjit
