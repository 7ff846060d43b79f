// The group kernels and tiled kernels of the GPU group tests, one per construct, on the
// public API only: the NVRTC and hipRTC compile tests (cuda/group_stub_cases.hpp)
// compile each for sm_80, sm_90, gfx90a and gfx1030, and the CUDA and HIP GPU suites
// (cuda/gpu_group_checks.hpp) run the same kernels against host loops. They are the
// kernels of tests/emulator/emulator_group_test.cpp and tests/cpu/group_test.cpp.
#pragma once

#include <cstdint>

#include "stubjit/stubjit.hpp"

namespace stubjit::test::groups {

// Inner loops of one dimension: hits(k) += 1 for k < n (a 64-bit count), and += 2 for
// k < m (a 32-bit count: the other counter width of Group::inner).
inline KernelSource inner_kernel() {
  return {"count_inner",
          {group("g"), scalar<std::int64_t>("n"), scalar<std::int32_t>("m"),
           inout<std::int32_t>("hits", 1)},
          "g.inner(n, [&](stubjit::i64 k) { stubjit::atomic_add(hits(k), 1); });\n"
          "g.inner(m, [&](int k) { stubjit::atomic_add(hits(k), 2); });"};
}

// Collapsed inner loops of two dimensions: two(a, b) += at[0] + 1 for every pair.
inline KernelSource inner2_kernel() {
  return {"count_pairs",
          {group("g"), index("at"), scalar<std::int32_t>("n0"), scalar<std::int32_t>("n1"),
           inout<std::int32_t>("two", 2)},
          "g.inner(n0, n1, [&](int a, int b) { stubjit::atomic_add(two(a, b), int(at[0]) + 1); "
          "});"};
}

// Collapsed inner loops of three dimensions, with 64-bit counts.
inline KernelSource inner3_kernel() {
  return {"count_triples",
          {group("g"), scalar<std::int64_t>("n0"), scalar<std::int64_t>("n1"),
           scalar<std::int64_t>("n2"), inout<std::int32_t>("three", 3)},
          "g.inner(n0, n1, n2, [&](stubjit::i64 a, stubjit::i64 b, stubjit::i64 c) {\n"
          "  stubjit::atomic_add(three(a, b, c), 1);\n"
          "});"};
}

// `single`: once per group (singles, one per group, projected over the domain).
inline KernelSource single_kernel() {
  return {"count_singles",
          {group("g"), inout<std::int32_t>("singles")},
          "g.single([&] { singles += 1; });"};
}

// Fences without shared memory: a column written by the group, then read back reversed
// by other threads, after the fence (global memory, one column per group).
inline KernelSource fence_kernel() {
  return {"fenced_reverse",
          {group("g"), scalar<std::int64_t>("n"), inout<double>("col", 1), inout<double>("rev", 1)},
          "g.inner(n, [&](stubjit::i64 k) { col(k) = double(k) * 2 + 1; });\n"
          "g.fence();\n"
          "g.inner(n, [&](stubjit::i64 k) { rev(k) = col(n - 1 - k); });"};
}

// `single` and fences around a shared array of a scalar extent: each group reverses its
// slice through group-shared memory.
inline KernelSource reverse_kernel() {
  return {"reverse_slices",
          {group("g"), index("at"), scalar<std::int64_t>("n"), in<float>("in", 1),
           inout<float>("out", 1), inout<std::int32_t>("singles"), shared<float>("buffer", {"n"})},
          "g.inner(n, [&](stubjit::i64 k) { buffer(k) = in(k); });\n"
          "g.fence();\n"
          "g.single([&] { singles += 1; });\n"
          "g.inner(n, [&](stubjit::i64 k) { out(k) = buffer(n - 1 - k) + float(at[0]); });"};
}

// Gang = group, worker = warp, vector = lane: each (w, v) once per group, each worker's
// `vector_single` once per w, and a vector fence ordering a per-worker row of a shared
// array of a literal and a scalar extent (written by one lane, read by another).
inline KernelSource gang_worker_vector_kernel() {
  return {"gang_worker_vector",
          {group("g"), scalar<std::int32_t>("nw"), scalar<std::int32_t>("nv"),
           inout<std::int32_t>("hits", 2), inout<std::int32_t>("once", 1),
           inout<std::int32_t>("mirrored", 2), shared<std::int32_t>("row", {"32", "nv"})},
          R"(
g.worker_loop(nw, [&](int w) {
  g.vector_loop(nv, [&](int v) { stubjit::atomic_add(hits(w, v), 1); });
  g.vector_single([&] { stubjit::atomic_add(once(w), 1); });
  const int slot = int(g.worker_rank());
  g.vector_loop(nv, [&](int v) { row(slot, v) = w * 1000 + v; });
  g.vector_fence();
  g.vector_loop(nv, [&](int v) { stubjit::atomic_add(mirrored(w, v), row(slot, nv - 1 - v)); });
  g.vector_fence();
});
)"};
}

// Two shared arrays of different element types and extents (a literal and a scalar,
// two scalars): the second starts at the first's end, rounded up to 16 bytes.
inline KernelSource two_shared_kernel() {
  return {"two_shared",
          {group("g"), scalar<std::int32_t>("n"), scalar<std::int64_t>("m"), in<double>("x", 1),
           inout<double>("y", 1), shared<std::int16_t>("flags", {"3", "m"}),
           shared<double>("values", {"n", "m"})},
          R"(
g.inner(stubjit::i64(3), m, [&](stubjit::i64 a, stubjit::i64 b) { flags(a, b) = stubjit::i16(a + 1); });
g.inner(stubjit::i64(n), m, [&](stubjit::i64 a, stubjit::i64 b) { values(a, b) = x(a * m + b); });
g.fence();
g.inner(stubjit::i64(n), m, [&](stubjit::i64 a, stubjit::i64 b) {
  y(a * m + b) = values(n - 1 - a, m - 1 - b) * flags(a % 3, b);
});
)"};
}

// The index token in a group kernel of rank 3: each group writes its own index.
inline KernelSource index_token_kernel() {
  return {"group_codes",
          {group("g"), index("at"), inout<std::int64_t>("codes", 1)},
          "g.inner(4, [&](int k) {\n"
          "  codes(k) = ((at[0] * 100 + at[1]) * 100 + at[2]) * 10 + k;\n"
          "});"};
}

// A specialized scalar in a group kernel: an inner loop's count and a shared extent.
inline KernelSource specialized_kernel() {
  return {"specialized_width",
          {group("g"), specialized<std::int32_t>("width"), in<float>("x", 1), inout<float>("y", 1),
           shared<float>("s", {"width"})},
          "g.inner(width, [&](int k) { s(k) = x(k); });\n"
          "g.fence();\n"
          "g.inner(width, [&](int k) { y(k) = s(width - 1 - k) * float(width); });"};
}

// The YAKL seed's column kernel: w(j, i, 1..nz) from the state, zero boundaries in a
// `single`, then the momentum over nz + 2 levels, with fences between.
inline KernelSource column_kernel() {
  return {"column",
          {group("g"), scalar<std::int64_t>("nz"), in<double>("state", 1), in<double>("density", 1),
           inout<double>("w", 1), inout<double>("momentum", 1)},
          R"(
g.inner(nz, [&](stubjit::i64 k) { w(1 + k) = state(k); });
g.fence();
g.single([&] { w(0) = 0; w(nz + 1) = 0; });
g.fence();
g.inner(nz + 2, [&](stubjit::i64 k) { momentum(k) = w(k) * density(k); });
)"};
}

// A transpose through a shared tile of literal extents (padded by one column): one group
// per 32x32 tile, partial tiles at the edges.
inline KernelSource transpose_kernel() {
  return {"transpose",
          {group("g"), index("tile"), scalar<std::int64_t>("rows"), scalar<std::int64_t>("cols"),
           in<float>("in", 2), inout<float>("out", 2), shared<float>("buffer", {"32", "33"})},
          R"(
const stubjit::i64 r0 = tile[0] * 32, c0 = tile[1] * 32;
g.inner(stubjit::i64(32), stubjit::i64(32), [&](stubjit::i64 r, stubjit::i64 c) {
  if (r0 + r < rows && c0 + c < cols) buffer(r, c) = in(r0 + r, c0 + c);
});
g.fence();
g.inner(stubjit::i64(32), stubjit::i64(32), [&](stubjit::i64 c, stubjit::i64 r) {
  if (r0 + r < rows && c0 + c < cols) out(c0 + c, r0 + r) = buffer(r, c);
});
)"};
}

// A per-element kernel of a tiled launch of rank 2: its tile and its place in the tile.
inline KernelSource mark_tiles_kernel() {
  return {"mark_tiles",
          {index("i"), tile_index("t"), local_index("l"), inout<std::int64_t>("tiles"),
           inout<std::int64_t>("locals"), inout<std::int32_t>("visits")},
          "tiles = t[0] * 100 + t[1];\nlocals = l[0] * 100 + l[1];\n"
          "stubjit::atomic_add(visits, 1);\n(void)i;"};
}

// A per-element kernel of a tiled launch of rank 4 (a tile spread over the group).
inline KernelSource mark4_kernel() {
  return {"mark4",
          {local_index("l"), inout<std::int32_t>("visits", 0), inout<std::int64_t>("where")},
          "stubjit::atomic_add(visits, 1);\n"
          "where = ((l[0] * 10 + l[1]) * 10 + l[2]) * 10 + l[3];"};
}

}  // namespace stubjit::test::groups
