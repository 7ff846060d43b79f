// Group kernels and tiled launches on the CPU backend, against host loops: every
// construct of the Group (inner loops, collapsed ones, fences, single, worker and
// vector loops, shared arrays), partial tiles, the tokens, the caches, and every error
// case (nothing runs when a launch is refused).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;

// The YAKL seed's column kernel: w(j, i, 1..nz) from the state, zero boundaries in a
// `single`, then the momentum over nz + 2 levels, with fences between.
KernelSource column_kernel() {
  return {"column",
          {group("g"), scalar<i64>("nz"), in<double>("state", 1), in<double>("density", 1),
           inout<double>("w", 1), inout<double>("momentum", 1)},
          R"(
g.inner(nz, [&](stubjit::i64 k) { w(1 + k) = state(k); });
g.fence();
g.single([&] { w(0) = 0; w(nz + 1) = 0; });
g.fence();
g.inner(nz + 2, [&](stubjit::i64 k) { momentum(k) = w(k) * density(k); });
)"};
}

TEST(GroupKernel, YaklColumnAgainstAHostLoop) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel column = runtime.kernel(column_kernel());
  const i64 ny = 5, nx = 7, nz = 11;
  std::vector<double> state(std::size_t(ny * nx * nz)), density(std::size_t(ny * nx * (nz + 2)));
  std::iota(state.begin(), state.end(), 1.0);
  for (std::size_t k = 0; k < density.size(); ++k) density[k] = 0.5 + double(k % 13);
  Field f_state = runtime.wrap(state.data(), {ny, nx, nz});
  Field f_density = runtime.wrap(density.data(), {ny, nx, nz + 2});
  Field w = runtime.allocate<double>({ny, nx, nz + 2});
  Field momentum = runtime.allocate<double>({ny, nx, nz + 2});
  w.copy_from(std::vector<double>(std::size_t(ny * nx * (nz + 2)), -1.0));
  const LaunchSummary summary = column.launch(Domain{ny, nx}, nz, f_state, f_density, w, momentum);
  EXPECT_EQ(summary.group_size, 1u);  // one host thread per group
  EXPECT_EQ(summary.shared_bytes, 0u);

  std::vector<double> want_w(std::size_t(ny * nx * (nz + 2))), want_m(want_w.size());
  for (i64 j = 0; j < ny; ++j)
    for (i64 i = 0; i < nx; ++i) {
      const i64 column_at = (j * nx + i) * (nz + 2);
      for (i64 k = 0; k < nz; ++k)
        want_w[std::size_t(column_at + 1 + k)] = state[std::size_t((j * nx + i) * nz + k)];
      want_w[std::size_t(column_at)] = 0;
      want_w[std::size_t(column_at + nz + 1)] = 0;
      for (i64 k = 0; k < nz + 2; ++k)
        want_m[std::size_t(column_at + k)] =
            want_w[std::size_t(column_at + k)] * density[std::size_t(column_at + k)];
    }
  EXPECT_EQ(w.to_vector<double>(), want_w);
  EXPECT_EQ(momentum.to_vector<double>(), want_m);
}

// A transpose through a shared tile (padded by one column): one group per 32x32 tile,
// partial tiles at the edges.
KernelSource transpose_kernel() {
  return {"transpose",
          {group("g"), index("tile"), scalar<i64>("rows"), scalar<i64>("cols"), in<float>("in", 2),
           inout<float>("out", 2), shared<float>("buffer", {"32", "33"})},
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

TEST(GroupKernel, TiledTransposeThroughSharedMemory) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel transpose = runtime.kernel(transpose_kernel());
  const i64 rows = 70, cols = 45;  // partial tiles along both dimensions
  std::vector<float> in(std::size_t(rows * cols));
  std::iota(in.begin(), in.end(), 0.0f);
  Field f_in = runtime.wrap(in.data(), {rows, cols});
  Field out = runtime.allocate<float>({cols, rows});
  const Domain tiles{(rows + 31) / 32, (cols + 31) / 32};
  const LaunchSummary summary = transpose.launch(tiles, rows, cols, f_in, out);
  EXPECT_EQ(summary.shared_bytes, 32u * 33u * 4u);
  const std::vector<float> got = out.to_vector<float>();
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c)
      ASSERT_EQ(got[std::size_t(c * rows + r)], in[std::size_t(r * cols + c)]) << r << "," << c;
}

}  // namespace
}  // namespace stubjit
