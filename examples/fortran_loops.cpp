// Fortran loop nests onto stubjit domains: strided, reversed, with the logical index.
//
//   do j = 2, n-1            ! interior rows
//     do i = n-1, 2, -1      ! reversed
//       b(j, i) = 0.25 * (a(j-1, i) + a(j+1, i) + a(j, i-1) + a(j, i+1))
//
// The domain carries the loop bounds; `a` is broadcast (every activity reads its
// neighbours) and `b` is projected (each activity writes its own element).
#include <stubjit/stubjit.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  stubjit::Kernel jacobi = runtime.kernel({
      "jacobi",
      {stubjit::index("p"), stubjit::in<double>("a", 2), stubjit::inout<double>("b")},
      "const auto j = p[0], i = p[1];\n"
      "b = 0.25 * (a(j - 1, i) + a(j + 1, i) + a(j, i - 1) + a(j, i + 1));",
  });

  const std::int64_t n = 300;
  std::vector<double> a(n * n), b(n * n, 0.0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i)
      a[j * n + i] = std::sin(0.01 * double(j)) + 0.001 * double(i);
  stubjit::Field da = runtime.allocate<double>({n, n});
  stubjit::Field db = runtime.allocate<double>({n, n});
  da.copy_from(a);
  db.copy_from(b);

  // 0-based: Fortran's j = 2..n-1 is 1..n-2 here.
  const stubjit::Domain interior = stubjit::Domain::loops({{1, n - 2}, {n - 2, 1, -1}});
  jacobi.launch(interior, da, db);
  std::printf("domain %s, plan: %s\n", interior.to_string().c_str(),
              jacobi.plan(interior).describe().c_str());

  const std::vector<double> out = db.to_vector<double>();
  std::size_t wrong = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      const bool inside = j >= 1 && j <= n - 2 && i >= 1 && i <= n - 2;
      const double expected = inside ? 0.25 * (a[(j - 1) * n + i] + a[(j + 1) * n + i] +
                                               a[j * n + i - 1] + a[j * n + i + 1])
                                     : 0.0;
      wrong += out[j * n + i] != expected;
    }
  std::printf("result check: %s (%zu wrong)\n", wrong ? "FAILED" : "ok", wrong);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
