// Element types a kernel can take, and their mapping from C++ types.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stubjit/export.hpp"
#include "stubjit/half.hpp"

namespace stubjit {

// The first five keep their values (they are in cache keys and files); the others
// follow in the order they came. Host types: float16 and bfloat16 are half.hpp's (or
// the compiler's _Float16), complex_f32 and complex_f64 are std::complex<float> and
// std::complex<double> (two values, real part first, as C and Fortran lay them out).
enum class ElementType : std::uint8_t {
  f32,
  f64,
  i32,
  i64,
  u32,
  i8,
  u8,
  i16,
  u16,
  u64,
  boolean,
  float16,
  bfloat16,
  complex_f32,
  complex_f64
};

STUBJIT_API std::size_t size_of(ElementType type) noexcept;
// The spelling used in messages and signatures: "float", "double", "int32", ...,
// "float16", "bfloat16", "complex<float>", "complex<double>".
STUBJIT_API const char* name_of(ElementType type) noexcept;

namespace detail {
// The ElementType of T, or none.
struct ElementTypeMatch {
  bool found;
  ElementType type;
};

template <class T>
constexpr ElementTypeMatch match_element_type() {
  using U = std::remove_cv_t<T>;
  // Character types are text, and plain char's signedness depends on the platform:
  // std::int8_t and std::uint8_t (signed and unsigned char) are the byte types.
  constexpr bool character = std::is_same_v<U, char> || std::is_same_v<U, wchar_t> ||
                             std::is_same_v<U, char16_t> || std::is_same_v<U, char32_t>;
  constexpr bool integer = std::is_integral_v<U> && !std::is_same_v<U, bool> && !character;
  constexpr bool is_signed = std::is_signed_v<U>;
  if constexpr (std::is_same_v<U, float>)
    return {true, ElementType::f32};
  else if constexpr (std::is_same_v<U, double>)
    return {true, ElementType::f64};
  else if constexpr (std::is_same_v<U, bool>)
    return {true, ElementType::boolean};
  else if constexpr (std::is_same_v<U, float16>)
    return {true, ElementType::float16};
#if STUBJIT_HOST_HAS_FLOAT16
  else if constexpr (std::is_same_v<U, _Float16>)
    return {true, ElementType::float16};
#endif
  else if constexpr (std::is_same_v<U, bfloat16>)
    return {true, ElementType::bfloat16};
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return {true, ElementType::complex_f32};
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return {true, ElementType::complex_f64};
  else if constexpr (integer && is_signed && sizeof(U) == 1)
    return {true, ElementType::i8};
  else if constexpr (integer && is_signed && sizeof(U) == 2)
    return {true, ElementType::i16};
  else if constexpr (integer && is_signed && sizeof(U) == 4)
    return {true, ElementType::i32};
  else if constexpr (integer && is_signed && sizeof(U) == 8)
    return {true, ElementType::i64};
  else if constexpr (integer && !is_signed && sizeof(U) == 1)
    return {true, ElementType::u8};
  else if constexpr (integer && !is_signed && sizeof(U) == 2)
    return {true, ElementType::u16};
  else if constexpr (integer && !is_signed && sizeof(U) == 4)
    return {true, ElementType::u32};
  else if constexpr (integer && !is_signed && sizeof(U) == 8)
    return {true, ElementType::u64};
  else
    return {false, ElementType::f32};
}

template <class T>
inline constexpr bool is_element_v = match_element_type<T>().found;

template <class T>
constexpr ElementType element_type_of() {
  static_assert(is_element_v<T>,
                "stubjit supports float, double, float16, bfloat16, std::complex<float>, "
                "std::complex<double>, bool and 8- to 64-bit integer elements "
                "(std::int8_t / std::uint8_t for bytes, not char)");
  return match_element_type<T>().type;
}
}  // namespace detail

// ElementType of a C++ type; a compile error for unsupported types.
template <class T>
inline constexpr ElementType element_type_v = detail::element_type_of<T>();

}  // namespace stubjit
