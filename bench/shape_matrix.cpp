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
// STUBJIT_SHAPES_SHORT_ROWS=0 (no stub with a short innermost extent compiled in),
// STUBJIT_SHAPES_COMPILER_OPTIONS (extra stub compiler flags, space-separated).
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
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using i64 = std::int64_t;

enum class Kind { saxpy, stencil };
enum class FieldOrder { row, column, strided };

const char* name_of(Kind k) { return k == Kind::saxpy ? "saxpy" : "stencil"; }
const char* name_of(FieldOrder o) {
  return o == FieldOrder::row ? "row" : o == FieldOrder::column ? "column" : "strided";
}

i64 env_or(const char* name, i64 fallback) {
  const char* text = std::getenv(name);
  return text ? std::atoll(text) : fallback;
}

// The stencil reaches neighbours along the innermost min(rank, 3) dimensions, which
// carry a halo of one on each side.
int stencil_dims(int rank) { return rank < 3 ? rank : 3; }

struct Shape {
  Kind kind;
  int rank;
  i64 inner;
  FieldOrder order;
  std::vector<i64> counts;  // the domain's counts (the stencil: its interior)
};

// Counts with the innermost `inner` and the rest as equal as they can be, about `total`
// elements in all (the stencil: counting its halos, so its arrays stay that size).
std::vector<i64> counts_for(Kind kind, int rank, i64 inner, i64 total) {
  if (rank == 1) return {kind == Kind::stencil ? total - 2 : total};
  const int halo_dims = kind == Kind::stencil ? stencil_dims(rank) : 0;
  auto allocated = [&](const std::vector<i64>& c) {
    double n = 1;
    for (int d = 0; d < rank; ++d) n *= double(c[std::size_t(d)] + (d >= rank - halo_dims ? 2 : 0));
    return n;
  };
  const auto halo = [&](int d) { return d >= rank - halo_dims ? 2 : 0; };
  std::vector<i64> c(std::size_t(rank), 1);
  c.back() = inner;
  // Equal outer extents, as large as fit; then the outermost takes what is left.
  i64 m = std::max<i64>(
      1, i64(std::pow(double(total) / double(inner + halo(rank - 1)), 1.0 / (rank - 1))));
  const auto set_outer = [&] {
    for (int d = 0; d + 1 < rank; ++d) c[std::size_t(d)] = m;
  };
  set_outer();
  while (m > 1 && allocated(c) > double(total)) {
    --m;
    set_outer();
  }
  const double rest = allocated(c) / double(c[0] + halo(0));
  c[0] = std::max<i64>(1, i64(double(total) / rest) - halo(0));
  return c;
}

// The arrays of one shape, with the hand loop's nest and stubjit's fields over them.
struct Arrays {
  std::string key;
  std::vector<i64> extents;  // per logical dimension
  std::vector<i64> strides;  // per logical dimension, elements
  i64 elements = 0;          // allocated
  std::vector<float> a, b;   // saxpy: x, y; stencil: u, out (stubjit's)
  std::vector<float> start;  // b's values before each case
  std::vector<float> hand;   // the hand loop's b
  HandNest nest;             // memory order
  i64 first_point = 0;       // element offset of the first point (stencil: inside the halo)
  std::vector<i64> neighbour;
};

std::string key_of(const Shape& s) {
  std::string key = std::string(name_of(s.kind)) + "/" + name_of(s.order);
  for (i64 c : s.counts) key += "x" + std::to_string(c);
  return key;
}

std::unique_ptr<Arrays> make_arrays(const Shape& s) {
  auto arrays = std::make_unique<Arrays>();
  Arrays& r = *arrays;
  r.key = key_of(s);
  const int rank = s.rank;
  const int halo_dims = s.kind == Kind::stencil ? stencil_dims(rank) : 0;
  for (int d = 0; d < rank; ++d)
    r.extents.push_back(s.counts[std::size_t(d)] + (d >= rank - halo_dims ? 2 : 0));
  r.strides.assign(std::size_t(rank), 0);
  i64 stride = s.order == FieldOrder::strided ? 2 : 1;
  for (int k = 0; k < rank; ++k) {
    const int d = s.order == FieldOrder::column ? k : rank - 1 - k;
    r.strides[std::size_t(d)] = stride;
    stride *= r.extents[std::size_t(d)];
  }
  r.elements = stride;
  r.a.resize(std::size_t(r.elements));
  r.b.resize(std::size_t(r.elements));
  for (std::size_t k = 0; k < r.a.size(); ++k) {
    r.a[k] = float(k & 127) * 0.25f;
    r.b[k] = float((k * 7) & 63) - 20.0f;
  }
  r.start = r.b;
  r.hand = r.b;
  // The hand loop walks memory order: largest stride outermost.
  r.nest.rank = rank;
  for (int k = 0; k < rank; ++k) {
    const int d = s.order == FieldOrder::column ? rank - 1 - k : k;
    r.nest.count[k] = s.counts[std::size_t(d)];
    r.nest.stride_a[k] = r.strides[std::size_t(d)];
    r.nest.stride_b[k] = r.strides[std::size_t(d)];
  }
  for (int d = rank - halo_dims; d < rank; ++d) {
    r.first_point += r.strides[std::size_t(d)];
    r.neighbour.push_back(r.strides[std::size_t(d)]);
  }
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

constexpr float saxpy_a = 0.5f;
constexpr float c0 = -0.5f, c1 = 0.125f;

KernelSource stencil_source(int rank) {
  const int dims = stencil_dims(rank);
  auto at = [&](int moved, int delta) {
    std::string call = "u(";
    for (int d = 0; d < rank; ++d) {
      call += (d ? ", i[" : "i[") + std::to_string(d) + "]";
      if (d == moved) call += delta > 0 ? " + 1" : " - 1";
    }
    return call + ")";
  };
  std::string body = "const float sum = ";
  for (int k = 0; k < dims; ++k) {
    const int d = rank - dims + k;
    body += std::string(k ? " + " : "") + "(" + at(d, -1) + " + " + at(d, +1) + ")";
  }
  body += ";\nout = " + std::to_string(c0) + "f * " + at(-1, 0) + " + " + std::to_string(c1) +
          "f * sum;";
  return {"stencil_r" + std::to_string(rank),
          {index("i"), in<float>("u", rank), inout<float>("out")},
          body};
}

struct Side {
  Kernel kernel;
  Field fa, fb;
  std::optional<Domain> domain;
  LaunchOptions options;
};

Side stubjit_side(const Shape& s, Arrays& r, std::optional<Mode> mode) {
  Runtime& rt = runtime();
  Side side{s.kind == Kind::saxpy
                ? rt.kernel({"saxpy",
                             {scalar<float>("a"), in<float>("x"), inout<float>("y")},
                             "y = a * x + y;"})
                : rt.kernel(stencil_source(s.rank)),
            rt.wrap(static_cast<const float*>(r.a.data()), r.extents, r.strides),
            rt.wrap(r.b.data(), r.extents, r.strides),
            std::nullopt,
            {}};
  std::vector<Dim> dims;
  const int halo_dims = s.kind == Kind::stencil ? stencil_dims(s.rank) : 0;
  for (int d = 0; d < s.rank; ++d)
    dims.push_back(Dim{d >= s.rank - halo_dims ? 1 : 0, s.counts[std::size_t(d)], 1});
  side.domain.emplace(dims);
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
    hand_saxpy(r.nest, saxpy_a, r.a.data(), out.data());
  } else {
    hand_stencil(r.nest, int(r.neighbour.size()), r.neighbour.data(), c0, c1,
                 r.a.data() + r.first_point, out.data() + r.first_point);
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
  std::vector<float>& hand_out = r.hand;
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
  i64 points = 1;
  for (i64 c : s.counts) points *= c;
  const double bytes = double(points) * (s.kind == Kind::saxpy ? 12 : 8);
  const double ms_s = bench::median(stubjit_ms), ms_h = bench::median(hand_ms);
  state.counters["stubjit_GBps"] = bytes / ms_s / 1e6;
  state.counters["hand_GBps"] = bytes / ms_h / 1e6;
  state.counters["ratio"] = ms_h / ms_s;
  state.counters["points"] = double(points);
  state.SetLabel(std::string(name_of(summary.mode)) + " r" + std::to_string(summary.rank));
}

void register_all() {
  const i64 total = env_or("STUBJIT_SHAPES_TOTAL", i64(1) << 25);
  const i64 iterations = env_or("STUBJIT_SHAPES_ITERATIONS", 5);
  for (Kind kind : {Kind::saxpy, Kind::stencil}) {
    for (int rank = 1; rank <= 8; ++rank) {
      for (i64 inner : {1, 3, 5, 7, 37, 64, 1000}) {
        if (rank == 1 && inner != 1) continue;  // one case: the whole domain
        for (FieldOrder order : {FieldOrder::row, FieldOrder::column, FieldOrder::strided}) {
          if (rank == 1 && order == FieldOrder::column) continue;  // the same as row
          const Shape shape{kind, rank, inner, order,
                            counts_for(kind, rank, rank == 1 ? total : inner, total)};
          std::vector<std::pair<std::string, std::optional<Mode>>> modes = {
              {"auto", std::nullopt}, {"spread", Mode::spread}, {"multi", Mode::multi}};
          if (rank <= 3) modes.insert(modes.begin() + 1, {"direct", Mode::direct});
          for (const auto& [mode_name, mode] : modes) {
            std::string name = std::string(name_of(kind)) + "/r" + std::to_string(rank) + "/" +
                               (rank == 1 ? "all" : "inner" + std::to_string(inner)) + "/" +
                               name_of(order) + "/" + mode_name;
            const std::optional<Mode> forced = mode;
            benchmark::RegisterBenchmark(
                name.c_str(),
                [shape, forced](benchmark::State& state) { run_case(state, shape, forced); })
                ->UseManualTime()
                ->Iterations(iterations)
                ->Unit(benchmark::kMillisecond);
          }
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current_arrays().reset();
  return 0;
}
