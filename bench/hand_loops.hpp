// Hand-written baselines, compiled with g++ -O3 -march=native -fopenmp.
#pragma once

#include <cstdint>

void hand_saxpy_2d(std::int64_t rows, std::int64_t cols, float a, const float* x, float* y);
