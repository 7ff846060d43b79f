// stubjit device-side prelude: work groups (group kernels, docs/groups.md).
//
// A group kernel's body runs once per group and receives a Group. On a GPU every
// thread of the group (a block) runs the body; the Group spreads inner loops over
// them, so code outside inner loops and `single` runs on every thread (it may compute,
// but should write memory only in inner loops or `single`). On the CPU one host thread
// runs a group: inner loops are plain loops and fences have nothing to wait for, so
// every construct keeps its meaning.
//
// Levels, as OpenACC names them: gang = the group, worker = a warp (wavefront), vector
// = a lane. A group of T threads on a warp width W has ceil(T / W) workers; the last
// may have fewer than W lanes, and its vector loops stride by the lanes it has, so no
// iteration is dropped whatever T, for W = 32 and W = 64 alike.
//
// Inner loops do not nest in one another (use the collapsed forms, inner(n0, n1, f));
// a worker loop's body may hold vector loops. Loops take any integer counts (each of
// its own type; k has the count's type): a count of 0 or less runs nothing.
#ifndef STUBJIT_GROUP_H
#define STUBJIT_GROUP_H

#include "stubjit/config.h"

// How a dialect waits for its group and its warp, and where group-shared memory
// starts. A host emulator of the GPU dialects defines its own before this header.
#if defined(STUBJIT_DEVICE_COMPILER)
#ifndef STUBJIT_GROUP_BARRIER
#define STUBJIT_GROUP_BARRIER() __syncthreads()
#endif
#ifndef STUBJIT_WARP_BARRIER
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define STUBJIT_WARP_BARRIER(lanes) __syncwarp(lanes)
#else
// A wavefront runs in lockstep; the fences order its lanes' memory operations.
#define STUBJIT_WARP_BARRIER(lanes)                          \
  do {                                                      \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");  \
    __builtin_amdgcn_wave_barrier();                        \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");  \
  } while (0)
#endif
#endif
#ifndef STUBJIT_GROUP_MEMORY
#define STUBJIT_GROUP_MEMORY(name) \
  extern __shared__ __attribute__((aligned(16))) stubjit::u8 name[]
#endif
#endif

namespace stubjit {

// The counter an inner loop runs on: 32 bits for signed counts of up to 32 bits (at
// most 2^31 - 1, and a stride at most a group's threads: the counter cannot wrap before
// it passes the count), else 64 (an unsigned 64-bit count must stay below 2^63, as
// must the product of a collapsed loop's counts).
template <bool Narrow>
struct group_counter {
  typedef u32 type;
};
template <>
struct group_counter<false> {
  typedef u64 type;
};
#define STUBJIT_GROUP_COUNTER(N) \
  typename group_counter<(sizeof(N) <= 4 && N(-1) < N(0))>::type

#if defined(STUBJIT_DEVICE_COMPILER)

class Group {
 public:
  // `warp`: the stub's STUBJIT_WARP_SIZE (a constant once inlined).
  __device__ Group(u32 rank, u32 size, u32 warp) : rank_(rank), size_(size), warp_(warp) {}

  // The threads running the group, and this thread's place among them.
  __device__ u32 size() const { return size_; }
  __device__ u32 rank() const { return rank_; }
  __device__ u32 warp_size() const { return warp_; }

  // f(k) for every k in [0, n), spread over the group's threads (each takes every
  // size()-th k): every k runs once, whatever n and size().
  template <class N, class F>
  __device__ void inner(N n, F&& f) const {
    typedef STUBJIT_GROUP_COUNTER(N) C;
    if (!(n > N(0))) return;
    for (C k = rank_; k < C(n); k += size_) f(N(k));
  }
  // f(a, b) for every a in [0, n0), b in [0, n1): one loop over the n0 * n1 pairs, b
  // fastest.
  template <class N0, class N1, class F>
  __device__ void inner(N0 n0, N1 n1, F&& f) const {
    if (!(n0 > N0(0)) || !(n1 > N1(0))) return;
    const u64 total = u64(n0) * u64(n1);
    for (u64 k = rank_; k < total; k += size_) f(N0(k / u64(n1)), N1(k % u64(n1)));
  }
  template <class N0, class N1, class N2, class F>
  __device__ void inner(N0 n0, N1 n1, N2 n2, F&& f) const {
    if (!(n0 > N0(0)) || !(n1 > N1(0)) || !(n2 > N2(0))) return;
    const u64 plane = u64(n1) * u64(n2);
    const u64 total = u64(n0) * plane;
    for (u64 k = rank_; k < total; k += size_) {
      const u64 rest = k % plane;
      f(N0(k / plane), N1(rest / u64(n2)), N2(rest % u64(n2)));
    }
  }
  // f() once per group (on its first thread). Not a fence: fence() after it before
  // other threads read what it wrote.
  template <class F>
  __device__ void single(F&& f) const {
    if (rank_ == 0) f();
  }
  // Waits until every thread of the group has reached it; memory written before it is
  // visible to the group after it. Every thread must reach every fence.
  __device__ void fence() const { STUBJIT_GROUP_BARRIER(); }

  // Workers (warps) and vector lanes.
  __device__ u32 worker_count() const { return (size_ + warp_ - 1) / warp_; }
  __device__ u32 worker_rank() const { return rank_ / warp_; }
  // The lanes of this thread's worker: the warp width, fewer in a short last warp.
  __device__ u32 vector_length() const {
    const u32 first = worker_rank() * warp_;
    return size_ - first < warp_ ? size_ - first : warp_;
  }
  __device__ u32 vector_rank() const { return rank_ % warp_; }
  // f(k) for every k in [0, n), spread over the workers; every lane of a worker runs
  // its k (vector loops inside spread over them).
  template <class N, class F>
  __device__ void worker_loop(N n, F&& f) const {
    typedef STUBJIT_GROUP_COUNTER(N) C;
    if (!(n > N(0))) return;
    const u32 workers = worker_count();
    for (C k = worker_rank(); k < C(n); k += workers) f(N(k));
  }
  // f(k) for every k in [0, n), spread over the lanes of this thread's worker.
  template <class N, class F>
  __device__ void vector_loop(N n, F&& f) const {
    typedef STUBJIT_GROUP_COUNTER(N) C;
    if (!(n > N(0))) return;
    const u32 lanes = vector_length();
    for (C k = vector_rank(); k < C(n); k += lanes) f(N(k));
  }
  // f() once per worker (on its first lane).
  template <class F>
  __device__ void vector_single(F&& f) const {
    if (vector_rank() == 0) f();
  }
  // Waits for the lanes of this thread's worker (all must reach it).
  __device__ void vector_fence() const {
    const u32 lanes = vector_length();
    (void)lanes;
    STUBJIT_WARP_BARRIER(lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u);
  }

 private:
  u32 rank_;
  u32 size_;
  u32 warp_;
};

#else  // the CPU: one host thread runs the group

class Group {
 public:
  STUBJIT_HD u32 size() const { return 1; }
  STUBJIT_HD u32 rank() const { return 0; }
  STUBJIT_HD u32 warp_size() const { return 1; }

  template <class N, class F>
  STUBJIT_HD void inner(N n, F&& f) const {
    for (N k = 0; k < n; ++k) f(k);
  }
  template <class N0, class N1, class F>
  STUBJIT_HD void inner(N0 n0, N1 n1, F&& f) const {
    for (N0 a = 0; a < n0; ++a)
      for (N1 b = 0; b < n1; ++b) f(a, b);
  }
  template <class N0, class N1, class N2, class F>
  STUBJIT_HD void inner(N0 n0, N1 n1, N2 n2, F&& f) const {
    for (N0 a = 0; a < n0; ++a)
      for (N1 b = 0; b < n1; ++b)
        for (N2 c = 0; c < n2; ++c) f(a, b, c);
  }
  template <class F>
  STUBJIT_HD void single(F&& f) const {
    f();
  }
  STUBJIT_HD void fence() const {}

  STUBJIT_HD u32 worker_count() const { return 1; }
  STUBJIT_HD u32 worker_rank() const { return 0; }
  STUBJIT_HD u32 vector_length() const { return 1; }
  STUBJIT_HD u32 vector_rank() const { return 0; }
  template <class N, class F>
  STUBJIT_HD void worker_loop(N n, F&& f) const {
    for (N k = 0; k < n; ++k) f(k);
  }
  template <class N, class F>
  STUBJIT_HD void vector_loop(N n, F&& f) const {
    for (N k = 0; k < n; ++k) f(k);
  }
  template <class F>
  STUBJIT_HD void vector_single(F&& f) const {
    f();
  }
  STUBJIT_HD void vector_fence() const {}
};

#endif

}  // namespace stubjit

#endif  // STUBJIT_GROUP_H
