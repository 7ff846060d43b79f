// Non-rectangular domains: a lower triangle and a band of a matrix, each the points of
// an n x n box that pass a filter. The body runs only there; elsewhere the matrix keeps
// what it held.
//
//   do i = 1, n; do j = 1, i;               a(i, j) = 1 / (i + j - 1)   ! Hilbert, lower
//   do i = 1, n; do j = max(1, i-1), min(n, i+2); b(i, j) = b(i, j) + 1  ! band
#include <stubjit/stubjit.hpp>

#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  stubjit::KernelSource hilbert{"hilbert",
                                {stubjit::index("p"), stubjit::inout<double>("a")},
                                "a = 1.0 / double(p[0] + p[1] + 1);"};
  hilbert.filter = "i[1] <= i[0]";  // i is the point's index: row i[0], column i[1]
  stubjit::KernelSource band{"band", {stubjit::inout<double>("b")}, "b = b + 1;"};
  band.filter = "i[1] >= i[0] - 1 && i[1] <= i[0] + 2";
  stubjit::Kernel lower = runtime.kernel(hilbert);
  stubjit::Kernel banded = runtime.kernel(band);

  const std::int64_t n = 200;
  stubjit::Field a = runtime.allocate<double>({n, n});
  stubjit::Field b = runtime.allocate<double>({n, n});
  a.copy_from(std::vector<double>(n * n, 0.0));
  b.copy_from(std::vector<double>(n * n, 0.0));
  lower.launch(stubjit::Domain{n, n}, a);
  banded.launch(stubjit::Domain{n, n}, b);

  const std::vector<double> ha = a.to_vector<double>(), hb = b.to_vector<double>();
  std::size_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      wrong += ha[i * n + j] != (j <= i ? 1.0 / double(i + j + 1) : 0.0);
      wrong += hb[i * n + j] != (j >= i - 1 && j <= i + 2 ? 1.0 : 0.0);
    }
  std::printf("lower triangle and band of %lldx%lld\n", (long long)n, (long long)n);
  std::printf("result check: %s (%zu wrong)\n", wrong ? "FAILED" : "ok", wrong);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
