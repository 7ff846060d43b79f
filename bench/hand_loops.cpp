// Compiled twice (bench/CMakeLists.txt): as bench_hand_loops, every baseline with
// g++ -O3 -march=native -fopenmp; and as bench_hand_loops_256 with
// -mprefer-vector-width=256 added (the stubs' vector width) and
// STUBJIT_HAND_LOOPS_256 defined, the column kernel alone, as hand_yakl_columns_256:
// the same source text either way.
#include "hand_loops.hpp"

#include <omp.h>

#include <algorithm>
#include <numeric>
#include <parallel/algorithm>
#include <vector>

#ifdef STUBJIT_HAND_LOOPS_256
#define STUBJIT_HAND_YAKL_COLUMNS hand_yakl_columns_256
#else
#define STUBJIT_HAND_YAKL_COLUMNS hand_yakl_columns

void hand_saxpy_2d(std::int64_t rows, std::int64_t cols, float a, const float* x, float* y) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = a * xr[c] + yr[c];
  }
}

// The shape matrix's loops: nested loops of a rank known at compile time, extents and
// strides at run time, the innermost with a unit-stride version (what a hand-writer
// would write for contiguous rows). OpenMP takes the outermost two loops together
// (collapse(2)) so that a short outermost extent still keeps every core busy; at rank 2
// with a short outer extent it takes the inner one instead.
namespace {

using i64 = std::int64_t;

template <int D, int R, class Body>
inline void nest_from(const HandNest& n, i64 a, i64 b, const Body& body) {
  if constexpr (D == R - 1) {
    body(a, b, n.count[D], n.stride_a[D], n.stride_b[D]);
  } else {
    for (i64 i = 0; i < n.count[D]; ++i)
      nest_from<D + 1, R>(n, a + i * n.stride_a[D], b + i * n.stride_b[D], body);
  }
}

template <int R, class Body>
void run_nest(const HandNest& n, const Body& body) {
  if constexpr (R == 1) {
#pragma omp parallel
    {
      // One contiguous part per thread, as a static schedule gives.
      const i64 threads = omp_get_num_threads();
      const i64 t = omp_get_thread_num();
      const i64 begin = n.count[0] * t / threads;
      const i64 end = n.count[0] * (t + 1) / threads;
      body(begin * n.stride_a[0], begin * n.stride_b[0], end - begin, n.stride_a[0], n.stride_b[0]);
    }
  } else if constexpr (R == 2) {
    if (n.count[0] >= 64) {
#pragma omp parallel for schedule(static)
      for (i64 i = 0; i < n.count[0]; ++i)
        body(i * n.stride_a[0], i * n.stride_b[0], n.count[1], n.stride_a[1], n.stride_b[1]);
    } else {
      for (i64 i = 0; i < n.count[0]; ++i) {
        HandNest row = n;
        row.count[0] = n.count[1];
        row.stride_a[0] = n.stride_a[1];
        row.stride_b[0] = n.stride_b[1];
        const i64 a = i * n.stride_a[0], b = i * n.stride_b[0];
        run_nest<1>(
            row, [&](i64 ra, i64 rb, i64 c, i64 sa, i64 sb) { body(a + ra, b + rb, c, sa, sb); });
      }
    }
  } else {
#pragma omp parallel for collapse(2) schedule(static)
    for (i64 i = 0; i < n.count[0]; ++i)
      for (i64 j = 0; j < n.count[1]; ++j)
        nest_from<2, R>(n, i * n.stride_a[0] + j * n.stride_a[1],
                        i * n.stride_b[0] + j * n.stride_b[1], body);
  }
}

template <class Body>
void run_any(const HandNest& n, const Body& body) {
  switch (n.rank) {
    case 1:
      return run_nest<1>(n, body);
    case 2:
      return run_nest<2>(n, body);
    case 3:
      return run_nest<3>(n, body);
    case 4:
      return run_nest<4>(n, body);
    case 5:
      return run_nest<5>(n, body);
    case 6:
      return run_nest<6>(n, body);
    case 7:
      return run_nest<7>(n, body);
    default:
      return run_nest<8>(n, body);
  }
}

}  // namespace

void hand_jacobi_column_major(i64 m, i64 n, const float* a, float* b) {
#pragma omp parallel for schedule(static)
  for (i64 j = 1; j < n - 1; ++j) {
    const float* __restrict column = a + j * m;
    float* __restrict out = b + j * m;
    for (i64 i = 1; i < m - 1; ++i)
      out[i] = 0.25f * (column[i - 1] + column[i + 1] + column[i - m] + column[i + m]);
  }
}

void hand_lower_triangle(i64 n, double* a) {
#pragma omp parallel for schedule(dynamic, 16)
  for (i64 i = 0; i < n; ++i) {
    double* __restrict row = a + i * n;
    for (i64 j = 0; j <= i; ++j) row[j] = 2 * row[j] + 1;
  }
}

void hand_saxpy(const HandNest& nest, float a, const float* x, float* y) {
  run_any(nest, [=](i64 ox, i64 oy, i64 count, i64 sx, i64 sy) {
    const float* __restrict xr = x + ox;
    float* __restrict yr = y + oy;
    if (sx == 1 && sy == 1) {
      for (i64 k = 0; k < count; ++k) yr[k] = a * xr[k] + yr[k];
    } else {
      for (i64 k = 0; k < count; ++k) yr[k * sy] = a * xr[k * sx] + yr[k * sy];
    }
  });
}

void hand_stencil(const HandNest& nest, int neighbours, const std::int64_t* neighbour, float c0,
                  float c1, const float* u, float* out) {
  const i64 n0 = neighbour[0];
  const i64 n1 = neighbours > 1 ? neighbour[1] : 0;
  const i64 n2 = neighbours > 2 ? neighbour[2] : 0;
  run_any(nest, [=](i64 o, i64, i64 count, i64 s, i64) {
    const float* __restrict ur = u + o;
    float* __restrict outr = out + o;
    auto at = [&](i64 e) {
      float sum = ur[e - n0] + ur[e + n0];
      if (neighbours > 1) sum += ur[e - n1] + ur[e + n1];
      if (neighbours > 2) sum += ur[e - n2] + ur[e + n2];
      return c0 * ur[e] + c1 * sum;
    };
    if (s == 1) {
      for (i64 k = 0; k < count; ++k) outr[k] = at(k);
    } else {
      for (i64 k = 0; k < count; ++k) outr[k * s] = at(k * s);
    }
  });
}

void hand_copy_columns(i64 ny, i64 nx, i64 nz, const double* state, const double* density,
                       const double* theta, double* w, double* momentum, double* tend) {
  const i64 levels = nz + 2;
#pragma omp parallel for collapse(2) schedule(static)
  for (i64 j = 0; j < ny; ++j)
    for (i64 i = 0; i < nx; ++i) {
      const i64 column = j * nx + i;
      const double* __restrict s = state + column * nz;
      const double* __restrict rho = density + column * levels;
      const double* __restrict th = theta + column * levels;
      double* __restrict wc = w + column * levels;
      double* __restrict mc = momentum + column * levels;
      double* __restrict tc = tend + column * nz;
      for (i64 k = 0; k < nz; ++k) tc[k] = s[k];
      for (i64 k = 0; k < levels; ++k) wc[k] = rho[k];
      for (i64 k = 0; k < levels; ++k) mc[k] = th[k];
    }
}

float hand_reduce_sum(const float* x, i64 n) {
  float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (i64 k = 0; k < n; ++k) s += x[k];
  return s;
}

float hand_reduce_sum_simd(const float* x, i64 n) {
  float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (i64 k = 0; k < n; ++k) s += x[k];
  return s;
}

std::int8_t hand_reduce_min_i8(const std::int8_t* x, i64 n) {
  std::int8_t m = 127;
#pragma omp parallel for simd reduction(min : m) schedule(static)
  for (i64 k = 0; k < n; ++k) m = x[k] < m ? x[k] : m;
  return m;
}

std::uint16_t hand_reduce_max_u16(const std::uint16_t* x, i64 n) {
  std::uint16_t m = 0;
#pragma omp parallel for simd reduction(max : m) schedule(static)
  for (i64 k = 0; k < n; ++k) m = x[k] > m ? x[k] : m;
  return m;
}

std::uint32_t hand_reduce_sum_u32(const std::uint32_t* x, i64 n) {
  std::uint32_t s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (i64 k = 0; k < n; ++k) s += x[k];
  return s;
}

std::int64_t hand_reduce_sum_i64(const std::int64_t* x, i64 n) {
  std::int64_t s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (i64 k = 0; k < n; ++k) s += x[k];
  return s;
}

namespace {

template <class T>
void two_pass_scan_sum(const T* x, T* y, i64 n) {
  std::vector<T> block_sums(static_cast<std::size_t>(omp_get_max_threads()) + 1, T(0));
#pragma omp parallel
  {
    const i64 threads = omp_get_num_threads(), t = omp_get_thread_num();
    const i64 lo = n * t / threads, hi = n * (t + 1) / threads;
    T s = 0;
    for (i64 k = lo; k < hi; ++k) s = T(s + x[k]);
    block_sums[static_cast<std::size_t>(t) + 1] = s;
#pragma omp barrier
#pragma omp single
    for (i64 b = 1; b <= threads; ++b)
      block_sums[static_cast<std::size_t>(b)] =
          T(block_sums[static_cast<std::size_t>(b)] + block_sums[static_cast<std::size_t>(b) - 1]);
    T running = block_sums[static_cast<std::size_t>(t)];
    for (i64 k = lo; k < hi; ++k) y[k] = running = T(running + x[k]);
  }
}

}  // namespace

void hand_scan_sum_std(const float* x, float* y, i64 n) { std::inclusive_scan(x, x + n, y); }
void hand_scan_sum_omp(const float* x, float* y, i64 n) { two_pass_scan_sum(x, y, n); }
void hand_scan_sum_std(const std::int8_t* x, std::int8_t* y, i64 n) {
  std::inclusive_scan(x, x + n, y);
}
void hand_scan_sum_omp(const std::int8_t* x, std::int8_t* y, i64 n) { two_pass_scan_sum(x, y, n); }
void hand_scan_sum_std(const std::uint32_t* x, std::uint32_t* y, i64 n) {
  std::inclusive_scan(x, x + n, y);
}
void hand_scan_sum_omp(const std::uint32_t* x, std::uint32_t* y, i64 n) {
  two_pass_scan_sum(x, y, n);
}

void hand_sort_std(float* x, i64 n) { std::sort(x, x + n); }
void hand_stable_sort_std(float* x, i64 n) { std::stable_sort(x, x + n); }
void hand_sort_parallel(float* x, i64 n) { __gnu_parallel::sort(x, x + n); }
void hand_stable_sort_parallel(float* x, i64 n) { __gnu_parallel::stable_sort(x, x + n); }

#endif  // STUBJIT_HAND_LOOPS_256

void STUBJIT_HAND_YAKL_COLUMNS(std::int64_t ny, std::int64_t nx, std::int64_t nz, double rdz,
                               const double* state, const double* density, const double* theta,
                               double* w, double* momentum, double* tend) {
  using i64 = std::int64_t;
  const i64 levels = nz + 2;
#pragma omp parallel
  {
    std::vector<double> scratch(static_cast<std::size_t>(nz + 1));
    double* __restrict flux = scratch.data();
#pragma omp for collapse(2) schedule(static)
    for (i64 j = 0; j < ny; ++j)
      for (i64 i = 0; i < nx; ++i) {
        const i64 column = j * nx + i;
        const double* __restrict s = state + column * nz;
        const double* __restrict rho = density + column * levels;
        const double* __restrict th = theta + column * levels;
        double* __restrict wc = w + column * levels;
        double* __restrict mc = momentum + column * levels;
        double* __restrict tc = tend + column * nz;
        for (i64 k = 0; k < nz; ++k) wc[1 + k] = s[k];
        wc[0] = 0;
        wc[nz + 1] = 0;
        for (i64 k = 0; k < levels; ++k) mc[k] = wc[k] * rho[k];
        for (i64 k = 0; k < nz + 1; ++k) flux[k] = 0.25 * (mc[k] + mc[k + 1]) * (th[k] + th[k + 1]);
        for (i64 k = 0; k < nz; ++k) tc[k] = (flux[k] - flux[k + 1]) * rdz;
      }
  }
}
