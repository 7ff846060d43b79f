// A loop until a flag (docs/patterns.md, IrGL's Any flag): the breadth-first levels of
// a road-like graph, a grid with some long links, from one vertex. Each iteration every
// vertex pulls its level from its neighbours' levels of the iteration before (read from
// one buffer, written to the other: no vertex reads what another writes in the same
// launch) and says whether it changed; Kernel::repeat launches it until no vertex did,
// trading the two buffers between iterations.
//
//   build/examples/bfs_levels
#include <stubjit/stubjit.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());
  using i32 = std::int32_t;
  using i64 = std::int64_t;
  constexpr i32 unreached = 2147483647;

  // The graph in compressed rows: start[v] .. start[v + 1] index v's neighbours in adj.
  const i32 w = 400, h = 300;
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
  for (i32 k = 0; k < 40; ++k) link(i32((k * 7919L) % (w * h)), i32((k * 104729L + 13) % (w * h)));
  std::vector<i64> start{0};
  std::vector<i32> adj;
  for (const auto& l : links) {
    adj.insert(adj.end(), l.begin(), l.end());
    start.push_back(i64(adj.size()));
  }
  const i64 n = i64(links.size());

  stubjit::Kernel step = runtime.kernel(
      {"bfs_step",
       {stubjit::index("v"), stubjit::in<i64>("start", 1), stubjit::in<i32>("adj", 1),
        stubjit::in<i32>("level", 1), stubjit::inout<i32>("next"),
        stubjit::result<bool>("changed", stubjit::Combiner::any)},
       "const stubjit::i64 u = v[0];\n"
       "int best = level(u);\n"
       "for (stubjit::i64 e = start(u); e < start(u + 1); ++e) {\n"
       "  const int d = level(adj(e));\n"
       "  if (d != 2147483647 && d + 1 < best) best = d + 1;\n"
       "}\n"
       "next = best;\n"
       "changed = best != level(u);"});
  stubjit::Field f_start = runtime.allocate<i64>({n + 1});
  stubjit::Field f_adj = runtime.allocate<i32>({i64(adj.size())});
  stubjit::Field f_a = runtime.allocate<i32>({n});
  stubjit::Field f_b = runtime.allocate<i32>({n});
  f_start.copy_from(start);
  f_adj.copy_from(adj);
  std::vector<i32> initial(static_cast<std::size_t>(n), unreached);
  initial[0] = 0;  // the source: the grid's corner
  f_a.copy_from(initial);
  stubjit::RepeatOptions options;
  options.swaps = {{f_a, f_b}};
  const stubjit::RepeatSummary summary =
      step.repeat(options, stubjit::Domain{n}, f_start, f_adj, f_a, f_b);
  // The last iteration wrote `next`: f_b, or f_a where the pair was traded.
  const std::vector<i32> level = (summary.swapped ? f_a : f_b).to_vector<i32>();

  // The host's breadth-first search.
  std::vector<i32> want(static_cast<std::size_t>(n), unreached);
  std::deque<i32> queue{0};
  want[0] = 0;
  while (!queue.empty()) {
    const i32 v = queue.front();
    queue.pop_front();
    for (i64 e = start[std::size_t(v)]; e < start[std::size_t(v) + 1]; ++e) {
      const i32 u = adj[std::size_t(e)];
      if (want[std::size_t(u)] == unreached) {
        want[std::size_t(u)] = want[std::size_t(v)] + 1;
        queue.push_back(u);
      }
    }
  }
  const i32 deepest = *std::max_element(want.begin(), want.end());
  const bool ok = summary.converged && level == want && summary.iterations == i64(deepest) + 1;
  std::printf("%lld vertices, %zu links: %lld iterations until nothing changed, deepest level %d\n",
              (long long)n, adj.size() / 2, (long long)summary.iterations, deepest);
  std::printf("result check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
