// Sorts (docs/patterns.md): particles ordered by the cell they are in, their positions
// moving with them, and the rows of a matrix sorted by magnitude with the permutation
// that sorted them.
//
// A sort kernel has a sort parameter, its keys: the body runs once per index and may
// set the key (a T&, the field's own element until set) and the payloads (payload<T>,
// fields whose elements move with their keys); the launch then sorts every pencil
// along one dimension stably: equal keys keep their order.
//
//   build/examples/sort_by_key
#include <stubjit/stubjit.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());
  using i64 = std::int64_t;

  // 1. Bin particles: each one's cell on a 64 x 64 grid over the unit square is its key,
  // computed by the body; x and y move with it. Particles of one cell stay in the order
  // they had (a stable sort), so the result is the same on every run and device.
  const i64 n = 1 << 20;
  std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) {
    x[std::size_t(i)] = double((i * 2654435761u) % 100000) / 100000.0;
    y[std::size_t(i)] = double((i * 40503u + 17) % 100000) / 100000.0;
  }
  stubjit::Field f_cell = runtime.allocate<std::int32_t>({n});
  stubjit::Field f_x = runtime.allocate<double>({n});
  stubjit::Field f_y = runtime.allocate<double>({n});
  f_x.copy_from(x);
  f_y.copy_from(y);
  stubjit::Kernel bin =
      runtime.kernel({"bin",
                      {stubjit::sort<std::int32_t>("cell"), stubjit::payload<double>("px"),
                       stubjit::payload<double>("py"), stubjit::scalar<std::int32_t>("cells")},
                      "cell = int(py * cells) * cells + int(px * cells);"});
  bin.launch(stubjit::Domain{n}, f_cell, f_x, f_y, std::int32_t(64));
  const std::vector<std::int32_t> cell = f_cell.to_vector<std::int32_t>();
  const std::vector<double> sx = f_x.to_vector<double>(), sy = f_y.to_vector<double>();
  // The host's answer: the particles' order by cell from std::stable_sort.
  std::vector<i64> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), i64(0));
  const auto cell_of = [&](i64 i) {
    return int(y[std::size_t(i)] * 64) * 64 + int(x[std::size_t(i)] * 64);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](i64 a, i64 b) { return cell_of(a) < cell_of(b); });
  std::size_t wrong = 0;
  for (i64 k = 0; k < n; ++k) {
    const std::size_t from = std::size_t(order[std::size_t(k)]);
    wrong += cell[std::size_t(k)] != cell_of(i64(from)) || sx[std::size_t(k)] != x[from] ||
             sy[std::size_t(k)] != y[from];
  }
  std::printf("binned %lld particles into %d cells: cell 0 holds %lld\n", (long long)n, 64 * 64,
              (long long)std::count(cell.begin(), cell.end(), 0));

  // 2. Each row of a matrix sorted by magnitude, largest first (a custom order), with the
  // permutation that sorts it (the body sets each element's column as a payload).
  const i64 rows = 200, cols = 3000;
  std::vector<double> a(static_cast<std::size_t>(rows * cols));
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = double(i64((k * 7919) % 2001) - 1000);
  stubjit::Field f_a = runtime.allocate<double>({rows, cols});
  stubjit::Field f_perm = runtime.allocate<i64>({rows, cols});
  f_a.copy_from(a);
  stubjit::Kernel by_magnitude =
      runtime.kernel({"by_magnitude",
                      {stubjit::sort<double>("a", "(b < 0 ? -b : b) < (a < 0 ? -a : a)"),
                       stubjit::payload<i64>("perm"), stubjit::index("i")},
                      "perm = i[1];"});
  by_magnitude.launch(stubjit::Domain{rows, cols}, f_a, f_perm);  // the last dimension
  const std::vector<double> sorted = f_a.to_vector<double>();
  const std::vector<i64> perm = f_perm.to_vector<i64>();
  for (i64 r = 0; r < rows; ++r) {
    std::vector<i64> columns(static_cast<std::size_t>(cols));
    std::iota(columns.begin(), columns.end(), i64(0));
    const auto magnitude = [&](i64 c) {
      const double v = a[std::size_t(r * cols + c)];
      return v < 0 ? -v : v;
    };
    std::stable_sort(columns.begin(), columns.end(),
                     [&](i64 p, i64 q) { return magnitude(q) < magnitude(p); });
    for (i64 c = 0; c < cols; ++c) {
      const std::size_t at = std::size_t(r * cols + c);
      wrong += perm[at] != columns[std::size_t(c)] ||
               sorted[at] != a[std::size_t(r * cols + columns[std::size_t(c)])];
    }
  }
  std::printf("sorted %lld rows of %lld by magnitude: row 0 starts with %.0f (column %lld)\n",
              (long long)rows, (long long)cols, sorted[0], (long long)perm[0]);

  std::printf("result check: %s\n", wrong ? "FAILED" : "ok");
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
