// The cases of the shape matrices (bench/shape_matrix.cpp on the CPU,
// bench/gpu_shape_matrix.cpp on a CUDA GPU): kernels, ranks, innermost extents,
// layouts and modes, and the memory layout of each shape's arrays.
#pragma once

#include <benchmark/benchmark.h>
#include <cstdint>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hand_loops.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::bench {

using i64 = std::int64_t;

enum class Kind { saxpy, stencil };
enum class FieldOrder { row, column, strided };

const char* name_of(Kind k);
const char* name_of(FieldOrder o);

// $name as a number, else `fallback`.
i64 env_or(const char* name, i64 fallback);

// The stencil reaches neighbours along the innermost min(rank, 3) dimensions, which
// carry a halo of one on each side.
int stencil_dims(int rank);

struct Shape {
  Kind kind;
  int rank;
  i64 inner;
  FieldOrder order;
  std::vector<i64> counts;  // the domain's counts (the stencil: its interior)
};

// The arrays of a shape: both kernels' fields share one layout.
struct ShapeLayout {
  std::vector<i64> extents;    // per logical dimension
  std::vector<i64> strides;    // per logical dimension, elements
  i64 elements = 0;            // allocated
  HandNest nest;               // the same points in memory order, for the hand-written side
  i64 first_point = 0;         // element offset of the first point (stencil: inside the halo)
  std::vector<i64> neighbour;  // the stencil: element distance to each pair of neighbours
};
ShapeLayout layout_of(const Shape& s);

// The compute domain of a shape: its counts, from 1 along the stencil's halo dimensions.
Domain domain_of(const Shape& s);

// Names the arrays of a shape: the cases of one shape (its modes) share them.
std::string key_of(const Shape& s);

// The points of the domain, and the bytes a kernel moves for them (saxpy 12 per point,
// the stencil 8: useful bytes, as a hand-writer would count them).
i64 points_of(const Shape& s);
double useful_bytes(const Shape& s);

// The kernels, and the values their scalars take.
inline constexpr float saxpy_a = 0.5f;
inline constexpr float stencil_c0 = -0.5f, stencil_c1 = 0.125f;
KernelSource saxpy_source();
KernelSource stencil_source(int rank);

// Registers every case with Google Benchmark, in order, named kernel/rank/inner/
// layout/mode (for --benchmark_filter), each running `run` with its shape and the mode
// it forces (none: the planner's choice): about $STUBJIT_SHAPES_TOTAL elements per
// array (default 2^25), $STUBJIT_SHAPES_ITERATIONS timed iterations (default
// `iterations`).
using CaseRunner =
    std::function<void(benchmark::State&, const Shape& shape, std::optional<Mode> mode)>;
void register_cases(i64 iterations, const CaseRunner& run);

}  // namespace stubjit::bench
