// stubjit device-side prelude: atomics a kernel body can use on any backend.
//
// Included in a stub only when its user code (or a compiler option) may name
// something declared here, or when that cannot be told
// (src/codegen/prelude.cpp).
#ifndef STUBJIT_ATOMIC_H
#define STUBJIT_ATOMIC_H

#include "stubjit/config.h"

namespace stubjit {

#if defined(STUBJIT_DEVICE_COMPILER)

// atomicAdd(double*, double) exists from sm_60 on only (CUDA's
// sm_60_atomic_functions.h), and a stub that includes this header must compile on
// every target: below sm_60 the double overload adds with a compare-and-swap loop on
// the value's 64 bits instead. hipRTC never defines __CUDA_ARCH__ (every AMD target
// has the native add). A stub may define STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS itself (0 or
// 1) to choose; the tests force the loop with it on a newer GPU, which is where it can
// be run.
#if !defined(STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
#define STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS 1
#else
#define STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS 0
#endif
#endif

__device__ __forceinline__ i32 atomic_add(i32& target, i32 value) {
  return atomicAdd(&target, value);
}
__device__ __forceinline__ u32 atomic_add(u32& target, u32 value) {
  return atomicAdd(&target, value);
}
__device__ __forceinline__ u64 atomic_add(u64& target, u64 value) {
  return atomicAdd(&target, value);
}
__device__ __forceinline__ i64 atomic_add(i64& target, i64 value) {
  // Two's complement: the unsigned 64-bit add is the signed one.
  return i64(atomicAdd(reinterpret_cast<u64*>(&target), u64(value)));
}
__device__ __forceinline__ float atomic_add(float& target, float value) {
  return atomicAdd(&target, value);
}
__device__ __forceinline__ double atomic_add(double& target, double value) {
#if STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS
  // The loop of the CUDA C++ Programming Guide: compare the bits, not the doubles,
  // so that a NaN in `target` cannot make it spin forever.
  u64* bits = reinterpret_cast<u64*>(&target);
  u64 seen = *bits;
  u64 assumed;
  do {
    assumed = seen;
    const double sum = __longlong_as_double(static_cast<i64>(assumed)) + value;
    seen = atomicCAS(bits, assumed, static_cast<u64>(__double_as_longlong(sum)));
  } while (assumed != seen);
  return __longlong_as_double(static_cast<i64>(seen));
#else
  return atomicAdd(&target, value);
#endif
}

#else

// The value's type is the target's, not deduced from the value: atomic_add(count, 1)
// on an int64 count adds 1 converted to int64, as the device overloads do.
template <class T>
struct atomic_value {
  using type = T;
};
template <class T>
inline T atomic_add(T& target, typename atomic_value<T>::type value) {
  return __atomic_fetch_add(&target, value, __ATOMIC_RELAXED);
}
// Floating-point: a compare-and-swap loop, since the builtin takes integers only.
template <class T>
inline T atomic_add_float(T& target, T value) {
  T expected;
  __atomic_load(&target, &expected, __ATOMIC_RELAXED);
  T desired = expected + value;
  while (!__atomic_compare_exchange(&target, &expected, &desired, true, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
    desired = expected + value;
  }
  return expected;
}
inline float atomic_add(float& target, float value) { return atomic_add_float(target, value); }
inline double atomic_add(double& target, double value) { return atomic_add_float(target, value); }

#endif

}  // namespace stubjit

#endif  // STUBJIT_ATOMIC_H
