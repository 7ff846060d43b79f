// Hand-written baselines, compiled with g++ -O3 -march=native -fopenmp (one of them also
// with -mprefer-vector-width=256).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

void hand_saxpy_2d(std::int64_t rows, std::int64_t cols, float a, const float* x, float* y);

// A Fortran Jacobi step over column-major m x n arrays, as a Fortran programmer's nest
// (do j = 2, n-1; do i = 2, m-1), the outer loop shared among OpenMP threads:
// b(i, j) = 0.25 * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1)).
void hand_jacobi_column_major(std::int64_t m, std::int64_t n, const float* a, float* b);

// a(i, j) = 2 a(i, j) + 1 over the lower triangle (j <= i) of a row-major n x n matrix,
// rows shared among OpenMP threads in chunks of 16 (dynamic: rows differ in length).
void hand_lower_triangle(std::int64_t n, double* a);

// A YAKL-style column kernel over ny x nx columns of nz levels (bench/groups_bench.cpp),
// fields row-major over (j, i, k), so a column is contiguous: state and tend hold nz
// values a column, density, theta, w and momentum nz + 2. Per column:
//   w(1 + k) = state(k)                                        k < nz
//   w(0) = w(nz + 1) = 0
//   momentum(k) = w(k) * density(k)                            k < nz + 2
//   flux(k) = 0.25 (momentum(k) + momentum(k + 1)) (theta(k) + theta(k + 1))   k < nz + 1
//   tend(k) = (flux(k) - flux(k + 1)) * rdz                    k < nz
// flux is each thread's scratch; the columns are shared among OpenMP threads
// (collapse(2) over j and i, static schedule).
void hand_yakl_columns(std::int64_t ny, std::int64_t nx, std::int64_t nz, double rdz,
                       const double* state, const double* density, const double* theta, double* w,
                       double* momentum, double* tend);

// The same function compiled with -mprefer-vector-width=256 added, the vector width the
// CPU backend asks Clang for in the stubs (bench_hand_loops_256: hand_loops.cpp again).
void hand_yakl_columns_256(std::int64_t ny, std::int64_t nx, std::int64_t nz, double rdz,
                           const double* state, const double* density, const double* theta,
                           double* w, double* momentum, double* tend);

// The sum of n floats: `#pragma omp parallel for reduction(+ : s)` over a plain loop
// (bench/reduce_bench.cpp's baseline).
float hand_reduce_sum(const float* x, std::int64_t n);
// The same with `parallel for simd`: OpenMP lets the compiler vectorize the sum (it may
// reorder it), the fastest plain-C++ sum g++ gives without -ffast-math.
float hand_reduce_sum_simd(const float* x, std::int64_t n);

// Integer reductions, `#pragma omp parallel for simd reduction(op : r)`
// (bench/reduce_bench.cpp's BM_IntegerReduce): the minimum of int8s, the maximum of
// uint16s, the wrapping sum of uint32s, the sum of int64s.
std::int8_t hand_reduce_min_i8(const std::int8_t* x, std::int64_t n);
std::uint16_t hand_reduce_max_u16(const std::uint16_t* x, std::int64_t n);
std::uint32_t hand_reduce_sum_u32(const std::uint32_t* x, std::int64_t n);
std::int64_t hand_reduce_sum_i64(const std::int64_t* x, std::int64_t n);

// The inclusive prefix sum of n floats into y (bench/scan_bench.cpp's baselines):
// std::inclusive_scan (one thread: libstdc++'s parallel policy needs TBB, which is not
// among the packages used), and a two-pass OpenMP scan (each thread's block summed,
// the block sums scanned, each block scanned from its offset).
void hand_scan_sum_std(const float* x, float* y, std::int64_t n);
void hand_scan_sum_omp(const float* x, float* y, std::int64_t n);
// The same two ways for int8s (wrapping, as the conversion back to int8 does in g++) and
// uint32s (wrapping): bench/scan_bench.cpp's BM_ScanIntegers.
void hand_scan_sum_std(const std::int8_t* x, std::int8_t* y, std::int64_t n);
void hand_scan_sum_omp(const std::int8_t* x, std::int8_t* y, std::int64_t n);
void hand_scan_sum_std(const std::uint32_t* x, std::uint32_t* y, std::int64_t n);
void hand_scan_sum_omp(const std::uint32_t* x, std::uint32_t* y, std::int64_t n);

// n floats sorted in place, ascending (bench/sort_bench.cpp's baselines): std::sort and
// std::stable_sort (one thread: the parallel policy needs TBB, not among the packages
// used), and libstdc++'s parallel mode, __gnu_parallel::sort and stable_sort (OpenMP
// multiway merge sorts, every core).
void hand_sort_std(float* x, std::int64_t n);
void hand_stable_sort_std(float* x, std::int64_t n);
void hand_sort_parallel(float* x, std::int64_t n);
void hand_stable_sort_parallel(float* x, std::int64_t n);

// A plain copy of the bytes hand_yakl_columns must move at least, in the same columns
// and the same OpenMP schedule: state to tend, density to w, theta to momentum (each
// input read once, each output written once): the memory-bandwidth reference.
void hand_copy_columns(std::int64_t ny, std::int64_t nx, std::int64_t nz, const double* state,
                       const double* density, const double* theta, double* w, double* momentum,
                       double* tend);

// A loop nest for the shape matrix (bench/shape_matrix.cpp): `rank` loops, outermost
// first, in the order a hand-writer would walk the fields (memory order), with each
// field's stride per loop in elements.
struct HandNest {
  int rank = 1;
  std::int64_t count[8] = {};
  std::int64_t stride_a[8] = {};  // saxpy: x; stencil: u and out (one layout)
  std::int64_t stride_b[8] = {};  // saxpy: y; stencil: unused
};

// y = a * x + y over the nest.
void hand_saxpy(const HandNest& nest, float a, const float* x, float* y);

// out = c0 * u + c1 * (sum of the 2 * neighbours.size() neighbours) at every point of
// the nest; `neighbour` holds the element distance to each pair of neighbours (1 to 3
// of them), `u` and `out` point at the first point, and share one layout.
void hand_stencil(const HandNest& nest, int neighbours, const std::int64_t* neighbour, float c0,
                  float c1, const float* u, float* out);
