// A Fortran loop nest over column-major arrays, as written: strided, reversed, with the
// logical index in Fortran's subscript order.
//
//   real(8) :: a(m, n), b(m, n)
//   do j = 2, n-1            ! interior columns
//     do i = m-1, 2, -1      ! reversed
//       b(i, j) = 0.25 * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1))
//
// Domain::loops takes the nest outermost loop first; Order::fortran makes dimension 0
// the innermost loop, i, which is also the fastest: the one a GPU's x threads step
// through, contiguous in the column-major fields. So p = (i, j) and the subscripts
// read as in Fortran. `a` is broadcast (every activity reads its neighbours) and `b`
// is projected (each activity writes its own element).
#include <stubjit/stubjit.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  stubjit::Kernel jacobi = runtime.kernel({
      "jacobi",
      {stubjit::index("p"), stubjit::in<double>("a", 2), stubjit::inout<double>("b")},
      "const auto i = p[0], j = p[1];\n"
      "b = 0.25 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1));",
  });

  const std::int64_t m = 300, n = 200;
  // Column-major host arrays: element (i, j) at i + j * m.
  std::vector<double> a(m * n), b(m * n, 0.0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      a[i + j * m] = std::sin(0.01 * double(i)) + 0.001 * double(j);
  using stubjit::Layout;
  stubjit::Field da = runtime.allocate<double>({m, n}, Layout::column_major);
  stubjit::Field db = runtime.allocate<double>({m, n}, Layout::column_major);
  da.copy_from(a);
  db.copy_from(b);

  // 0-based: Fortran's j = 2..n-1 is 1..n-2 here, i = m-1..2 is m-2..1.
  const stubjit::Domain interior =
      stubjit::Domain::loops({{1, n - 2}, {m - 2, 1, -1}}, stubjit::Order::fortran);
  jacobi.launch(interior, da, db);
  std::printf("domain %s, plan: %s\n", interior.to_string().c_str(),
              jacobi.plan(interior).describe().c_str());

  const std::vector<double> out = db.to_vector<double>();
  std::size_t wrong = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const bool inside = i >= 1 && i <= m - 2 && j >= 1 && j <= n - 2;
      const double expected = inside ? 0.25 * (a[i - 1 + j * m] + a[i + 1 + j * m] +
                                               a[i + (j - 1) * m] + a[i + (j + 1) * m])
                                     : 0.0;
      wrong += out[i + j * m] != expected;
    }
  std::printf("result check: %s (%zu wrong)\n", wrong ? "FAILED" : "ok", wrong);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
