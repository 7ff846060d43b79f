#include "hand_loops.hpp"

void hand_saxpy_2d(std::int64_t rows, std::int64_t cols, float a, const float* x, float* y) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = a * xr[c] + yr[c];
  }
}
