// The checks of the GPU group suites (cuda/gpu_groups_test.cpp, hip/gpu_groups_test.cpp),
// on a runtime of a real device: the checks of tests/emulator/emulator_group_test.cpp
// (inner loops shorter than, as long as and longer than the group, collapsed loops,
// `single` once per group, fences around group-shared memory, worker and vector loops
// with short last warps, tiled tokens with partial tiles, a rank-4 tile spread over the
// group) and those of tests/cpu/group_test.cpp (the YAKL column kernel, a transpose
// through a shared tile), each against a host loop, with group sizes a GPU runs: 40 and
// 72 (a short last warp of 32 and of 64 lanes), 64, 96 (a short last wavefront of 64),
// 256 and 1024. The kernels are those the NVRTC and hipRTC tests compile
// (cuda/group_kernels.hpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cuda/group_kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test::groups {

using i64 = std::int64_t;
using i32 = std::int32_t;

// The largest group the checks launch: a GPU's 1024 threads, or fewer on the host
// emulator (tests/emulator/emulator_group_test.cpp), which runs each GPU thread of a
// block as a host thread.
inline std::uint32_t& largest_group() {
  static std::uint32_t largest = 1024;
  return largest;
}

// `sizes` up to largest_group(); never none (a check that launches nothing fails).
inline std::vector<std::uint32_t> up_to_largest(std::initializer_list<std::uint32_t> sizes) {
  std::vector<std::uint32_t> kept;
  for (const std::uint32_t size : sizes)
    if (size <= largest_group()) kept.push_back(size);
  if (kept.empty()) ADD_FAILURE() << "no group size up to " << largest_group();
  return kept;
}

// Group sizes around the warp widths, and the largest groups a GPU runs.
inline std::vector<std::uint32_t> gpu_group_sizes() {
  return up_to_largest({40, 64, 72, 96, 256, 1024});
}

inline LaunchOptions threads(std::uint32_t group_size) {
  LaunchOptions options;
  options.group_size = group_size;
  return options;
}

template <class T>
Field filled(Runtime& runtime, const std::vector<i64>& extents, T value) {
  Field field = runtime.allocate<T>(extents);
  i64 n = 1;
  for (i64 e : extents) n *= e;
  field.copy_from(std::vector<T>(std::size_t(n), value));
  return field;
}

template <class T>
Field holding(Runtime& runtime, const std::vector<i64>& extents, const std::vector<T>& values) {
  Field field = runtime.allocate<T>(extents);
  field.copy_from(values);
  return field;
}

// Inner loops of every length (0, shorter than the group, as long, one more, several
// times as long), with a 64-bit count n and a 32-bit count n / 2.
inline void check_inner_loops(Runtime& runtime) {
  Kernel count = runtime.kernel(inner_kernel());
  const i64 groups = 3;
  for (const std::uint32_t size : gpu_group_sizes())
    for (const i64 n : {i64(0), i64(5), i64(size), i64(size) + 1, 3 * i64(size) + 7}) {
      SCOPED_TRACE("group of " + std::to_string(size) + ", n = " + std::to_string(n));
      const i64 cells = std::max<i64>(n, 1);
      const i32 m = i32(n / 2);
      Field hits = filled<i32>(runtime, {cells}, 0);
      const LaunchSummary summary = count.launch(threads(size), Domain{groups}, n, m, hits);
      EXPECT_EQ(summary.group_size, size);
      std::vector<i32> expected(std::size_t(cells), 0);
      for (i64 k = 0; k < n; ++k) expected[std::size_t(k)] = i32(groups) * (k < m ? 3 : 1);
      ASSERT_EQ(hits.to_vector<i32>(), expected);
    }
}

// Collapsed inner loops: every pair and every triple once per group, with groups
// smaller and larger than the loops.
inline void check_collapsed_inner_loops(Runtime& runtime) {
  Kernel pairs = runtime.kernel(inner2_kernel());
  Kernel triples = runtime.kernel(inner3_kernel());
  const i32 n0 = 7, n1 = 13;
  const i64 m0 = 5, m1 = 9, m2 = 7;
  for (const std::uint32_t size : up_to_largest({72u, 256u, 1024u})) {
    SCOPED_TRACE("group of " + std::to_string(size));
    Field two = filled<i32>(runtime, {n0, n1}, 0);
    pairs.launch(threads(size), Domain{4}, n0, n1, two);
    EXPECT_EQ(two.to_vector<i32>(), std::vector<i32>(std::size_t(n0 * n1), 1 + 2 + 3 + 4));
    Field three = filled<i32>(runtime, {m0, m1, m2}, 0);
    triples.launch(threads(size), Domain{2, 3}, m0, m1, m2, three);
    EXPECT_EQ(three.to_vector<i32>(), std::vector<i32>(std::size_t(m0 * m1 * m2), 6));
  }
}

// `single` once per group, and fences ordering group-shared memory: each group reverses
// its slice through a shared array of a scalar extent, shorter and longer than the group.
inline void check_single_and_fenced_shared_memory(Runtime& runtime) {
  Kernel reverse = runtime.kernel(reverse_kernel());
  const i64 groups = 5;
  for (const std::uint32_t size : up_to_largest({64u, 96u, 1024u}))
    for (const i64 n : {i64(150), i64(2000)}) {
      SCOPED_TRACE("group of " + std::to_string(size) + ", n = " + std::to_string(n));
      std::vector<float> in(std::size_t(groups * n));
      std::iota(in.begin(), in.end(), 0.0f);
      Field f_in = holding(runtime, {groups, n}, in);
      Field out = filled<float>(runtime, {groups, n}, -1.0f);
      Field singles = filled<i32>(runtime, {groups}, 0);
      const LaunchSummary summary =
          reverse.launch(threads(size), Domain{groups}, n, f_in, out, singles);
      EXPECT_EQ(summary.group_size, size);
      EXPECT_EQ(summary.shared_bytes, std::uint32_t((n * 4 + 15) / 16 * 16));
      std::vector<float> expected(in.size());
      for (i64 g = 0; g < groups; ++g)
        for (i64 k = 0; k < n; ++k)
          expected[std::size_t(g * n + k)] = in[std::size_t(g * n + n - 1 - k)] + float(g);
      ASSERT_EQ(out.to_vector<float>(), expected);
      EXPECT_EQ(singles.to_vector<i32>(), std::vector<i32>(std::size_t(groups), 1));
    }
}

// A fence orders global memory too: a column written by some threads of the group is
// read back reversed by others.
inline void check_fence_over_global_memory(Runtime& runtime) {
  Kernel fenced = runtime.kernel(fence_kernel());
  const i64 rows = 3, cols = 4, n = 300;
  for (const std::uint32_t size : up_to_largest({40u, 96u, 1024u})) {
    SCOPED_TRACE("group of " + std::to_string(size));
    Field col = filled<double>(runtime, {rows, cols, n}, 0.0);
    Field rev = filled<double>(runtime, {rows, cols, n}, 0.0);
    fenced.launch(threads(size), Domain{rows, cols}, n, col, rev);
    std::vector<double> expected(std::size_t(rows * cols * n));
    for (i64 c = 0; c < rows * cols; ++c)
      for (i64 k = 0; k < n; ++k) expected[std::size_t(c * n + k)] = double(n - 1 - k) * 2 + 1;
    ASSERT_EQ(rev.to_vector<double>(), expected);
  }
}

// Gang, worker and vector loops: each (w, v) once per group, each worker's
// vector_single once per w, and vector fences ordering a per-worker row of shared
// memory, with whole and short last warps (the device's warp width).
inline void check_worker_and_vector_loops(Runtime& runtime) {
  Kernel gwv = runtime.kernel(gang_worker_vector_kernel());
  const i64 groups = 2;
  const i32 nw = 9;
  for (const std::uint32_t size : gpu_group_sizes())
    for (const i32 nv : {3, 40, 70}) {
      SCOPED_TRACE("group of " + std::to_string(size) + ", nv = " + std::to_string(nv) + ", warp " +
                   std::to_string(runtime.limits().warp_size));
      Field hits = filled<i32>(runtime, {nw, nv}, 0);
      Field once = filled<i32>(runtime, {nw}, 0);
      Field mirrored = filled<i32>(runtime, {nw, nv}, 0);
      const LaunchSummary summary =
          gwv.launch(threads(size), Domain{groups}, nw, nv, hits, once, mirrored);
      EXPECT_EQ(summary.group_size, size);
      EXPECT_EQ(hits.to_vector<i32>(), std::vector<i32>(std::size_t(nw * nv), i32(groups)));
      EXPECT_EQ(once.to_vector<i32>(), std::vector<i32>(std::size_t(nw), i32(groups)));
      std::vector<i32> expected(std::size_t(nw * nv));
      for (i32 w = 0; w < nw; ++w)
        for (i32 v = 0; v < nv; ++v)
          expected[std::size_t(w * nv + v)] = i32(groups) * (w * 1000 + nv - 1 - v);
      ASSERT_EQ(mirrored.to_vector<i32>(), expected);
    }
}

// Two shared arrays (an int16 one of a literal and a scalar extent, a double one of two
// scalar extents), the second after the first, rounded up to 16 bytes.
inline void check_two_shared_arrays(Runtime& runtime) {
  Kernel two = runtime.kernel(two_shared_kernel());
  const i64 groups = 4;
  const i32 n = 5;
  const i64 m = 37;
  std::vector<double> x(std::size_t(groups * n * m));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i % 101) - 50.5;
  for (const std::uint32_t size : up_to_largest({72u, 256u})) {
    SCOPED_TRACE("group of " + std::to_string(size));
    Field fx = holding(runtime, {groups, n * m}, x);
    Field y = filled<double>(runtime, {groups, n * m}, 0.0);
    const LaunchSummary summary = two.launch(threads(size), Domain{groups}, n, m, fx, y);
    EXPECT_EQ(summary.shared_bytes,
              std::uint32_t((3 * m * 2 + 15) / 16 * 16 + (n * m * 8 + 15) / 16 * 16));
    std::vector<double> expected(x.size());
    for (i64 g = 0; g < groups; ++g)
      for (i64 a = 0; a < n; ++a)
        for (i64 b = 0; b < m; ++b)
          expected[std::size_t(g * n * m + a * m + b)] =
              x[std::size_t(g * n * m + (n - 1 - a) * m + (m - 1 - b))] * double(a % 3 + 1);
    ASSERT_EQ(y.to_vector<double>(), expected);
  }
}

// The index token of a group kernel of rank 3: each group's own index.
inline void check_index_token(Runtime& runtime) {
  Kernel codes = runtime.kernel(index_token_kernel());
  Field out = filled<i64>(runtime, {3, 4, 5, 4}, -1);
  codes.launch(threads(64), Domain{3, 4, 5}, out);
  std::vector<i64> expected;
  for (i64 a = 0; a < 3; ++a)
    for (i64 b = 0; b < 4; ++b)
      for (i64 c = 0; c < 5; ++c)
        for (i64 k = 0; k < 4; ++k) expected.push_back(((a * 100 + b) * 100 + c) * 10 + k);
  EXPECT_EQ(out.to_vector<i64>(), expected);
}

// A specialized scalar of a group kernel (an inner count and a shared extent): each value
// runs its own stub.
inline void check_specialized_scalar(Runtime& runtime) {
  Kernel kernel = runtime.kernel(specialized_kernel());
  const i64 groups = 3, wide = 128;
  std::vector<float> x(std::size_t(groups * wide));
  std::iota(x.begin(), x.end(), 1.0f);
  Field fx = holding(runtime, {groups, wide}, x);
  for (const i32 width : {64, 100, 64}) {
    SCOPED_TRACE("width " + std::to_string(width));
    Field y = filled<float>(runtime, {groups, wide}, 0.0f);
    const LaunchSummary summary = kernel.launch(threads(96), Domain{groups}, width, fx, y);
    EXPECT_EQ(summary.shared_bytes, std::uint32_t((width * 4 + 15) / 16 * 16));
    std::vector<float> expected(x.size(), 0.0f);
    for (i64 g = 0; g < groups; ++g)
      for (i64 k = 0; k < width; ++k)
        expected[std::size_t(g * wide + k)] =
            x[std::size_t(g * wide + width - 1 - k)] * float(width);
    ASSERT_EQ(y.to_vector<float>(), expected);
  }
}

// Per-element kernels over tiles: each index once, with its tile and its place in it;
// partial tiles along both dimensions. A tile as the group's shape (8x5, 8x32, 6), and
// one of 2048 spread over the device's largest group.
inline void check_tiled_tokens(Runtime& runtime) {
  Kernel mark = runtime.kernel(mark_tiles_kernel());
  const i64 rows = 70, cols = 45;
  const std::uint32_t most = runtime.limits().max_threads_per_block;
  const std::uint32_t warp = runtime.limits().warp_size;
  for (const Tile& tile : {Tile{8, 5}, Tile{8, 32}, Tile{64, 32}, Tile{6}}) {
    SCOPED_TRACE("tile of " + std::to_string(tile.elements()));
    Field tiles = filled<i64>(runtime, {rows, cols}, -1);
    Field locals = filled<i64>(runtime, {rows, cols}, -1);
    Field visits = filled<i32>(runtime, {rows, cols}, 0);
    LaunchOptions options;
    options.tile = tile;
    const LaunchSummary summary = mark.launch(options, Domain{rows, cols}, tiles, locals, visits);
    const std::uint64_t elements = tile.elements();
    EXPECT_EQ(summary.group_size,
              elements <= most ? std::uint32_t(elements) : std::max(most / warp * warp, 1u));
    const int r = tile.rank;
    const i64 tr = r == 2 ? tile.extents[0] : 1;
    const i64 tc = tile.extents[std::size_t(r - 1)];
    std::vector<i64> want_tiles(std::size_t(rows * cols)), want_locals(want_tiles.size());
    for (i64 a = 0; a < rows; ++a)
      for (i64 b = 0; b < cols; ++b) {
        want_tiles[std::size_t(a * cols + b)] = a / tr * 100 + b / tc;
        want_locals[std::size_t(a * cols + b)] = a % tr * 100 + b % tc;
      }
    EXPECT_EQ(visits.to_vector<i32>(), std::vector<i32>(std::size_t(rows * cols), 1));
    EXPECT_EQ(tiles.to_vector<i64>(), want_tiles);
    EXPECT_EQ(locals.to_vector<i64>(), want_locals);
  }
}

// A tile of rank 4 (36 positions) spread over groups of 16 and of 64 threads, partial
// along every dimension.
inline void check_rank_four_tile(Runtime& runtime) {
  Kernel mark = runtime.kernel(mark4_kernel());
  const std::vector<i64> extents = {3, 5, 4, 7};
  for (const std::uint32_t size : up_to_largest({16u, 64u})) {
    SCOPED_TRACE("group of " + std::to_string(size));
    Field visits = filled<i32>(runtime, extents, 0);
    Field where = filled<i64>(runtime, extents, -1);
    LaunchOptions options;
    options.tile = Tile{2, 3, 2, 3};
    options.group_size = size;
    EXPECT_EQ(mark.launch(options, Domain{3, 5, 4, 7}, visits, where).group_size, size);
    EXPECT_EQ(visits.to_vector<i32>(), std::vector<i32>(3 * 5 * 4 * 7, 1));
    std::vector<i64> expected;
    for (i64 a = 0; a < 3; ++a)
      for (i64 b = 0; b < 5; ++b)
        for (i64 c = 0; c < 4; ++c)
          for (i64 d = 0; d < 7; ++d)
            expected.push_back(((a % 2 * 10 + b % 3) * 10 + c % 2) * 10 + d % 3);
    EXPECT_EQ(where.to_vector<i64>(), expected);
  }
}

// The YAKL column kernel against a host loop: columns shorter and longer than the group.
inline void check_yakl_column(Runtime& runtime) {
  Kernel column = runtime.kernel(column_kernel());
  const i64 ny = 5, nx = 7;
  for (const i64 nz : {i64(11), i64(300)})
    for (const std::uint32_t size : up_to_largest({64u, 256u})) {
      SCOPED_TRACE("nz = " + std::to_string(nz) + ", group of " + std::to_string(size));
      std::vector<double> state(std::size_t(ny * nx * nz)),
          density(std::size_t(ny * nx * (nz + 2)));
      std::iota(state.begin(), state.end(), 1.0);
      for (std::size_t k = 0; k < density.size(); ++k) density[k] = 0.5 + double(k % 13);
      Field f_state = holding(runtime, {ny, nx, nz}, state);
      Field f_density = holding(runtime, {ny, nx, nz + 2}, density);
      Field w = filled<double>(runtime, {ny, nx, nz + 2}, -1.0);
      Field momentum = filled<double>(runtime, {ny, nx, nz + 2}, -1.0);
      const LaunchSummary summary =
          column.launch(threads(size), Domain{ny, nx}, nz, f_state, f_density, w, momentum);
      EXPECT_EQ(summary.group_size, size);
      EXPECT_EQ(summary.shared_bytes, 0u);
      std::vector<double> want_w(std::size_t(ny * nx * (nz + 2))), want_m(want_w.size());
      for (i64 j = 0; j < ny; ++j)
        for (i64 i = 0; i < nx; ++i) {
          const i64 at = (j * nx + i) * (nz + 2);
          for (i64 k = 0; k < nz; ++k)
            want_w[std::size_t(at + 1 + k)] = state[std::size_t((j * nx + i) * nz + k)];
          want_w[std::size_t(at)] = 0;
          want_w[std::size_t(at + nz + 1)] = 0;
          for (i64 k = 0; k < nz + 2; ++k)
            want_m[std::size_t(at + k)] =
                want_w[std::size_t(at + k)] * density[std::size_t(at + k)];
        }
      ASSERT_EQ(w.to_vector<double>(), want_w);
      ASSERT_EQ(momentum.to_vector<double>(), want_m);
    }
}

// A transpose through a shared 32x33 tile, one group per tile, partial tiles along both
// dimensions, against a host loop.
inline void check_shared_tile_transpose(Runtime& runtime) {
  Kernel transpose = runtime.kernel(transpose_kernel());
  std::vector<std::pair<i64, i64>> shapes = {{70, 45}};
  if (largest_group() >= 1024) shapes.push_back({1000, 777});  // 800 groups of 1024 threads
  for (const auto& [rows, cols] : shapes)
    for (const std::uint32_t size : up_to_largest({256u, 1024u})) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + ", group of " +
                   std::to_string(size));
      std::vector<float> in(std::size_t(rows * cols));
      std::iota(in.begin(), in.end(), 0.0f);
      Field f_in = holding(runtime, {rows, cols}, in);
      Field out = filled<float>(runtime, {cols, rows}, -1.0f);
      const Domain tiles{(rows + 31) / 32, (cols + 31) / 32};
      const LaunchSummary summary = transpose.launch(threads(size), tiles, rows, cols, f_in, out);
      EXPECT_EQ(summary.group_size, size);
      EXPECT_EQ(summary.shared_bytes, 32u * 33u * 4u);
      const std::vector<float> got = out.to_vector<float>();
      for (i64 r = 0; r < rows; ++r)
        for (i64 c = 0; c < cols; ++c)
          ASSERT_EQ(got[std::size_t(c * rows + r)], in[std::size_t(r * cols + c)]) << r << "," << c;
    }
}

}  // namespace stubjit::test::groups
