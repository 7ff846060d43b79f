// Group kernels and tiled launches on the CPU backend, against host loops: every
// construct of the Group (inner loops, collapsed ones, fences, single, worker and
// vector loops, shared arrays), partial tiles, the tokens, the caches, and every error
// case (nothing runs when a launch is refused).
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
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
  EXPECT_EQ(summary.mode, Mode::spread);
  EXPECT_EQ(summary.rank, 2);
  EXPECT_EQ(summary.dispatches, 1u);

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

// Every construct of the Group on the CPU, one host thread per group: the loops run
// each iteration once, `single` once, the worker and vector levels degenerate to one
// worker of one lane, and the sizes say so.
TEST(GroupKernel, EveryConstructAgainstHostLoops) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel every = runtime.kernel(KernelSource{
      "every_construct",
      {group("g"), index("at"), scalar<std::int32_t>("n"), inout<std::int32_t>("one", 1),
       inout<std::int32_t>("two", 2), inout<std::int32_t>("three", 3),
       inout<std::int32_t>("singles"), inout<std::int32_t>("sizes", 1),
       inout<std::int32_t>("wv", 2), inout<std::int32_t>("vsingles", 1)},
      R"(
g.inner(n, [&](int k) { one(k) += int(at[0]) + 1; });
g.inner(n, n + 1, [&](int a, int b) { two(a, b) += 1; });
g.inner(2, n, 3, [&](int a, int b, int c) { three(a, b, c) += 1; });
g.fence();
g.single([&] { singles += 1; });
g.single([&] {
  sizes(0) = int(g.size()); sizes(1) = int(g.rank()); sizes(2) = int(g.warp_size());
  sizes(3) = int(g.worker_count()); sizes(4) = int(g.worker_rank());
  sizes(5) = int(g.vector_length()); sizes(6) = int(g.vector_rank());
});
g.worker_loop(n, [&](int w) {
  g.vector_loop(n + 2, [&](int v) { wv(w, v) += 1; });
  g.vector_fence();
  g.vector_single([&] { vsingles(w) += 1; });
});
)"});
  const std::int32_t n = 6;
  const i64 groups = 4;
  // Each group its own slice of every field (projected over the groups: the CPU runs
  // groups on several threads at once, so groups sharing an element would race).
  Field one = runtime.allocate<std::int32_t>({groups, n});
  Field two = runtime.allocate<std::int32_t>({groups, n, n + 1});
  Field three = runtime.allocate<std::int32_t>({groups, 2, n, 3});
  Field singles = runtime.allocate<std::int32_t>({groups});
  Field sizes = runtime.allocate<std::int32_t>({groups, 7});
  Field wv = runtime.allocate<std::int32_t>({groups, n, n + 2});
  Field vsingles = runtime.allocate<std::int32_t>({groups, n});
  for (Field* f : {&one, &two, &three, &singles, &wv, &vsingles})
    f->copy_from(std::vector<std::int32_t>(std::size_t(f->size()), 0));
  const LaunchSummary summary =
      every.launch(Domain{groups}, n, one, two, three, singles, sizes, wv, vsingles);
  EXPECT_EQ(summary.group_size, 1u);
  // Group g adds g + 1 to each element of its slice; every other construct adds 1 once.
  std::vector<std::int32_t> want_one;
  for (i64 g = 0; g < groups; ++g) want_one.insert(want_one.end(), std::size_t(n), int(g) + 1);
  EXPECT_EQ(one.to_vector<std::int32_t>(), want_one);
  EXPECT_EQ(two.to_vector<std::int32_t>(), std::vector<std::int32_t>(groups * n * (n + 1), 1));
  EXPECT_EQ(three.to_vector<std::int32_t>(), std::vector<std::int32_t>(groups * 2 * n * 3, 1));
  EXPECT_EQ(singles.to_vector<std::int32_t>(), std::vector<std::int32_t>(groups, 1));
  for (i64 g = 0; g < groups; ++g) {
    const std::vector<std::int32_t> got = sizes.to_vector<std::int32_t>();
    EXPECT_EQ(std::vector<std::int32_t>(got.begin() + g * 7, got.begin() + g * 7 + 7),
              (std::vector<std::int32_t>{1, 0, 1, 1, 0, 1, 0}));
  }
  EXPECT_EQ(wv.to_vector<std::int32_t>(), std::vector<std::int32_t>(groups * n * (n + 2), 1));
  EXPECT_EQ(vsingles.to_vector<std::int32_t>(), std::vector<std::int32_t>(groups * n, 1));
}

// Loops of no iteration and negative counts run nothing.
TEST(GroupKernel, EmptyAndNegativeInnerCountsRunNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel count = runtime.kernel(
      KernelSource{"count_nothing",
                   {group("g"), scalar<i64>("n"), inout<i64>("calls")},
                   "g.inner(n, [&](stubjit::i64) { calls += 1; });\n"
                   "g.inner(n, n, [&](stubjit::i64, stubjit::i64) { calls += 1; });\n"
                   "g.worker_loop(n, [&](stubjit::i64) { calls += 1; });"});
  Field calls = runtime.allocate<i64>({3});
  for (const i64 n : {i64(0), i64(-5)}) {
    calls.copy_from(std::vector<i64>(3, 0));
    count.launch(Domain{3}, n, calls);
    EXPECT_EQ(calls.to_vector<i64>(), std::vector<i64>(3, 0)) << n;
  }
}

// Shared arrays sized by scalars at launch: two of them, of different types and ranks,
// each group's own (a running sum through one, a copy through the other).
TEST(GroupKernel, SharedArraysSizedAtLaunch) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel prefix = runtime.kernel(
      KernelSource{"prefix_rows",
                   {group("g"), scalar<std::int32_t>("n"), scalar<std::int16_t>("m"),
                    in<double>("in", 1), inout<double>("out", 1), shared<double>("sums", {"n"}),
                    shared<std::int8_t>("flags", {"2", "m"})},
                   R"(
g.inner(n, [&](int k) { sums(k) = in(k); });
g.fence();
g.single([&] { for (int k = 1; k < n; ++k) sums(k) += sums(k - 1); });
g.fence();
g.inner(2, int(m), [&](int a, int b) { flags(a, b) = stubjit::i8(a + b); });
g.fence();
g.inner(n, [&](int k) { out(k) = sums(k) + flags(1, k % m); });
)"});
  const std::int32_t n = 50;
  const std::int16_t m = 7;
  const i64 rows = 9;
  std::vector<double> in(std::size_t(rows * n));
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = double(k % 11) - 3.0;
  Field f_in = runtime.wrap(in.data(), {rows, n});
  Field out = runtime.allocate<double>({rows, n});
  const LaunchSummary summary = prefix.launch(Domain{rows}, n, m, f_in, out);
  EXPECT_EQ(summary.shared_bytes, 400u + 16u);  // 50 doubles, then 14 bytes rounded to 16
  std::vector<double> expected(in.size());
  for (i64 r = 0; r < rows; ++r) {
    double sum = 0;
    for (i64 k = 0; k < n; ++k) {
      sum += in[std::size_t(r * n + k)];
      expected[std::size_t(r * n + k)] = sum + double(1 + k % m);
    }
  }
  EXPECT_EQ(out.to_vector<double>(), expected);
}

// A Fortran-order domain of groups: the index token keeps the domain's own order and
// the fields their column-major elements.
TEST(GroupKernel, FortranOrderDomainOfGroups) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel columns = runtime.kernel(KernelSource{
      "fortran_columns",
      {group("g"), index("at"), scalar<i64>("nz"), inout<i64>("cell", 1)},
      "g.inner(nz, [&](stubjit::i64 k) { cell(k) = at[0] * 10000 + at[1] * 100 + k; });"});
  const i64 ni = 4, nj = 3, nz = 5;
  // cell(k, i, j) in Fortran: the domain (i, j) projects the trailing dimensions.
  Field cell = runtime.allocate<i64>({ni, nj, nz}, Layout::column_major);
  const Domain ij({Dim{0, ni, 1}, Dim{0, nj, 1}}, Order::fortran);
  columns.launch(ij, nz, cell);
  const std::vector<i64> got = cell.to_vector<i64>();
  for (i64 i = 0; i < ni; ++i)
    for (i64 j = 0; j < nj; ++j)
      for (i64 k = 0; k < nz; ++k)
        ASSERT_EQ(got[std::size_t(i + ni * (j + nj * k))], i * 10000 + j * 100 + k);
}

// A specialized scalar in a group kernel: one stub per value, each right.
TEST(GroupKernel, SpecializedScalarsCompileOneStubPerValue) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel scale = runtime.kernel(KernelSource{
      "scale_columns",
      {group("g"), specialized<std::int32_t>("len"), scalar<double>("a"), inout<double>("v", 1)},
      "g.inner(len, [&](int k) { v(k) *= a; });"});
  Field v = runtime.allocate<double>({3, 8});
  v.copy_from(std::vector<double>(24, 1.0));
  EXPECT_TRUE(scale.launch(Domain{3}, 8, 2.0, v).compiled);
  EXPECT_TRUE(scale.launch(Domain{3}, 4, 3.0, v).compiled);
  EXPECT_FALSE(scale.launch(Domain{3}, 8, 2.0, v).compiled);
  std::vector<double> expected(24);
  for (std::size_t k = 0; k < 24; ++k) expected[k] = k % 8 < 4 ? 12.0 : 4.0;
  EXPECT_EQ(v.to_vector<double>(), expected);
  EXPECT_EQ(runtime.counters().compiles, 2u);
}

// Per-element kernels over tiles: every index once, with its tile and place in it,
// partial tiles at both edges, tiles of rank 1 to 4 and one larger than the domain.
TEST(TiledLaunch, EachIndexOnceWithItsTokensInEveryTiling) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel mark = runtime.kernel(KernelSource{"mark_tiles",
                                            {index("i"), tile_index("t"), local_index("l"),
                                             inout<i64>("code"), inout<std::int32_t>("visits")},
                                            R"(
stubjit::i64 c = 0;
for (int d = 0; d < i.rank; ++d) c = c * 1000 + t[d] * 100 + l[d] * 10 + (i[d] % 10);
code = c;
visits += 1;
)"});
  struct Case {
    std::vector<i64> extents;
    Tile tile;
  };
  const std::vector<Case> cases = {{{21, 13}, Tile{8, 5}},
                                   {{21, 13}, Tile{6}},
                                   {{21, 13}, Tile{64, 64}},
                                   {{9, 7, 5}, Tile{2, 3, 4}},
                                   {{4, 5, 6, 7}, Tile{3, 2, 4, 5}},
                                   {{40}, Tile{7}},
                                   {{5, 6}, Tile{1, 1}}};
  for (const Case& c : cases) {
    SCOPED_TRACE("domain rank " + std::to_string(c.extents.size()) + ", tile of " +
                 std::to_string(c.tile.elements()));
    Field code = runtime.allocate<i64>(c.extents);
    Field visits = runtime.allocate<std::int32_t>(c.extents);
    visits.copy_from(std::vector<std::int32_t>(std::size_t(visits.size()), 0));
    std::vector<Dim> dims;
    for (const i64 e : c.extents) dims.push_back(Dim{0, e, 1});
    LaunchOptions options;
    options.tile = c.tile;
    const LaunchSummary summary = mark.launch(options, Domain(dims), code, visits);
    EXPECT_EQ(summary.group_size, 1u);
    EXPECT_EQ(visits.to_vector<std::int32_t>(),
              std::vector<std::int32_t>(std::size_t(visits.size()), 1));
    // The host's tokens, row-major.
    const int rank = int(c.extents.size());
    std::vector<i64> expected(std::size_t(code.size()));
    for (std::size_t flat = 0; flat < expected.size(); ++flat) {
      std::vector<i64> pos(static_cast<std::size_t>(rank));
      std::size_t rest = flat;
      for (int d = rank - 1; d >= 0; --d) {
        pos[std::size_t(d)] = i64(rest % std::size_t(c.extents[std::size_t(d)]));
        rest /= std::size_t(c.extents[std::size_t(d)]);
      }
      i64 want = 0;
      for (int d = 0; d < rank; ++d) {
        const int untiled = rank - c.tile.rank;
        const i64 t = d < untiled ? 1 : c.tile.extents[std::size_t(d - untiled)];
        const i64 p = pos[std::size_t(d)];
        want = want * 1000 + p / t * 100 + p % t * 10 + p % 10;
      }
      expected[flat] = want;
    }
    EXPECT_EQ(code.to_vector<i64>(), expected);
  }
}

// A tiled launch over a strided domain: the tokens count positions, the index is
// logical.
TEST(TiledLaunch, StridedDomainsTileTheirPositions) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel mark = runtime.kernel(
      KernelSource{"mark_strided",
                   {index("i"), tile_index("t"), local_index("l"), inout<i64>("out", 1)},
                   "out(i[0]) = t[0] * 100 + l[0];"});
  Field out = runtime.allocate<i64>({40});
  out.copy_from(std::vector<i64>(40, -1));
  LaunchOptions options;
  options.tile = Tile{4};
  mark.launch(options, Domain({Dim{38, 10, -3}}), out);  // i = 38, 35, ..., 11
  std::vector<i64> expected(40, -1);
  for (i64 k = 0; k < 10; ++k) expected[std::size_t(38 - 3 * k)] = k / 4 * 100 + k % 4;
  EXPECT_EQ(out.to_vector<i64>(), expected);
}

// The stubs go through the caches: the same launch again is a memory hit, another
// runtime over the same directory loads it from disk and compiles nothing.
TEST(GroupKernel, StubsComeFromMemoryThenFromDisk) {
  const test::ScopedEnv cache_on("STUBJIT_CACHE", std::nullopt);
  const test::TempDir dir;
  RuntimeOptions options = test::cpu_options();
  options.cache_dir = dir.path();
  const auto run = [&](Runtime& runtime) {
    Kernel column = runtime.kernel(column_kernel());
    Field state = runtime.allocate<double>({2, 3, 4});
    Field density = runtime.allocate<double>({2, 3, 6});
    Field w = runtime.allocate<double>({2, 3, 6});
    Field m = runtime.allocate<double>({2, 3, 6});
    state.copy_from(std::vector<double>(24, 2.0));
    density.copy_from(std::vector<double>(36, 3.0));
    const LaunchSummary first = column.launch(Domain{2, 3}, i64(4), state, density, w, m);
    EXPECT_FALSE(column.launch(Domain{2, 3}, i64(4), state, density, w, m).compiled);
    std::vector<double> expected(36, 6.0);
    for (std::size_t c = 0; c < 6; ++c) expected[c * 6] = expected[c * 6 + 5] = 0.0;
    EXPECT_EQ(m.to_vector<double>(), expected);
    return first.compiled;
  };
  {
    Runtime first(options);
    EXPECT_TRUE(run(first));
    EXPECT_EQ(first.counters().compiles, 1u);
  }
  Runtime second(options);
  EXPECT_FALSE(run(second));
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 1u);
}

// prepare compiles the group stub without running it; binary gives its bytes.
TEST(GroupKernel, PrepareAndBinary) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel column = runtime.kernel(column_kernel());
  Field state = runtime.allocate<double>({2, 3, 4});
  Field density = runtime.allocate<double>({2, 3, 6});
  Field w = runtime.allocate<double>({2, 3, 6});
  Field m = runtime.allocate<double>({2, 3, 6});
  w.copy_from(std::vector<double>(36, 5.0));
  const LaunchSummary prepared = column.prepare(Domain{2, 3}, i64(4), state, density, w, m);
  EXPECT_TRUE(prepared.compiled);
  EXPECT_EQ(prepared.group_size, 1u);
  EXPECT_EQ(w.to_vector<double>(), std::vector<double>(36, 5.0)) << "prepare ran the kernel";
  EXPECT_EQ(runtime.counters().launches, 0u);
  EXPECT_FALSE(column.launch(Domain{2, 3}, i64(4), state, density, w, m).compiled);
  const StubBinary binary = column.binary(Domain{2, 3}, {i64(4), state, density, w, m});
  EXPECT_EQ(binary.format, "elf-shared-object");
  EXPECT_EQ(binary.rank, 2);
  EXPECT_EQ(prepared.rank, 2);
  EXPECT_EQ(binary.entry, "stubjit_column_group_r2");
  EXPECT_EQ(runtime.counters().compiles, 1u);
  const std::string source = column.stub_source(Domain{2, 3}, {i64(4), state, density, w, m});
  EXPECT_NE(source.find("stubjit::Group"), std::string::npos);
  // The plan: the six groups, numbered and spread.
  const Plan plan = column.plan(Domain{2, 3});
  EXPECT_EQ(plan.mode, Mode::spread);
  ASSERT_EQ(plan.dispatches.size(), 1u);
  EXPECT_EQ(plan.dispatches[0].linear_begin, 0);
  EXPECT_EQ(plan.dispatches[0].linear_end, 6);
  EXPECT_THROW(column.plan(Domain{2, 3}, Mode::direct), PlanError);
  EXPECT_TRUE(column.plan(Domain{0, 3}).dispatches.empty());
}

// --- errors: each refused before anything runs, nothing compiled -----------------------

// Runs `launch`, expects an exception of type E whose message holds each of `parts`,
// and checks that nothing was compiled or launched.
template <class E>
void expect_refused(Runtime& runtime, const std::function<void()>& launch,
                    const std::vector<std::string>& parts) {
  const CacheCounters before = runtime.counters();
  try {
    launch();
    ADD_FAILURE() << "not refused";
  } catch (const E& error) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << error.what() << " lacks '" << part << "'";
  }
  EXPECT_EQ(runtime.counters().compiles, before.compiles);
  EXPECT_EQ(runtime.counters().launches, before.launches);
}

TEST(GroupErrors, SignaturesThatMixPatternsAreRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  const auto refused = [&](Signature signature, const std::string& part,
                           const std::string& filter = "") {
    KernelSource source{"bad", std::move(signature), "(void)0;"};
    source.filter = filter;
    expect_refused<SignatureError>(runtime, [&] { runtime.kernel(source); }, {part});
  };
  refused({group("g"), group("h")}, "two group parameters");
  refused({shared<float>("s", {"4"}), inout<float>("x")}, "belong to group kernels");
  refused({group("g"), tile_index("t")}, "tile tokens are for tiled launches");
  refused({group("g"), local_index("l")}, "tile tokens are for tiled launches");
  refused({group("g"), mask<std::int32_t>("m")}, "masks filter the indices");
  refused({group("g"), inout<float>("x")}, "filters are for per-element kernels", "i[0] > 0");
  refused({group("g"), shared<float>("s", {})}, "1 to 8");
  refused({group("g"), shared<float>("s", {"0"})}, "1 to 2147483647");
  refused({group("g"), shared<float>("s", {"2147483648"})}, "1 to 2147483647");
  refused({group("g"), shared<float>("s", {"n"})}, "neither a positive integer nor a scalar");
  refused({group("g"), scalar<float>("n"), shared<float>("s", {"n"})},
          "an extent names an integer scalar parameter");
  refused({group("g"), inout<std::int32_t>("n"), shared<float>("s", {"n"})},
          "an extent names an integer scalar parameter");
  refused({group("g"), shared<float>("s", {"1+2"})}, "neither a positive integer nor a scalar");
  Param ranked = group("g");
  ranked.rank = 2;
  refused({ranked}, "must have rank 0");
  Param extents = inout<float>("x");
  extents.extents = {"3"};
  refused({group("g"), extents}, "only shared arrays have them");
}

TEST(GroupErrors, LaunchesThatCannotRunAreRefusedAndRunNothing) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel column = runtime.kernel(column_kernel());
  Kernel tiled =
      runtime.kernel(KernelSource{"tiled", {tile_index("t"), inout<i64>("out")}, "out = t[0];"});
  Kernel plain = runtime.kernel(test::saxpy_kernel());
  Field state = runtime.allocate<double>({2, 3, 4});
  Field density = runtime.allocate<double>({2, 3, 6});
  Field w = runtime.allocate<double>({2, 3, 6});
  Field m = runtime.allocate<double>({2, 3, 6});
  w.copy_from(std::vector<double>(36, 7.0));
  Field out = runtime.allocate<i64>({4, 4});
  out.copy_from(std::vector<i64>(16, 9));
  Field x = runtime.allocate<float>({16});
  Field y = runtime.allocate<float>({16});

  LaunchOptions tile;
  tile.tile = Tile{2, 2};
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  column.launch(tile, Domain{2, 3}, i64(4), state, density, w, m);
                                },
                                {"group kernel", "takes no tile"});
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  tiled.launch(Domain{4, 4}, out);
                                },
                                {"tile_index t", "LaunchOptions::tile"});
  LaunchOptions sized;
  sized.group_size = 64;
  expect_refused<ArgumentError>(runtime, [&] { plain.launch(sized, Domain{16}, 1.0f, x, y); },
                                {"group_size", "group kernels and tiled launches"});
  LaunchOptions too_deep;
  too_deep.tile = Tile{2, 2, 2};
  expect_refused<PlanError>(runtime,
                            [&] {
                              tiled.launch(too_deep, Domain{4, 4}, out);
                            },
                            {"rank 3", "rank 2"});
  LaunchOptions zero;
  zero.tile = Tile{2, 0};
  expect_refused<PlanError>(runtime,
                            [&] {
                              tiled.launch(zero, Domain{4, 4}, out);
                            },
                            {"tile extent 1", "is 0"});
  expect_refused<PlanError>(
      runtime,
      [&] {
        tiled.launch(tile, Domain({Dim{0, 4, 1}, Dim{0, 4, 1}}, Order::fortran), out);
      },
      {"Fortran-order"});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  expect_refused<PlanError>(runtime,
                            [&] {
                              column.launch(direct, Domain{2, 3}, i64(4), state, density, w, m);
                            },
                            {"mode direct cannot be forced"});
  EXPECT_EQ(w.to_vector<double>(), std::vector<double>(36, 7.0));
  EXPECT_EQ(out.to_vector<i64>(), std::vector<i64>(16, 9));
}

TEST(GroupErrors, GroupSizesOutsideTheKernelsClassNameBothNumbers) {
  Runtime runtime(test::cpu_memory_only_options());
  KernelSource fixed_source = column_kernel();
  fixed_source.name = "fixed_column";
  fixed_source.block.shape = {32, 2, 1};
  KernelSource bounded_source = column_kernel();
  bounded_source.name = "bounded_column";
  bounded_source.block.max_threads = 128;
  Kernel fixed = runtime.kernel(fixed_source);
  Kernel bounded = runtime.kernel(bounded_source);
  Field state = runtime.allocate<double>({2, 3, 4});
  Field density = runtime.allocate<double>({2, 3, 6});
  Field w = runtime.allocate<double>({2, 3, 6});
  Field m = runtime.allocate<double>({2, 3, 6});
  w.copy_from(std::vector<double>(36, 7.0));
  LaunchOptions options;
  options.group_size = 128;
  expect_refused<PlanError>(runtime,
                            [&] {
                              fixed.launch(options, Domain{2, 3}, i64(4), state, density, w, m);
                            },
                            {"128", "fixes its groups at 64"});
  options.group_size = 256;
  expect_refused<PlanError>(runtime,
                            [&] {
                              bounded.launch(options, Domain{2, 3}, i64(4), state, density, w, m);
                            },
                            {"256", "at most 128"});
  EXPECT_EQ(w.to_vector<double>(), std::vector<double>(36, 7.0));
  // Within the class: runs, and right (w = the state between zero boundaries).
  state.copy_from(std::vector<double>(24, 2.5));
  density.copy_from(std::vector<double>(36, 2.0));
  std::vector<double> want_w(36, 2.5);
  for (std::size_t c = 0; c < 6; ++c) want_w[c * 6] = want_w[c * 6 + 5] = 0.0;
  options.group_size = 64;
  EXPECT_EQ(fixed.launch(options, Domain{2, 3}, i64(4), state, density, w, m).group_size, 1u);
  EXPECT_EQ(w.to_vector<double>(), want_w);
  w.copy_from(std::vector<double>(36, 7.0));
  options.group_size = 128;
  bounded.launch(options, Domain{2, 3}, i64(4), state, density, w, m);
  EXPECT_EQ(w.to_vector<double>(), want_w);
  // An elastic kernel: any size up to the device's limit, a PlanError above it.
  Kernel elastic = runtime.kernel(column_kernel());
  options.group_size = 1u << 21;  // the CPU's limit is 2^20
  expect_refused<PlanError>(runtime,
                            [&] {
                              elastic.launch(options, Domain{2, 3}, i64(4), state, density, w, m);
                            },
                            {"2097152", "at most 1048576"});
}

TEST(GroupErrors, SharedMemoryBeyondTheLimitOrNegativeExtentsAreRefused) {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.limits = DeviceLimits{};
  options.limits->max_shared_bytes = 1024;
  Runtime runtime(options);
  Kernel k = runtime.kernel(KernelSource{
      "big_shared",
      {group("g"), scalar<std::int32_t>("n"), inout<float>("x", 1), shared<float>("a", {"n"}),
       shared<double>("b", {"8", "n"})},
      "g.inner(n, [&](int i) { a(i) = x(i); b(0, i) = a(i); x(i) = float(b(0, i)) + 1; });"});
  Field x = runtime.allocate<float>({2, 20});
  x.copy_from(std::vector<float>(40, 1.0f));
  expect_refused<PlanError>(runtime, [&] { k.launch(Domain{2}, 20, x); },
                            {"1360 bytes", "a: 80", "b: 1280", "allows 1024"});
  expect_refused<ArgumentError>(runtime, [&] { k.launch(Domain{2}, -3, x); }, {"extent n = -3"});
  EXPECT_EQ(x.to_vector<float>(), std::vector<float>(40, 1.0f));
  const LaunchSummary fits = k.launch(Domain{2}, 10, x);  // 48 + 640 bytes
  EXPECT_EQ(fits.shared_bytes, 48u + 640u);
  std::vector<float> expected(40, 1.0f);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t i = 0; i < 10; ++i) expected[r * 20 + i] = 2.0f;
  EXPECT_EQ(x.to_vector<float>(), expected);
}

// Literal extents are decimal, whatever their spelling: "010" is ten elements, and the
// stub lays its arrays out as the host sized them (two arrays side by side).
TEST(GroupKernel, LiteralExtentsAreDecimal) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel k = runtime.kernel(KernelSource{
      "decimal_extents",
      {group("g"), inout<i64>("out", 1), shared<i64>("a", {"010"}), shared<i64>("b", {"09"})},
      R"(g.inner(10, [&](int i) { a(i) = i; });
g.inner(9, [&](int i) { b(i) = 100 + i; });
g.fence();
g.inner(10, [&](int i) { out(i) = a(i); });
g.inner(9, [&](int i) { out(10 + i) = b(i); });)"});
  Field out = runtime.allocate<i64>({2, 19});
  const LaunchSummary summary = k.launch(Domain{2}, out);
  EXPECT_EQ(summary.shared_bytes, 80u + 80u);  // 10 and 9 int64, each rounded to 16 bytes
  std::vector<i64> row;
  for (i64 i = 0; i < 10; ++i) row.push_back(i);
  for (i64 i = 0; i < 9; ++i) row.push_back(100 + i);
  std::vector<i64> expected = row;
  expected.insert(expected.end(), row.begin(), row.end());
  EXPECT_EQ(out.to_vector<i64>(), expected);
}

// A grid that holds more groups than the domain has (small grid limits round a spread
// grid up) runs each group once and no other.
TEST(GroupKernel, GroupsPastTheDomainNeverRun) {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.limits = DeviceLimits{};
  options.limits->max_grid = {64, 64, 64};
  Runtime runtime(options);
  Kernel count = runtime.kernel(KernelSource{
      "count_groups",
      {group("g"), index("i"), inout<i64>("seen", 1)},
      "g.single([&] { stubjit::atomic_add(seen(i[0] < 4099 ? i[0] : 4099), stubjit::i64(1)); });"});
  const Plan plan = count.plan(Domain{4099});
  const Dispatch& dispatch = plan.dispatches.at(0);
  ASSERT_GT(dispatch.grid[0] * dispatch.grid[1] * dispatch.grid[2], 4099u)
      << "the grid covers the groups exactly: this test tests nothing";
  Field seen = runtime.allocate<i64>({4100});
  seen.copy_from(std::vector<i64>(4100, 0));
  count.launch(Domain{4099}, seen);
  std::vector<i64> expected(4100, 1);
  expected[4099] = 0;
  EXPECT_EQ(seen.to_vector<i64>(), expected);
}

// Shared arrays live in memory the runner gives each of its threads, not on the
// caller's stack: the largest the CPU allows runs from a thread with a small stack.
TEST(GroupKernel, SharedArraysDoNotUseTheCallersStack) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel k = runtime.kernel(KernelSource{
      "big_shared_array",
      {group("g"), scalar<i64>("n"), inout<i64>("out", 1), shared<i64>("a", {"n"})},
      "g.inner(n, [&](stubjit::i64 i) { a(i) = 3 * i; });\ng.fence();\n"
      "g.single([&] { stubjit::i64 s = 0; for (stubjit::i64 i = 0; i < n; ++i) s += a(i); "
      "out(0) = s; });"});
  const i64 n = 256 * 1024 / 8;  // 256 KiB: the CPU's limit
  Field out = runtime.allocate<i64>({1, 1});
  k.prepare(Domain{1}, n, out);  // compiled here: the small stack only runs the launch
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, 128 * 1024), 0);
  struct Launch {
    Kernel* kernel;
    i64 n;
    Field* out;
  } launch{&k, n, &out};
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attributes,
                [](void* raw) -> void* {
                  auto* l = static_cast<Launch*>(raw);
                  l->kernel->launch(Domain{1}, l->n, *l->out);
                  return nullptr;
                },
                &launch),
            0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attributes);
  EXPECT_EQ(out.to_vector<i64>(), std::vector<i64>{3 * n * (n - 1) / 2});
}

TEST(GroupErrors, TilesOfMoreThanTwoToTheThirtyOneElementsAreRefused) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel mark = runtime.kernel(
      KernelSource{"mark_huge_tiles", {tile_index("t"), inout<i64>("out")}, "out = t[0];"});
  Field out = runtime.allocate<i64>({4, 4});
  out.copy_from(std::vector<i64>(16, 9));
  LaunchOptions huge;
  huge.tile = Tile{65536, 65536};
  expect_refused<PlanError>(runtime,
                            [&] {
                              mark.launch(huge, Domain{4, 4}, out);
                            },
                            {"4294967296 elements", "at most 2^31"});
  EXPECT_EQ(out.to_vector<i64>(), std::vector<i64>(16, 9));
}

}  // namespace
}  // namespace stubjit
