// Group kernels on the CPU backend against a hand-written loop nest: a YAKL-style
// column kernel (parallel_outer over ny x nx columns, inner loops over nz levels with
// fences and a `single` between them, a group-shared scratch array) as a stubjit group
// kernel, and the same work as g++ -O3 -march=native -fopenmp loops
// (hand_yakl_columns in hand_loops.cpp: `omp for collapse(2)` over the columns, plain
// inner loops), built twice: as the other hand loops (512-bit vectors on an AVX-512
// host) and with -mprefer-vector-width=256, the vector width of the stubs
// (hand_yakl_columns_256). Double precision; fields row-major over (j, i, k), so each
// column is contiguous and the group kernel sees it through rank-1 projected views.
//
//   BM_Columns_Alternating/nz   every side in every iteration, rotating the order:
//                               stubjit, the hand loop at 256 bits, the hand loop as
//                               built, and a plain copy of the bytes the kernel moves
//                               (hand_copy_columns, the bandwidth reference); counters
//                               stubjit_ms, hand256_ms, hand_ms, copy_ms (medians),
//                               hand256_over_stubjit and hand_over_stubjit (above 1:
//                               stubjit faster) and copy_over_stubjit (1: stubjit as
//                               fast as the copy)
//   BM_Columns_Stubjit/nz       one side per benchmark, for
//   BM_Columns_HandLoop/nz      --benchmark_enable_random_interleaving
//   BM_Columns_HandLoop256/nz
//
// Each benchmark checks stubjit's results (w, momentum, tend) against both hand loops',
// bit for bit, before timing. Environment: STUBJIT_GROUPS_COLUMNS (columns per side,
// default 256: 256 x 256 columns).
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "hand_loops.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using i64 = std::int64_t;

i64 columns_per_side() {
  const char* text = std::getenv("STUBJIT_GROUPS_COLUMNS");
  const i64 value = text ? std::atoll(text) : 0;
  return value > 0 ? value : 256;
}

RuntimeOptions cpu() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

// YAKL's parallel_outer / parallel_inner / fence_inner / single_inner, as in
// examples/yakl_column.cpp, with a flux divergence after it (flux in group-shared
// memory: nflux = nz + 1 values a group).
KernelSource column_source() {
  return {"yakl_columns",
          {group("g"), scalar<i64>("nz"), scalar<i64>("nflux"), scalar<double>("rdz"),
           in<double>("state", 1), in<double>("density", 1), in<double>("theta", 1),
           inout<double>("w", 1), inout<double>("momentum", 1), inout<double>("tend", 1),
           shared<double>("flux", {"nflux"})},
          R"(
g.inner(nz, [&](stubjit::i64 k) { w(1 + k) = state(k); });
g.fence();
g.single([&] {
  w(0) = 0;
  w(nz + 1) = 0;
});
g.fence();
g.inner(nz + 2, [&](stubjit::i64 k) { momentum(k) = w(k) * density(k); });
g.fence();
g.inner(nflux, [&](stubjit::i64 k) {
  flux(k) = 0.25 * (momentum(k) + momentum(k + 1)) * (theta(k) + theta(k + 1));
});
g.fence();
g.inner(nz, [&](stubjit::i64 k) { tend(k) = (flux(k) - flux(k + 1)) * rdz; });
)"};
}

// The fields of one size: inputs shared by all sides, outputs one set for each kernel
// (the copy writes the hand loop's), all from the runtime's allocator (host memory on
// the CPU backend).
struct Columns {
  i64 ny, nx, nz;
  double rdz = 1.0 / 64;
  Runtime runtime{cpu()};
  Kernel kernel;
  Field state, density, theta;
  Field w, momentum, tend;                          // stubjit's
  Field hand_w, hand_momentum, hand_tend;           // the hand loop's
  Field hand256_w, hand256_momentum, hand256_tend;  // the hand loop's at 256 bits
  Domain domain{1};
  LaunchSummary summary;

  Columns(i64 side, i64 levels) : ny(side), nx(side), nz(levels), domain{side, side} {
    kernel = runtime.kernel(column_source());
    const i64 full = nz + 2;
    state = runtime.allocate<double>({ny, nx, nz});
    density = runtime.allocate<double>({ny, nx, full});
    theta = runtime.allocate<double>({ny, nx, full});
    w = runtime.allocate<double>({ny, nx, full});
    momentum = runtime.allocate<double>({ny, nx, full});
    tend = runtime.allocate<double>({ny, nx, nz});
    hand_w = runtime.allocate<double>({ny, nx, full});
    hand_momentum = runtime.allocate<double>({ny, nx, full});
    hand_tend = runtime.allocate<double>({ny, nx, nz});
    hand256_w = runtime.allocate<double>({ny, nx, full});
    hand256_momentum = runtime.allocate<double>({ny, nx, full});
    hand256_tend = runtime.allocate<double>({ny, nx, nz});
    std::vector<double> values(static_cast<std::size_t>(ny * nx * full));
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = 1.0 + 0.001 * double(k % 977);
    density.copy_from(values);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = 300.0 + 0.01 * double(k % 613);
    theta.copy_from(values);
    for (Field* out : {&w, &momentum, &hand_w, &hand_momentum, &hand256_w, &hand256_momentum})
      out->copy_from(values);
    values.resize(static_cast<std::size_t>(ny * nx * nz));
    for (Field* out : {&tend, &hand_tend, &hand256_tend}) out->copy_from(values);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = 0.05 * double(k % 401) - 10.0;
    state.copy_from(values);
  }

  void run_stubjit() {
    summary = kernel.launch(domain, nz, nz + 1, rdz, state, density, theta, w, momentum, tend);
  }
  void run_hand() {
    hand_yakl_columns(ny, nx, nz, rdz, static_cast<const double*>(state.data()),
                      static_cast<const double*>(density.data()),
                      static_cast<const double*>(theta.data()), static_cast<double*>(hand_w.data()),
                      static_cast<double*>(hand_momentum.data()),
                      static_cast<double*>(hand_tend.data()));
  }
  void run_hand256() {
    hand_yakl_columns_256(
        ny, nx, nz, rdz, static_cast<const double*>(state.data()),
        static_cast<const double*>(density.data()), static_cast<const double*>(theta.data()),
        static_cast<double*>(hand256_w.data()), static_cast<double*>(hand256_momentum.data()),
        static_cast<double*>(hand256_tend.data()));
  }
  // Overwrites the hand loop's outputs (run_hand writes all of them again).
  void run_copy() {
    hand_copy_columns(ny, nx, nz, static_cast<const double*>(state.data()),
                      static_cast<const double*>(density.data()),
                      static_cast<const double*>(theta.data()), static_cast<double*>(hand_w.data()),
                      static_cast<double*>(hand_momentum.data()),
                      static_cast<double*>(hand_tend.data()));
  }
  // Every kernel once; empty when both hand loops agree with stubjit bit for bit, else
  // what differs.
  std::string check() {
    run_stubjit();
    run_hand();
    run_hand256();
    const std::vector<double> sw = w.to_vector<double>(), sm = momentum.to_vector<double>(),
                              st = tend.to_vector<double>();
    if (sw != hand_w.to_vector<double>()) return "w differs from the hand loop's";
    if (sm != hand_momentum.to_vector<double>()) return "momentum differs from the hand loop's";
    if (st != hand_tend.to_vector<double>()) return "tend differs from the hand loop's";
    if (sw != hand256_w.to_vector<double>()) return "w differs from the 256-bit hand loop's";
    if (sm != hand256_momentum.to_vector<double>())
      return "momentum differs from the 256-bit hand loop's";
    if (st != hand256_tend.to_vector<double>()) return "tend differs from the 256-bit hand loop's";
    return {};
  }
  // Bytes a launch must move at least: each input read once, each output written once.
  double bytes() const { return double(ny * nx) * double(2 * nz + 4 * (nz + 2)) * sizeof(double); }
};

std::unique_ptr<Columns> prepared(benchmark::State& state) {
  auto columns = std::make_unique<Columns>(columns_per_side(), state.range(0));
  const std::string problem = columns->check();  // compiles the stub, outside the timing
  if (!problem.empty()) {
    state.SkipWithError(("stubjit and a hand loop disagree: " + problem).c_str());
    return nullptr;
  }
  state.SetLabel(std::to_string(columns->ny) + "x" + std::to_string(columns->nx) + " columns");
  return columns;
}

using stubjit::bench::milliseconds;

void BM_Columns_Alternating(benchmark::State& state) {
  const std::unique_ptr<Columns> columns = prepared(state);
  if (!columns) return;
  using Clock = std::chrono::steady_clock;
  const auto time = [](auto&& run) {
    const auto start = Clock::now();
    run();
    return milliseconds(Clock::now() - start);
  };
  // The sides, each with its milliseconds; iteration n runs them starting from side
  // n % 4, so that each side takes each place in the order equally often and drift of a
  // shared machine reaches all alike.
  enum { stubjit_side, hand256_side, hand_side, copy_side, sides };
  std::array<std::vector<double>, sides> ms;
  const auto run_side = [&](int side) {
    switch (side) {
      case stubjit_side:
        return time([&] { columns->run_stubjit(); });
      case hand256_side:
        return time([&] { columns->run_hand256(); });
      case hand_side:
        return time([&] { columns->run_hand(); });
      default:
        return time([&] { columns->run_copy(); });
    }
  };
  std::int64_t iteration = 0;
  for (auto _ : state) {
    for (int place = 0; place < sides; ++place) {
      const int side = static_cast<int>((iteration + place) % sides);
      ms[static_cast<std::size_t>(side)].push_back(run_side(side));
    }
    ++iteration;
    state.SetIterationTime(ms[stubjit_side].back() / 1e3);
  }
  const auto median_of = [&](int side) {
    return stubjit::bench::median(ms[static_cast<std::size_t>(side)]);
  };
  state.counters["stubjit_ms"] = median_of(stubjit_side);
  state.counters["hand256_ms"] = median_of(hand256_side);
  state.counters["hand_ms"] = median_of(hand_side);
  state.counters["copy_ms"] = median_of(copy_side);
  state.counters["hand256_over_stubjit"] = median_of(hand256_side) / median_of(stubjit_side);
  state.counters["hand_over_stubjit"] = median_of(hand_side) / median_of(stubjit_side);
  state.counters["copy_over_stubjit"] = median_of(copy_side) / median_of(stubjit_side);
  state.counters["copy_GBps"] = columns->bytes() / median_of(copy_side) / 1e6;
  state.counters["group_size"] = columns->summary.group_size;
  state.counters["shared_bytes"] = columns->summary.shared_bytes;
}
BENCHMARK(BM_Columns_Alternating)
    ->Arg(64)
    ->Arg(128)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_Columns_Stubjit(benchmark::State& state) {
  const std::unique_ptr<Columns> columns = prepared(state);
  if (!columns) return;
  for (auto _ : state) columns->run_stubjit();
  state.SetBytesProcessed(static_cast<std::int64_t>(double(state.iterations()) * columns->bytes()));
}
BENCHMARK(BM_Columns_Stubjit)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Columns_HandLoop(benchmark::State& state) {
  const std::unique_ptr<Columns> columns = prepared(state);
  if (!columns) return;
  for (auto _ : state) columns->run_hand();
  state.SetBytesProcessed(static_cast<std::int64_t>(double(state.iterations()) * columns->bytes()));
}
BENCHMARK(BM_Columns_HandLoop)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Columns_HandLoop256(benchmark::State& state) {
  const std::unique_ptr<Columns> columns = prepared(state);
  if (!columns) return;
  for (auto _ : state) columns->run_hand256();
  state.SetBytesProcessed(static_cast<std::int64_t>(double(state.iterations()) * columns->bytes()));
}
BENCHMARK(BM_Columns_HandLoop256)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
