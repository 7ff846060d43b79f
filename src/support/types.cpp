#include "stubjit/types.hpp"

namespace stubjit {

std::size_t size_of(ElementType type) noexcept {
  switch (type) {
    case ElementType::i8:
    case ElementType::u8:
    case ElementType::boolean:
      return 1;
    case ElementType::i16:
    case ElementType::u16:
    case ElementType::float16:
    case ElementType::bfloat16:
      return 2;
    case ElementType::f32:
    case ElementType::i32:
    case ElementType::u32:
      return 4;
    case ElementType::f64:
    case ElementType::i64:
    case ElementType::u64:
    case ElementType::complex_f32:
      return 8;
    case ElementType::complex_f64:
      return 16;
  }
  return 0;
}

const char* name_of(ElementType type) noexcept {
  switch (type) {
    case ElementType::f32:
      return "float";
    case ElementType::f64:
      return "double";
    case ElementType::i32:
      return "int32";
    case ElementType::i64:
      return "int64";
    case ElementType::u32:
      return "uint32";
    case ElementType::i8:
      return "int8";
    case ElementType::u8:
      return "uint8";
    case ElementType::i16:
      return "int16";
    case ElementType::u16:
      return "uint16";
    case ElementType::u64:
      return "uint64";
    case ElementType::boolean:
      return "bool";
    case ElementType::float16:
      return "float16";
    case ElementType::bfloat16:
      return "bfloat16";
    case ElementType::complex_f32:
      return "complex<float>";
    case ElementType::complex_f64:
      return "complex<double>";
  }
  return "?";
}

}  // namespace stubjit
