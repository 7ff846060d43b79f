// stubjit device-side prelude: atomics a kernel body can use on any backend.
#ifndef STUBJIT_ATOMIC_H
#define STUBJIT_ATOMIC_H

#include "stubjit/config.h"

namespace stubjit {

#if defined(STUBJIT_DEVICE_COMPILER)

__device__ __forceinline__ i32 atomic_add(i32& target, i32 value) {
  return atomicAdd(&target, value);
}
__device__ __forceinline__ u32 atomic_add(u32& target, u32 value) {
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
  return atomicAdd(&target, value);
}

#else

template <class T>
inline T atomic_add(T& target, T value) {
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
