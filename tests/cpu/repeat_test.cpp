// Kernel::repeat (IrGL's loop until a flag) on the CPU backend, each against a host
// computation: a breadth-first search pulled level by level between double buffers
// until nothing changes (Any), halvings until every element is zero (All), a loop that
// reaches its most iterations, the swaps' parity, one compile for every iteration, and
// every error before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "common/expect_refused.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

constexpr i32 unreached = std::numeric_limits<i32>::max();

// A graph in compressed rows: start[v] .. start[v + 1] index v's neighbours in adj.
struct Graph {
  std::vector<i64> start;
  std::vector<i32> adj;
  i64 vertices() const { return i64(start.size()) - 1; }
};

// A w x h grid (each vertex linked to its four neighbours) with a few long links.
Graph grid_graph(i32 w, i32 h) {
  std::vector<std::vector<i32>> links(static_cast<std::size_t>(w * h));
  const auto link = [&](i32 a, i32 b) {
    links[std::size_t(a)].push_back(b);
    links[std::size_t(b)].push_back(a);
  };
  for (i32 y = 0; y < h; ++y)
    for (i32 x = 0; x < w; ++x) {
      if (x + 1 < w) link(y * w + x, y * w + x + 1);
      if (y + 1 < h) link(y * w + x, (y + 1) * w + x);
    }
  for (i32 k = 0; k < 5; ++k) link((k * 7919) % (w * h), (k * 104729 + 13) % (w * h));
  Graph g;
  g.start.push_back(0);
  for (const auto& l : links) {
    g.adj.insert(g.adj.end(), l.begin(), l.end());
    g.start.push_back(i64(g.adj.size()));
  }
  return g;
}

std::vector<i32> host_bfs(const Graph& g, i32 source) {
  std::vector<i32> dist(static_cast<std::size_t>(g.vertices()), unreached);
  std::deque<i32> queue{source};
  dist[std::size_t(source)] = 0;
  while (!queue.empty()) {
    const i32 v = queue.front();
    queue.pop_front();
    for (i64 e = g.start[std::size_t(v)]; e < g.start[std::size_t(v) + 1]; ++e) {
      const i32 u = g.adj[std::size_t(e)];
      if (dist[std::size_t(u)] == unreached) {
        dist[std::size_t(u)] = dist[std::size_t(v)] + 1;
        queue.push_back(u);
      }
    }
  }
  return dist;
}

// Each vertex pulls its distance from its neighbours' of the iteration before (read
// whole from `dist`), writes it to `next`, and says whether it changed.
KernelSource bfs_step() {
  return {"bfs_step",
          {index("v"), in<i64>("start", 1), in<i32>("adj", 1), in<i32>("dist", 1),
           inout<i32>("next"), result<bool>("changed", Combiner::any)},
          "const stubjit::i64 u = v[0];\n"
          "int best = dist(u);\n"
          "for (stubjit::i64 e = start(u); e < start(u + 1); ++e) {\n"
          "  const int d = dist(adj(e));\n"
          "  if (d != 2147483647 && d + 1 < best) best = d + 1;\n"
          "}\n"
          "next = best;\n"
          "changed = best != dist(u);"};
}

TEST(Repeat, ABreadthFirstSearchRunsUntilNothingChangesBetweenDoubleBuffers) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel step = runtime.kernel(bfs_step());
  const Graph g = grid_graph(60, 40);
  const i64 n = g.vertices();
  const std::vector<i32> want = host_bfs(g, 0);
  i32 deepest = 0;
  for (const i32 d : want) deepest = std::max(deepest, d);
  Field start = runtime.allocate<i64>({n + 1});
  Field adj = runtime.allocate<i32>({i64(g.adj.size())});
  Field a = runtime.allocate<i32>({n});
  Field b = runtime.allocate<i32>({n});
  start.copy_from(g.start);
  adj.copy_from(g.adj);
  std::vector<i32> initial(static_cast<std::size_t>(n), unreached);
  initial[0] = 0;
  a.copy_from(initial);
  RepeatOptions options;
  options.swaps = {{a, b}};
  // Iteration k reads a (k odd) or b and writes the other: `dist` and `next` trade.
  const RepeatSummary summary = step.repeat(options, Domain{n}, start, adj, a, b);
  EXPECT_TRUE(summary.converged);
  // One iteration per level reached, and one more that changed nothing.
  EXPECT_EQ(summary.iterations, i64(deepest) + 1);
  EXPECT_EQ(summary.swapped, summary.iterations % 2 == 0);
  EXPECT_TRUE(summary.compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(runtime.counters().launches, std::uint64_t(summary.iterations));
  // The last iteration wrote `next`: b unless the pair was traded.
  EXPECT_EQ((summary.swapped ? a : b).to_vector<i32>(), want);
  // It changed nothing, so what it read holds the same.
  EXPECT_EQ((summary.swapped ? b : a).to_vector<i32>(), want);
}

// A loop that stops at max_iterations part-way through the search: the buffers differ,
// and the one the summary names holds what the last iteration wrote (levels up to the
// iteration count), the other what it read (one level less), for an odd and an even
// count.
TEST(Repeat, TheSummaryNamesTheBufferTheLastIterationWrote) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel step = runtime.kernel(bfs_step());
  const Graph g = grid_graph(30, 20);
  const i64 n = g.vertices();
  const std::vector<i32> levels = host_bfs(g, 0);
  Field start = runtime.allocate<i64>({n + 1});
  Field adj = runtime.allocate<i32>({i64(g.adj.size())});
  start.copy_from(g.start);
  adj.copy_from(g.adj);
  const auto up_to = [&](i64 k) {
    std::vector<i32> want = levels;
    for (i32& d : want)
      if (d > k) d = unreached;
    return want;
  };
  for (const i64 most : {i64(5), i64(6)}) {
    Field a = runtime.allocate<i32>({n});
    Field b = runtime.allocate<i32>({n});
    std::vector<i32> initial(static_cast<std::size_t>(n), unreached);
    initial[0] = 0;
    a.copy_from(initial);
    b.copy_from(initial);
    RepeatOptions options;
    options.max_iterations = most;
    options.swaps = {{a, b}};
    const RepeatSummary summary = step.repeat(options, Domain{n}, start, adj, a, b);
    EXPECT_FALSE(summary.converged);
    EXPECT_EQ(summary.iterations, most);
    EXPECT_EQ(summary.swapped, most % 2 == 0);
    EXPECT_EQ((summary.swapped ? a : b).to_vector<i32>(), up_to(most)) << most;
    EXPECT_EQ((summary.swapped ? b : a).to_vector<i32>(), up_to(most - 1)) << most;
  }
}

TEST(Repeat, AnAllFlagRunsUntilEveryIndexIsDone) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel halve = runtime.kernel({"halve",
                                 {inout<i64>("x"), result<bool>("done", Combiner::all)},
                                 "x = x / 2; done = x == 0;"});
  const std::vector<i64> values = {1000, 3, 0, 77, 1023, 1024, 5};
  Field x = runtime.allocate<i64>({i64(values.size())});
  x.copy_from(values);
  const RepeatSummary summary = halve.repeat(Domain{i64(values.size())}, x);
  // 1024 takes the most halvings to reach 0: 11.
  EXPECT_TRUE(summary.converged);
  EXPECT_EQ(summary.iterations, 11);
  EXPECT_FALSE(summary.swapped);
  EXPECT_EQ(x.to_vector<i64>(), std::vector<i64>(values.size(), 0));
}

TEST(Repeat, ALoopStopsAtItsMostIterationsUnconverged) {
  Runtime runtime(test::cpu_memory_only_options());
  Kernel count = runtime.kernel({"count_up",
                                 {inout<i64>("x"), result<bool>("changed", Combiner::any)},
                                 "x = x + 1; changed = true;"});
  Field x = runtime.allocate<i64>({4});
  x.copy_from(std::vector<i64>(4, 0));
  RepeatOptions options;
  options.max_iterations = 25;
  const RepeatSummary summary = count.repeat(options, Domain{4}, x);
  EXPECT_FALSE(summary.converged);
  EXPECT_EQ(summary.iterations, 25);
  EXPECT_EQ(x.to_vector<i64>(), std::vector<i64>(4, 25));
  options.max_iterations = 1;
  EXPECT_EQ(count.repeat(options, Domain{4}, x).iterations, 1);
  EXPECT_EQ(x.to_vector<i64>(), std::vector<i64>(4, 26));
}

using test::expect_refused;

TEST(Repeat, KernelsAndOptionsThatCannotLoopAreRefusedAndNothingRuns) {
  Runtime runtime(test::cpu_memory_only_options());
  Field x = runtime.allocate<i64>({8});
  Field y = runtime.allocate<i64>({8});
  Field z = runtime.allocate<i64>({9});
  Field f = runtime.allocate<double>({8});
  x.copy_from(std::vector<i64>(8, 3));
  Kernel plain = runtime.kernel({"plain", {inout<i64>("x")}, "x = 1;"});
  Kernel sum =
      runtime.kernel({"summed", {in<i64>("x"), result<i64>("v", Combiner::sum)}, "v = x;"});
  Kernel ored =
      runtime.kernel({"ored", {in<i64>("x"), result<bool>("v", Combiner::bit_or)}, "v = x > 0;"});
  Kernel step =
      runtime.kernel({"step",
                      {in<i64>("x"), inout<i64>("y"), result<bool>("changed", Combiner::any)},
                      "y = x; changed = false;"});
  Kernel step3 = runtime.kernel(
      {"step3",
       {in<i64>("x"), inout<i64>("y"), in<i64>("z"), result<bool>("changed", Combiner::any)},
       "y = x + z; changed = false;"});
  expect_refused<ArgumentError>(runtime, [&] { plain.repeat(Domain{8}, x); }, {"it has no result"});
  expect_refused<ArgumentError>(runtime, [&] { sum.repeat(Domain{8}, x); },
                                {"a rank-0 result<bool> with Combiner::any or Combiner::all",
                                 "result<int64, sum, rank 0> v"});
  expect_refused<ArgumentError>(runtime, [&] { ored.repeat(Domain{8}, x); },
                                {"result<bool, bit_or, rank 0> v"});
  expect_refused<ArgumentError>(
      runtime, [&] { step.repeat(Domain{8}, x); },
      {"takes 2 arguments (x, y; the result 'changed' is its own), got 1"});
  RepeatOptions options;
  options.max_iterations = 0;
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"max_iterations is 0"});
  options.max_iterations = 10;
  options.swaps = {{x, z}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"swap 0 pairs fields of different types or extents"});
  options.swaps = {{x, f}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"different types"});
  options.swaps = {{x, x}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"pairs a field with itself"});
  Field other = runtime.allocate<i64>({8});
  options.swaps = {{x, other}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"its second field is not among the arguments"});
  options.swaps = {{x, Field()}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, x, y); },
                                {"holds a null field"});
  // A field in two pairs would trade back, or rotate.
  options.swaps = {{x, y}, {y, other}};
  expect_refused<ArgumentError>(runtime, [&] { step3.repeat(options, Domain{8}, x, y, other); },
                                {"swap 1 holds a field of swap 0 too"});
  // Fields whose trade would change the stub or the access.
  Field rows = runtime.allocate<i64>({4, 2});
  Field columns = runtime.allocate<i64>({4, 2}, Layout::column_major);
  options.swaps = {{rows, columns}};
  expect_refused<ArgumentError>(runtime,
                                [&] {
                                  step.repeat(options, Domain{4, 2}, rows, columns);
                                },
                                {"different strides or access"});
  const std::vector<i64> constant(8, 1);
  Field read_only = runtime.wrap(constant.data(), {8});
  options.swaps = {{x, read_only}};
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{8}, read_only, x); },
                                {"different strides or access"});
  // An argument that aliases a buffer only after the trade: refused before anything runs.
  Kernel with_view = runtime.kernel(
      {"with_view",
       {in<i64>("x"), in<i64>("w", 1), inout<i64>("y"), result<bool>("changed", Combiner::any)},
       "y = x + w(0); changed = false;"});
  options.swaps = {{x, y}};
  expect_refused<AliasError>(
      runtime, [&] { with_view.repeat(options, Domain{8}, x, x.section(0, 0, 6), y); }, {"'w'"});
  // A launch's own checks, before the first iteration runs.
  options.swaps.clear();
  expect_refused<ArgumentError>(runtime, [&] { step.repeat(options, Domain{9}, x, y); },
                                {"outside the field's extent"});
  EXPECT_EQ(x.to_vector<i64>(), std::vector<i64>(8, 3));
}

}  // namespace
}  // namespace stubjit
