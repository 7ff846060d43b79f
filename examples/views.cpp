// Views: the invocation-stub patent's matrix multiply, C = A B, with no copies.
//
// One activity per element (i, j) of C reads row i of A and column j of B as rank-1
// views. A spread along j and B, transposed and spread along i, are rank-3 fields over
// the (i, j) domain whose last dimension is k: projected, each activity sees exactly
// its row and its column. Then a Fortran section: every other row of C scaled in place.
#include <stubjit/stubjit.hpp>

#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  stubjit::Kernel dot = runtime.kernel({
      "dot",
      {stubjit::in<double>("row", 1), stubjit::in<double>("column", 1),
       stubjit::inout<double>("c")},
      "double sum = 0;\n"
      "for (stubjit::i64 k = 0; k < row.extent(0); ++k) sum += row(k) * column(k);\n"
      "c = sum;",
  });
  stubjit::Kernel scale = runtime.kernel({"scale", {stubjit::inout<double>("x")}, "x = 2 * x;"});

  const std::int64_t m = 120, n = 80, l = 50;  // A is m x l, B is l x n
  std::vector<double> a(m * l), b(l * n);
  for (std::int64_t k = 0; k < m * l; ++k) a[k] = double(k % 7) - 3.0;
  for (std::int64_t k = 0; k < l * n; ++k) b[k] = 0.5 * double(k % 5);
  stubjit::Field da = runtime.allocate<double>({m, l});
  stubjit::Field db = runtime.allocate<double>({l, n});
  stubjit::Field dc = runtime.allocate<double>({m, n});
  da.copy_from(a);
  db.copy_from(b);

  const stubjit::Field rows = da.spread(1, n);                     // (i, j, k) -> A(i, k)
  const stubjit::Field columns = db.transpose(0, 1).spread(0, m);  // (i, j, k) -> B(k, j)
  dot.launch(stubjit::Domain{m, n}, rows, columns, dc);
  // c(2:m:2, :) = 2 * c(2:m:2, :) in Fortran; 0-based rows 1, 3, 5, ...
  const stubjit::Field odd_rows = dc.section(0, 1, m - 1, 2);
  scale.launch(stubjit::Domain{odd_rows.extent(0), n}, odd_rows);

  const std::vector<double> c = dc.to_vector<double>();
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < l; ++k) sum += a[i * l + k] * b[k * n + j];
      wrong += c[i * n + j] != (i % 2 == 1 ? 2 * sum : sum);
    }
  std::printf("C = A B over %lldx%lld, every other row doubled\n", (long long)m, (long long)n);
  std::printf("result check: %s (%zu wrong)\n", wrong ? "FAILED" : "ok", wrong);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
