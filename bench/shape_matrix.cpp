// The shape matrix: stubjit's CPU stubs against hand-written OpenMP loops of the same
// shape, over
//   kernels:  saxpy (y = a x + y) and a stencil (7 points over the innermost three
//             dimensions; 5 at rank 2, 3 at rank 1; outer dimensions are a batch);
//   ranks 1 to 8, innermost extents 1, 3, 5, 7, 37, 64 and 1000, about 2^25 elements;
//   layouts:  row-major, column-major, and strided (every other element along the
//             innermost dimension of a twice larger allocation);
//   modes:    the planner's choice and each mode forced (direct only up to rank 3).
// Each iteration times one stubjit launch and one hand loop, alternating which goes
// first; the counters give both bandwidths (useful bytes: saxpy 12 per element, the
// stencil 8) and the ratio of the medians, hand time / stubjit time (above 1: stubjit
// faster). Before timing, each case checks stubjit's result against the hand loop's.
//
// Environment: STUBJIT_SHAPES_TOTAL (elements, default 2^25), STUBJIT_SHAPES_ITERATIONS
// (default 5), STUBJIT_SHAPES_FUSE=0 (launches without dimension fusion, for an A/B),
// STUBJIT_SHAPES_SHORT_ROWS=0 (no stub with a short innermost extent or the views'
// stride compiled in: RuntimeOptions::specialize_short_rows = false),
// STUBJIT_SHAPES_COMPILER_OPTIONS (extra stub compiler flags, space-separated),
// STUBJIT_SHAPES_HAND_INTO_B=0 (the timed hand loop writes an array of its own instead
// of the one stubjit writes: on this VM where an array lies moved one side's bandwidth
// by up to 2x, bench/results/shapes.md, "Where the output lies, again").
// Names are kernel/rank/inner/layout/mode, for --benchmark_filter.
// bench/shape_table.py turns the JSON output into bench/results/shapes.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "hand_loops.hpp"
#include "shape_cases.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using namespace stubjit::bench;

// The arrays of one shape, with the hand loop's nest and stubjit's fields over them.
struct Arrays {
  std::string key;
  ShapeLayout layout;
  std::vector<float> a, b;   // saxpy: x, y; stencil: u, out (stubjit's)
  std::vector<float> start;  // b's values before each case
  std::vector<float> hand;   // the hand loop's b
};

std::unique_ptr<Arrays> make_arrays(const Shape& s) {
  auto arrays = std::make_unique<Arrays>();
  Arrays& r = *arrays;
  r.key = key_of(s);
  r.layout = layout_of(s);
  r.a.resize(std::size_t(r.layout.elements));
  r.b.resize(std::size_t(r.layout.elements));
  for (std::size_t k = 0; k < r.a.size(); ++k) {
    r.a[k] = float(k & 127) * 0.25f;
    r.b[k] = float((k * 7) & 63) - 20.0f;
  }
  r.start = r.b;
  r.hand = r.b;
  return arrays;
}

// One shape's arrays at a time: cases of one shape are registered together.
std::unique_ptr<Arrays>& current_arrays() {
  static std::unique_ptr<Arrays> arrays;
  return arrays;
}

Arrays& arrays_for(const Shape& s) {
  std::unique_ptr<Arrays>& held = current_arrays();
  if (!held || held->key != key_of(s)) {
    held.reset();
    held = make_arrays(s);
  }
  return *held;
}

Runtime& runtime() {
  static Runtime instance([] {
    RuntimeOptions options;
    options.backend = "cpu";
    options.fuse_dimensions = env_or("STUBJIT_SHAPES_FUSE", 1) != 0;
    options.specialize_short_rows = env_or("STUBJIT_SHAPES_SHORT_ROWS", 1) != 0;
    if (const char* flags = std::getenv("STUBJIT_SHAPES_COMPILER_OPTIONS")) {
      std::string flag;
      for (const char* c = flags;; ++c) {
        if (*c == ' ' || *c == '\0') {
          if (!flag.empty()) options.compiler_options.push_back(flag);
          flag.clear();
          if (*c == '\0') break;
        } else {
          flag += *c;
        }
      }
    }
    return options;
  }());
  return instance;
}

struct Side {
  Kernel kernel;
  Field fa, fb;
  std::optional<Domain> domain;
  LaunchOptions options;
};

Side stubjit_side(const Shape& s, Arrays& r, std::optional<Mode> mode) {
  Runtime& rt = runtime();
  Side side{s.kind == Kind::saxpy ? rt.kernel(saxpy_source()) : rt.kernel(stencil_source(s.rank)),
            rt.wrap(static_cast<const float*>(r.a.data()), r.layout.extents, r.layout.strides),
            rt.wrap(r.b.data(), r.layout.extents, r.layout.strides),
            std::nullopt,
            {}};
  side.domain.emplace(domain_of(s));
  side.options.mode = mode;
  return side;
}

LaunchSummary launch(const Shape& s, Side& side) {
  if (s.kind == Kind::saxpy)
    return side.kernel.launch(side.options, *side.domain, saxpy_a, side.fa, side.fb);
  return side.kernel.launch(side.options, *side.domain, side.fa, side.fb);
}

void hand(const Shape& s, Arrays& r, std::vector<float>& out) {
  if (s.kind == Kind::saxpy) {
    hand_saxpy(r.layout.nest, saxpy_a, r.a.data(), out.data());
  } else {
    const ShapeLayout& l = r.layout;
    hand_stencil(l.nest, int(l.neighbour.size()), l.neighbour.data(), stencil_c0, stencil_c1,
                 r.a.data() + l.first_point, out.data() + l.first_point);
  }
}

double milliseconds(const std::chrono::steady_clock::time_point& since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

void run_case(benchmark::State& state, Shape s, std::optional<Mode> mode) {
  Arrays& r = arrays_for(s);
  Side side = stubjit_side(s, r, mode);
  // Check: one launch against one hand loop, from the same starting values (copied, not
  // allocated: the arrays are touched once per shape).
  std::copy(r.start.begin(), r.start.end(), r.b.begin());
  std::copy(r.start.begin(), r.start.end(), r.hand.begin());
  hand(s, r, r.hand);
  const std::vector<float>& expected = r.hand;
  LaunchSummary summary;
  try {
    summary = launch(s, side);  // compiles
  } catch (const Error& error) {
    state.SkipWithError(error.what());
    for (auto _ : state) {
    }
    return;
  }
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const float want = expected[k], got = r.b[k];
    if (std::fabs(want - got) > 1e-5f * (1.0f + std::fabs(want))) {
      state.SkipWithError(("element " + std::to_string(k) + ": stubjit " + std::to_string(got) +
                           ", hand loop " + std::to_string(want))
                              .c_str());
      for (auto _ : state) {
      }
      return;
    }
  }
  // Where the timed hand loop writes: stubjit's array, so that both sides read and write
  // the same memory, or its own (checked above).
  std::vector<float>& hand_out = env_or("STUBJIT_SHAPES_HAND_INTO_B", 1) != 0 ? r.b : r.hand;
  std::vector<double> stubjit_ms, hand_ms;
  std::size_t iteration = 0;
  for (auto _ : state) {
    bench::time_both_alternating(
        iteration++,
        [&] {
          const auto t = std::chrono::steady_clock::now();
          launch(s, side);
          return milliseconds(t);
        },
        stubjit_ms,
        [&] {
          const auto t = std::chrono::steady_clock::now();
          hand(s, r, hand_out);
          return milliseconds(t);
        },
        hand_ms);
    state.SetIterationTime(stubjit_ms.back() / 1e3);
  }
  const double bytes = useful_bytes(s);
  const double ms_s = bench::median(stubjit_ms), ms_h = bench::median(hand_ms);
  state.counters["stubjit_GBps"] = bytes / ms_s / 1e6;
  state.counters["hand_GBps"] = bytes / ms_h / 1e6;
  state.counters["ratio"] = ms_h / ms_s;
  state.counters["points"] = double(points_of(s));
  state.SetLabel(std::string(name_of(summary.mode)) + " r" + std::to_string(summary.rank));
}

}  // namespace

int main(int argc, char** argv) {
  register_cases(5, run_case);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current_arrays().reset();
  return 0;
}
