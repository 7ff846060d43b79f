// The host shim for the GPU dialects: what the CUDA and HIP stubs use of their device
// compilers, in plain C++, so that the real stubs (prelude included) compile unchanged
// for the host with the CPU backend's in-process Clang (emulator_toolchain.cpp passes
// it with -include, and -DSTUBJIT_EMULATE_CUDA or -DSTUBJIT_EMULATE_HIP).
//
//   - threadIdx, blockIdx, blockDim, gridDim and warpSize: the calling thread's
//     Context (emulator_context.h), set by the entry the toolchain appends;
//   - the qualifiers: nothing (__forceinline__: always_inline);
//   - atomics: __atomic builtins (floating-point adds by compare-and-swap);
//   - __syncthreads, __syncwarp: the device's barriers (the block's GPU threads take
//     turns on one host thread when a stub uses them, block_runner.cpp);
//   - __shared__: a static variable. The device runs one block at a time, so a static
//     is per-block storage, uninitialised from one block to the next as on a GPU;
//     group stubs' dynamic shared memory: a buffer the device gives each block;
//   - which parts of a one-pass scan publish their prefix: as the test asks;
//   - float16 conversions: the prelude's integer arithmetic (STUBJIT_SOFTWARE_HALF);
//   - sqrtf, sqrt: the host's, as __builtin_sqrtf and __builtin_sqrt;
//   - shuffles and ballots over the warp (32 or 64 lanes, STUBJIT_WARP_SIZE): the
//     device's warp exchange.
//
// No standard headers: a stub's compile sees the prelude's types only, as under NVRTC.
#ifndef STUBJIT_GPU_SHIM_H
#define STUBJIT_GPU_SHIM_H

#include "emulator_context.h"

#if defined(STUBJIT_EMULATE_CUDA)
// What NVRTC defines: the prelude takes its device branches (config.h, index.h,
// atomic.h), as it does on a GPU.
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#elif defined(STUBJIT_EMULATE_HIP)
#define __HIPCC_RTC__ 1
#define __HIP_DEVICE_COMPILE__ 1
#else
#error "gpu_shim.h: define STUBJIT_EMULATE_CUDA or STUBJIT_EMULATE_HIP"
#endif

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static

// The prelude's float16 conversions in integer arithmetic (kernels/stubjit/half.h): the
// host has no PTX cvt, and this path is the one the other backends do not run.
#define STUBJIT_SOFTWARE_HALF 1

namespace stubjit_emulator {

// The GPU thread this host thread is running now: set by the entry, and by the
// block runner each time it resumes one of the block's threads (Context::attach).
static thread_local const Context* current = nullptr;

// A one-pass scan's parts publish their inclusive prefix only as the test asks (every
// part unless it sets a period: emulator_backend.hpp, ScopedScanPrefixPeriod), and are
// counted. The blocks here run one at a time, so a part would otherwise always find the
// prefix of the part just before it; withheld prefixes make its look-back combine
// aggregates across windows, or from the segment's start, as on a GPU where parts
// finish late.
inline bool publishes_prefix(unsigned long long part) {
  const unsigned period = current->scan_prefix_period;
  const bool publishes = period != 0 && part % period == 0;
  if (publishes) __atomic_fetch_add(current->scan_prefixes_published, 1ull, __ATOMIC_RELAXED);
  return publishes;
}

typedef unsigned long long bits64;

template <class T>
inline bits64 to_bits(T value) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 64 bits");
  bits64 bits = 0;
  __builtin_memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <class T>
inline T from_bits(bits64 bits) {
  T value;
  __builtin_memcpy(&value, &bits, sizeof(T));
  return value;
}

// The value `value` of lane `source` of the caller's warp; a lane outside the warp
// (or past its last thread) gives the caller's own value.
template <class T>
inline T lane_value(T value, unsigned source) {
  const bits64 mine = to_bits(value);
  const bits64 got = current->exchange(current->block_state, current->linear, mine, source);
  return source < current->warp_lanes ? from_bits<T>(got) : value;
}

// The first lane of the caller's `width`-lane segment of its warp.
inline unsigned segment_base(int width) {
  return current->lane / unsigned(width) * unsigned(width);
}

// A lane outside the warp's existing lanes is undefined on a GPU: the emulator stops.
template <class T>
inline T shuffle(T value, int source, int width) {
  const unsigned from = segment_base(width) + unsigned(source) % unsigned(width);
  if (from >= current->warp_lanes) __builtin_trap();
  return lane_value(value, from);
}

template <class T>
inline T shuffle_up(T value, unsigned delta, int width) {
  const unsigned base = segment_base(width);
  const unsigned lane = current->lane;
  return lane_value(value, lane >= base + delta ? lane - delta : lane);
}

template <class T>
inline T shuffle_down(T value, unsigned delta, int width) {
  const unsigned base = segment_base(width);
  const unsigned lane = current->lane;
  return lane_value(value, lane + delta < base + unsigned(width) ? lane + delta : lane);
}

template <class T>
inline T shuffle_xor(T value, int mask, int width) {
  const unsigned base = segment_base(width);
  const unsigned source = current->lane ^ unsigned(mask);
  // A later segment's lanes are out of reach; an earlier one's are not (as on CUDA).
  return lane_value(value, source < base + unsigned(width) ? source : current->lane);
}

// One bit per lane of the caller's warp whose predicate holds.
inline bits64 ballot(int predicate) {
  bits64 mask = 0;
  for (unsigned lane = 0; lane < current->warp_size; ++lane) {
    if (lane_value<int>(predicate != 0, lane) && lane < current->warp_lanes)
      mask |= bits64(1) << lane;
  }
  return mask;
}

template <class T>
inline T atomic_add_by_cas(T* address, T value) {
  T expected;
  __atomic_load(address, &expected, __ATOMIC_RELAXED);
  T desired = expected + value;
  while (!__atomic_compare_exchange(address, &expected, &desired, true, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
    desired = expected + value;
  }
  return expected;
}

}  // namespace stubjit_emulator

#define STUBJIT_SCAN_PUBLISHES_PREFIX(part) ::stubjit_emulator::publishes_prefix(part)

#define threadIdx (::stubjit_emulator::current->thread)
#define blockIdx (::stubjit_emulator::current->block)
#define blockDim (::stubjit_emulator::current->block_dim)
#define gridDim (::stubjit_emulator::current->grid_dim)
#define warpSize (int(::stubjit_emulator::current->warp_size))

inline void __syncthreads() {
  ::stubjit_emulator::current->sync_block(::stubjit_emulator::current->block_state);
}

// Group stubs (kernels/stubjit/group.h): the warp's barrier in either dialect, and the
// block's group-shared memory, which the device allocates per block.
#define STUBJIT_WARP_BARRIER(lanes)                                                \
  ::stubjit_emulator::current->sync_warp(::stubjit_emulator::current->block_state, \
                                         ::stubjit_emulator::current->linear)
#define STUBJIT_GROUP_MEMORY(name) \
  ::stubjit::u8* const name = static_cast<::stubjit::u8*>(::stubjit_emulator::current->group_memory)
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// --- integer and bit intrinsics --------------------------------------------------------
inline unsigned __umulhi(unsigned a, unsigned b) {
  return unsigned((unsigned long long)a * b >> 32);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)((unsigned __int128)a * b >> 64);
}
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(unsigned(v)); }
inline int __clzll(long long v) { return v == 0 ? 64 : __builtin_clzll((unsigned long long)v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline double __longlong_as_double(long long v) {
  return ::stubjit_emulator::from_bits<double>((unsigned long long)v);
}
inline long long __double_as_longlong(double v) {
  return (long long)::stubjit_emulator::to_bits(v);
}
inline float __int_as_float(int v) { return ::stubjit_emulator::from_bits<float>(unsigned(v)); }
inline int __float_as_int(float v) { return int(::stubjit_emulator::to_bits(v)); }
inline float __uint_as_float(unsigned v) { return ::stubjit_emulator::from_bits<float>(v); }
inline unsigned __float_as_uint(float v) { return unsigned(::stubjit_emulator::to_bits(v)); }

// --- math the prelude uses (the device compilers declare these without headers) ---------
inline float sqrtf(float x) { return __builtin_sqrtf(x); }
inline double sqrt(double x) { return __builtin_sqrt(x); }

// --- atomics (device-wide; relaxed, as CUDA's and HIP's plain atomics are) ----------------
template <class T>
inline T atomicAdd(T* address, T value) {
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* address, float value) {
  return ::stubjit_emulator::atomic_add_by_cas(address, value);
}
inline double atomicAdd(double* address, double value) {
  return ::stubjit_emulator::atomic_add_by_cas(address, value);
}
template <class T>
inline T atomicSub(T* address, T value) {
  return __atomic_fetch_sub(address, value, __ATOMIC_RELAXED);
}
template <class T>
inline T atomicExch(T* address, T value) {
  T old;
  __atomic_exchange(address, &value, &old, __ATOMIC_RELAXED);
  return old;
}
template <class T>
inline T atomicCAS(T* address, T compare, T value) {
  __atomic_compare_exchange(address, &compare, &value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;  // the value found: compare on success, the other on failure
}
template <class T>
inline T atomicMin(T* address, T value) {
  T seen;
  __atomic_load(address, &seen, __ATOMIC_RELAXED);
  while (value < seen && !__atomic_compare_exchange(address, &seen, &value, true, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
  }
  return seen;
}
template <class T>
inline T atomicMax(T* address, T value) {
  T seen;
  __atomic_load(address, &seen, __ATOMIC_RELAXED);
  while (value > seen && !__atomic_compare_exchange(address, &seen, &value, true, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
  }
  return seen;
}
template <class T>
inline T atomicAnd(T* address, T value) {
  return __atomic_fetch_and(address, value, __ATOMIC_RELAXED);
}
template <class T>
inline T atomicOr(T* address, T value) {
  return __atomic_fetch_or(address, value, __ATOMIC_RELAXED);
}
template <class T>
inline T atomicXor(T* address, T value) {
  return __atomic_fetch_xor(address, value, __ATOMIC_RELAXED);
}

// --- warp intrinsics -----------------------------------------------------------------
#if defined(STUBJIT_EMULATE_CUDA)
// The mask names the lanes taking part; the emulator requires every existing lane of
// the warp (what the stubs and tests use). A shuffle's mask must name exactly those
// lanes: one naming a lane the warp does not have is undefined on a GPU, and one
// leaving an existing lane out is not what the emulator runs, so either stops it.
inline void check_shuffle_mask(unsigned mask) {
  const unsigned lanes = ::stubjit_emulator::current->warp_lanes;
  if (mask != (lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u)) __builtin_trap();
}
inline void __syncwarp(unsigned = 0xffffffffu) {
  ::stubjit_emulator::current->sync_warp(::stubjit_emulator::current->block_state,
                                         ::stubjit_emulator::current->linear);
}
template <class T>
inline T __shfl_sync(unsigned lanes, T value, int source, int width = warpSize) {
  check_shuffle_mask(lanes);
  return ::stubjit_emulator::shuffle(value, source, width);
}
template <class T>
inline T __shfl_up_sync(unsigned lanes, T value, unsigned delta, int width = warpSize) {
  check_shuffle_mask(lanes);
  return ::stubjit_emulator::shuffle_up(value, delta, width);
}
template <class T>
inline T __shfl_down_sync(unsigned lanes, T value, unsigned delta, int width = warpSize) {
  check_shuffle_mask(lanes);
  return ::stubjit_emulator::shuffle_down(value, delta, width);
}
template <class T>
inline T __shfl_xor_sync(unsigned lanes, T value, int mask, int width = warpSize) {
  check_shuffle_mask(lanes);
  return ::stubjit_emulator::shuffle_xor(value, mask, width);
}
inline unsigned __ballot_sync(unsigned, int predicate) {
  return unsigned(::stubjit_emulator::ballot(predicate));
}
inline int __any_sync(unsigned, int predicate) {
  return ::stubjit_emulator::ballot(predicate) != 0;
}
inline int __all_sync(unsigned, int predicate) {
  return ::stubjit_emulator::ballot(predicate) == ::stubjit_emulator::ballot(1);
}
#else
template <class T>
inline T __shfl(T value, int source, int width = warpSize) {
  return ::stubjit_emulator::shuffle(value, source, width);
}
template <class T>
inline T __shfl_up(T value, unsigned delta, int width = warpSize) {
  return ::stubjit_emulator::shuffle_up(value, delta, width);
}
template <class T>
inline T __shfl_down(T value, unsigned delta, int width = warpSize) {
  return ::stubjit_emulator::shuffle_down(value, delta, width);
}
template <class T>
inline T __shfl_xor(T value, int mask, int width = warpSize) {
  return ::stubjit_emulator::shuffle_xor(value, mask, width);
}
inline unsigned long long __ballot(int predicate) { return ::stubjit_emulator::ballot(predicate); }
inline int __any(int predicate) { return ::stubjit_emulator::ballot(predicate) != 0; }
inline int __all(int predicate) {
  return ::stubjit_emulator::ballot(predicate) == ::stubjit_emulator::ballot(1);
}
#endif

#endif  // STUBJIT_GPU_SHIM_H
