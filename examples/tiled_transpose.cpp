// A matrix transpose through group-shared memory: out = in^T for a rows x cols matrix.
//
// One group per 32 x 32 tile of `in`: the group reads its tile row by row into a shared
// 32 x 33 buffer, waits (fence), then writes the buffer column by column into `out`, so
// that both the reads of `in` and the writes of `out` run along rows (on a GPU: the
// threads of a warp touch consecutive addresses). The 33rd column pads the buffer: a
// column of it then spans 32 different shared-memory banks instead of one. Tiles at the
// right and bottom edges are partial (1000 x 700 is not a multiple of 32): the body
// skips positions outside the matrix, but every thread reaches the fence.
//
// The group kernel's domain is the grid of tiles; its `index` token is the tile's
// position in it. `in` and `out` are bound whole (rank 2, broadcast).
//
//   build/examples/tiled_transpose
#include <stubjit/stubjit.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());

  using i64 = std::int64_t;
  stubjit::Kernel transpose = runtime.kernel({
      "tiled_transpose",
      {stubjit::group("g"), stubjit::index("tile"), stubjit::scalar<i64>("rows"),
       stubjit::scalar<i64>("cols"), stubjit::in<float>("in", 2), stubjit::inout<float>("out", 2),
       stubjit::shared<float>("buffer", {"32", "33"})},
      R"(
const stubjit::i64 r0 = tile[0] * 32, c0 = tile[1] * 32;  // the tile's first row and column
// Read: consecutive c along a row of `in`.
g.inner(stubjit::i64(32), stubjit::i64(32), [&](stubjit::i64 r, stubjit::i64 c) {
  if (r0 + r < rows && c0 + c < cols) buffer(r, c) = in(r0 + r, c0 + c);
});
g.fence();  // the whole tile is in `buffer`
// Write: consecutive r along a row of `out` (a column of the tile).
g.inner(stubjit::i64(32), stubjit::i64(32), [&](stubjit::i64 c, stubjit::i64 r) {
  if (r0 + r < rows && c0 + c < cols) out(c0 + c, r0 + r) = buffer(r, c);
});
)",
  });

  const i64 rows = 1000, cols = 700;
  std::vector<float> in(std::size_t(rows * cols));
  for (std::size_t n = 0; n < in.size(); ++n) in[n] = float(n);  // exact in a float
  stubjit::Field f_in = runtime.allocate<float>({rows, cols});
  stubjit::Field f_out = runtime.allocate<float>({cols, rows});
  f_in.copy_from(in);
  f_out.copy_from(std::vector<float>(in.size(), -1.0f));

  const stubjit::Domain tiles{(rows + 31) / 32, (cols + 31) / 32};  // 32 x 22 tiles
  stubjit::LaunchOptions options;
  options.group_size = 256;  // on a GPU: 8 warps, each thread moving 4 elements each way
  const stubjit::LaunchSummary summary = transpose.launch(options, tiles, rows, cols, f_in, f_out);
  std::printf(
      "%lld x %lld matrix, %lld x %lld tiles of 32 x 32, %u thread(s) per group, "
      "%u bytes of shared memory per group\n",
      (long long)rows, (long long)cols, (long long)tiles[0].count, (long long)tiles[1].count,
      summary.group_size, summary.shared_bytes);

  const std::vector<float> out = f_out.to_vector<float>();
  std::size_t wrong = 0;
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c)
      wrong += out[std::size_t(c * rows + r)] != in[std::size_t(r * cols + c)];
  std::printf("result check: %s (%zu of %zu elements wrong)\n", wrong ? "FAILED" : "ok", wrong,
              out.size());
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
