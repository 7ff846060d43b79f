// Reductions (docs/patterns.md): a dot product returned to the host, the patent's
// matrix multiply C += A * B as a rank-3 domain reduced along k, and an IrGL-style
// "did anything change" flag.
//
// A reduce kernel has a result parameter: its body sets the result (a T&, the
// combiner's identity until set) once per index, and the launch combines the values in
// an order fixed by its plan, so a second run gives the same bits.
//
//   build/examples/reduce_matmul
#include <stubjit/stubjit.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());
  using i64 = std::int64_t;

  // 1. A dot product, to the host.
  stubjit::Kernel dot = runtime.kernel({"dot",
                                        {stubjit::in<double>("a"), stubjit::in<double>("b"),
                                         stubjit::result<double>("v", stubjit::Combiner::sum)},
                                        "v = a * b;"});
  const i64 n = 1 << 20;
  std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) {
    a[std::size_t(i)] = double(i % 7);  // small integers: every sum is exact in a double
    b[std::size_t(i)] = double(i % 5) - 2.0;
  }
  stubjit::Field f_a = runtime.allocate<double>({n}), f_b = runtime.allocate<double>({n});
  f_a.copy_from(a);
  f_b.copy_from(b);
  const double total = dot.reduce<double>(stubjit::Domain{n}, f_a, f_b);
  double want_total = 0;
  for (i64 i = 0; i < n; ++i) want_total += a[std::size_t(i)] * b[std::size_t(i)];
  std::printf("dot product of %lld elements: %.1f (host loop: %.1f)\n", (long long)n, total,
              want_total);

  // 2. C += A * B: the domain is (i, j, k); the result has the kept dimensions (i, j),
  // and each of its elements is combined with the sum over k.
  stubjit::Kernel matmul = runtime.kernel(
      {"matmul",
       {stubjit::index("i"), stubjit::in<double>("A", 2), stubjit::in<double>("B", 2),
        stubjit::result<double>("c", stubjit::Combiner::sum, 2)},
       "c = A(i[0], i[2]) * B(i[2], i[1]);"});
  const i64 m = 64, p = 48, k = 4096;
  std::vector<double> A(std::size_t(m * k)), B(std::size_t(k * p)), C(std::size_t(m * p), 1.0);
  for (std::size_t x = 0; x < A.size(); ++x) A[x] = double(x % 3);
  for (std::size_t x = 0; x < B.size(); ++x) B[x] = double(x % 4) - 1.0;
  stubjit::Field f_A = runtime.allocate<double>({m, k}), f_B = runtime.allocate<double>({k, p});
  stubjit::Field f_C = runtime.allocate<double>({m, p});
  f_A.copy_from(A);
  f_B.copy_from(B);
  f_C.copy_from(C);
  stubjit::LaunchOptions along_k;
  along_k.reduce_dimension = 2;  // the default (the last) too; said for the reader
  const stubjit::LaunchSummary summary =
      matmul.launch(along_k, stubjit::Domain{m, p, k}, f_A, f_B, f_C);
  const std::vector<double> got = f_C.to_vector<double>();
  std::size_t wrong = total == want_total ? 0 : 1;
  for (i64 i = 0; i < m; ++i)
    for (i64 j = 0; j < p; ++j) {
      double want = C[std::size_t(i * p + j)];
      for (i64 q = 0; q < k; ++q) want += A[std::size_t(i * k + q)] * B[std::size_t(q * p + j)];
      wrong += got[std::size_t(i * p + j)] != want;
    }
  std::printf("C (%lld x %lld) += A * B over k = %lld: %u part(s) per element\n", (long long)m,
              (long long)p, (long long)k, summary.reduce_parts);

  // 3. Any: did some element exceed a threshold?
  stubjit::Kernel exceeds =
      runtime.kernel({"exceeds",
                      {stubjit::in<double>("x"), stubjit::scalar<double>("limit"),
                       stubjit::result<bool>("changed", stubjit::Combiner::any)},
                      "changed = x > limit;"});
  const bool above_5 = exceeds.reduce<bool>(stubjit::Domain{n}, f_a, 5.0);
  const bool above_6 = exceeds.reduce<bool>(stubjit::Domain{n}, f_a, 6.0);
  std::printf("any a > 5: %s, any a > 6: %s\n", above_5 ? "yes" : "no", above_6 ? "yes" : "no");
  wrong += above_5 != true;
  wrong += above_6 != false;

  std::printf("result check: %s\n", wrong ? "FAILED" : "ok");
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
