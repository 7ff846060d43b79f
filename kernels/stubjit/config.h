// stubjit device-side prelude: portable qualifiers and integer types.
//
// These headers are embedded into the library at build time, one string each, and
// prepended to generated stubs in the order config.h, index.h, view.h, launch.h,
// atomic.h (lines that include one another are dropped when embedding).
// Every stub gets config.h; the others only when the stub's own code uses them or
// its user code may (src/codegen/prelude.cpp).
// They compile as plain C++17 on the host (Clang, GCC), under NVRTC and under hipRTC,
// so they use no standard headers.
#ifndef STUBJIT_CONFIG_H
#define STUBJIT_CONFIG_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define STUBJIT_DEVICE_COMPILER 1
#define STUBJIT_HD __host__ __device__ __forceinline__
#define STUBJIT_RESTRICT __restrict__
#else
#define STUBJIT_HD inline __attribute__((always_inline))
#define STUBJIT_RESTRICT __restrict
#endif

namespace stubjit {

// Fixed-width types without <cstdint>: LP64 on every host and device we target.
using i8 = signed char;
using u8 = unsigned char;
using i16 = short;
using u16 = unsigned short;
using i32 = int;
using u32 = unsigned int;
using i64 = long long;
using u64 = unsigned long long;

static_assert(sizeof(i16) == 2 && sizeof(u16) == 2, "16-bit integers expected");
static_assert(sizeof(i32) == 4 && sizeof(u32) == 4, "32-bit integers expected");
static_assert(sizeof(i64) == 8 && sizeof(u64) == 8, "64-bit integers expected");

template <class I>
STUBJIT_HD I min_of(I a, I b) {
  return a < b ? a : b;
}

// The unsigned type of an index type, for arithmetic that must wrap rather than
// overflow (signed overflow is undefined behaviour; unsigned wraps).
template <class I>
struct unsigned_of;
template <>
struct unsigned_of<i32> {
  using type = u32;
};
template <>
struct unsigned_of<i64> {
  using type = u64;
};

// Checks one member of a stub's packed-argument struct against the host's layout:
// its offset where the compiler can tell (NVRTC has no offsetof) and its size. Every
// member is 8-byte aligned (a scalar alignas(8), which pads one of 4 bytes to its
// 8-byte slot) and a field's members are whole 8-byte words, so the struct's size
// (which every stub checks too) pins the offsets as well.
#if defined(__CUDACC_RTC__)
#define STUBJIT_CHECK_MEMBER(type, member, offset, size) \
  static_assert(sizeof(type::member) == (size), "stubjit: argument layout mismatch")
#else
#define STUBJIT_CHECK_MEMBER(type, member, offset, size)                                        \
  static_assert(__builtin_offsetof(type, member) == (offset) && sizeof(type::member) == (size), \
                "stubjit: argument layout mismatch")
#endif

}  // namespace stubjit

#endif  // STUBJIT_CONFIG_H
