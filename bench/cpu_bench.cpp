// CPU backend figures, each against a baseline measured in the same run:
//   launch overhead on a memory-cache hit (1-element domain) vs. calling the JIT'd
//   entry directly with pre-packed arguments, with the thread's launch memo hit, and
//   missed (two domains in turn: the planner runs, the stub comes from the kernel's
//   table);
//   the launch parameters of one launch filled for a domain of each rank (part of the
//   launch overhead above; a GPU plan's figure, as the divisors spread indexing needs
//   are computed there);
//   a large 2-D saxpy vs. a hand-written g++ -O3 -fopenmp loop;
//   a smoothing kernel whose radius is a specialized scalar vs. the same kernel with
//   the radius an ordinary scalar, alternating in one run.
// bench/results/ holds the latest figures.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/shared_object_loader.hpp"
#include "bench_support.hpp"
#include "bind/bind.hpp"
#include "codegen/stub_request.hpp"
#include "hand_loops.hpp"
#include "runtime/launch_params.hpp"
#include "runtime/runtime_state.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;

RuntimeOptions cpu() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

KernelSource saxpy_source() {
  return {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"};
}

void BM_Launch_Stubjit(benchmark::State& state) {
  Runtime runtime(cpu());
  Kernel saxpy = runtime.kernel(saxpy_source());
  Field x = runtime.allocate<float>({1});
  Field y = runtime.allocate<float>({1});
  x.copy_from(std::vector<float>{1.0f});
  y.copy_from(std::vector<float>{0.0f});
  const Domain domain{1};
  saxpy.launch(domain, 1.0f, x, y);  // compile outside the timed loop
  for (auto _ : state) {
    saxpy.launch(domain, 1.0f, x, y);
  }
  benchmark::DoNotOptimize(y.to_vector<float>());
}
BENCHMARK(BM_Launch_Stubjit);

// Two domains in turn: every launch misses the thread's launch memo, so it plans and
// finds its stub by identity in the kernel's table.
void BM_Launch_StubjitAlternatingDomains(benchmark::State& state) {
  Runtime runtime(cpu());
  Kernel saxpy = runtime.kernel(saxpy_source());
  Field x = runtime.allocate<float>({2});
  Field y = runtime.allocate<float>({2});
  x.copy_from(std::vector<float>{1.0f, 1.0f});
  y.copy_from(std::vector<float>{0.0f, 0.0f});
  const Domain one{1};
  const Domain two{2};
  saxpy.launch(one, 1.0f, x, y);
  saxpy.launch(two, 1.0f, x, y);
  bool which = false;
  for (auto _ : state) {
    saxpy.launch(which ? two : one, 1.0f, x, y);
    which = !which;
  }
  benchmark::DoNotOptimize(y.to_vector<float>());
}
BENCHMARK(BM_Launch_StubjitAlternatingDomains);

// The same stub's entry called directly: what remains when bind, plan, key, cache
// lookup and packing are gone.
void BM_Launch_DirectEntryCall(benchmark::State& state) {
  const std::unique_ptr<detail::Toolchain> toolchain = detail::make_cpu_toolchain();
  const std::unique_ptr<detail::Device> device = detail::make_cpu_device(0);
  const KernelSource source = saxpy_source();
  detail::StubRequest request;
  request.kernel = &source;
  request.mode = Mode::direct;
  request.rank = 1;
  request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  const detail::GeneratedStub stub = detail::generate_stub(request);
  const std::vector<std::string> no_options;
  const detail::Binary binary =
      toolchain->compile({stub.source, stub.file_name, stub.entry, source.name, no_options});
  auto module = device->load(binary, stub.entry);
  const detail::CpuEntry entry = static_cast<const detail::CpuModule&>(*module).entry();

  float x = 1.0f, y = 0.0f;
  struct {
    float a;
    float pad;
    const float* x;
    std::int64_t x_extent, x_stride;
    float* y;
    std::int64_t y_extent, y_stride;
  } args{1.0f, 0.0f, &x, 1, 1, &y, 1, 1};
  static_assert(sizeof(args) == 56, "matches the stub's argument layout");
  LaunchParams lp{};
  lp.count[0] = 1;
  lp.step[0] = 1;
  lp.grid[0] = lp.grid[1] = lp.grid[2] = 1;
  lp.block[0] = lp.block[1] = lp.block[2] = 1;
  for (auto _ : state) {
    entry(&args, &lp, 0, 1, nullptr);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(y);
}
BENCHMARK(BM_Launch_DirectEntryCall);

// fill_domain and fill_dispatch for every dispatch of a plan made with a GPU's limits
// (the defaults: 1024 threads per group, a 2^31-1 x 65535 x 65535 grid): rank 1 and 3
// plan direct, rank 4 and 8 spread (argument: the rank).
void BM_Launch_FillParams(benchmark::State& state) {
  const int rank = static_cast<int>(state.range(0));
  std::vector<Dim> dims(static_cast<std::size_t>(rank), Dim{0, 5, 1});
  dims.back().count = 1000;
  const Domain domain(dims);
  const Plan plan = make_plan(domain, DeviceLimits{});
  LaunchParams lp;
  for (auto _ : state) {
    detail::fill_domain(lp, domain);
    for (const Dispatch& dispatch : plan.dispatches) {
      detail::fill_dispatch(lp, plan, dispatch);
      benchmark::DoNotOptimize(lp);
    }
  }
  state.SetLabel(std::string(name_of(plan.mode)) + ", " + std::to_string(plan.dispatches.size()) +
                 " dispatch");
}
BENCHMARK(BM_Launch_FillParams)->Arg(1)->Arg(3)->Arg(4)->Arg(8);

constexpr std::int64_t rows = 8192, cols = 8192;  // 256 MiB per array

void BM_Saxpy2D_Stubjit(benchmark::State& state) {
  Runtime runtime(cpu());
  Kernel saxpy = runtime.kernel(saxpy_source());
  Field x = runtime.allocate<float>({rows, cols});
  Field y = runtime.allocate<float>({rows, cols});
  x.copy_from(std::vector<float>(rows * cols, 1.0f));
  y.copy_from(std::vector<float>(rows * cols, 2.0f));
  const Domain domain{rows, cols};
  saxpy.launch(domain, 0.5f, x, y);
  for (auto _ : state) saxpy.launch(domain, 0.5f, x, y);
  state.SetBytesProcessed(state.iterations() * rows * cols * 3 * sizeof(float));
}
BENCHMARK(BM_Saxpy2D_Stubjit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Saxpy2D_HandLoop(benchmark::State& state) {
  // Memory from the same allocator as the stubjit run, touched the same way.
  Runtime runtime(cpu());
  Field x = runtime.allocate<float>({rows, cols});
  Field y = runtime.allocate<float>({rows, cols});
  x.copy_from(std::vector<float>(rows * cols, 1.0f));
  y.copy_from(std::vector<float>(rows * cols, 2.0f));
  auto* px = static_cast<const float*>(x.data());
  auto* py = static_cast<float*>(y.data());
  hand_saxpy_2d(rows, cols, 0.5f, px, py);
  for (auto _ : state) hand_saxpy_2d(rows, cols, 0.5f, px, py);
  state.SetBytesProcessed(state.iterations() * rows * cols * 3 * sizeof(float));
}
BENCHMARK(BM_Saxpy2D_HandLoop)->Unit(benchmark::kMillisecond)->UseRealTime();

// The README's example: out(i) = the mean of u over i - radius .. i + radius (u with a
// halo of `radius` on each side). With the radius specialized, Clang sees the trip
// count of the inner loop and unrolls it; as an ordinary scalar it is a loop bound
// known only at run time. Both sides compile before the timed loop; counters
// (ms per launch, ratio = generic / specialized: above 1, specialization pays).
KernelSource smooth_source(bool specialize) {
  return {"smooth",
          {specialize ? specialized<std::int32_t>("radius") : scalar<std::int32_t>("radius"),
           in<float>("u", 1), inout<float>("out"), index("i")},
          "float sum = 0.0f;\n"
          "for (stubjit::i32 r = -radius; r <= radius; ++r) sum += u(i[0] + radius + r);\n"
          "out = sum / (2 * radius + 1);"};
}

void BM_Specialize_RadiusOverGeneric(benchmark::State& state) {
  const auto radius = static_cast<std::int32_t>(state.range(0));
  constexpr std::int64_t n = std::int64_t(1) << 24;
  Runtime runtime(cpu());
  Kernel specialized_smooth = runtime.kernel(smooth_source(true));
  Kernel generic_smooth = runtime.kernel(smooth_source(false));
  Field u = runtime.allocate<float>({n + 2 * radius});
  std::vector<float> values(static_cast<std::size_t>(n + 2 * radius));
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = float(k % 97) * 0.25f;
  u.copy_from(values);
  Field a = runtime.allocate<float>({n});
  Field b = runtime.allocate<float>({n});
  const Domain domain{n};
  specialized_smooth.launch(domain, radius, u, a);
  generic_smooth.launch(domain, radius, u, b);
  if (a.to_vector<float>() != b.to_vector<float>()) {
    state.SkipWithError("the specialized and generic kernels disagree");
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto time = [&](Kernel& kernel, Field& out) {
    const auto start = Clock::now();
    kernel.launch(domain, radius, u, out);
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  std::vector<double> specialized_ms, generic_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    stubjit::bench::time_both_alternating(
        iteration++, [&] { return time(specialized_smooth, a); }, specialized_ms,
        [&] { return time(generic_smooth, b); }, generic_ms);
    state.SetIterationTime(specialized_ms.back() / 1e3);
  }
  state.counters["specialized_ms"] = stubjit::bench::median(specialized_ms);
  state.counters["generic_ms"] = stubjit::bench::median(generic_ms);
  state.counters["ratio"] =
      stubjit::bench::median(generic_ms) / stubjit::bench::median(specialized_ms);
  state.counters["compiles"] = static_cast<double>(runtime.counters().compiles);
}
BENCHMARK(BM_Specialize_RadiusOverGeneric)
    ->Arg(1)
    ->Arg(3)
    ->Arg(8)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// What a launch with a radius not seen before waits for: Specialize::at_launch (0)
// compiles its stub first; Specialize::background (1) runs the generic stub, compiled
// once before the timed loop, and queues the specialized compile. Each iteration takes
// a new radius; no disk cache, so every specialized stub is compiled. Counters: the
// median launch (ms) and how many launches ran the generic stub.
void BM_Specialize_NewValueLatency(benchmark::State& state) {
  const Specialize mode = state.range(0) == 0 ? Specialize::at_launch : Specialize::background;
  constexpr std::int64_t n = std::int64_t(1) << 16;
  constexpr std::int32_t most_radius = 1000;
  RuntimeOptions options = cpu();
  options.disk_cache = false;
  Runtime runtime(options);
  KernelSource source = smooth_source(true);
  source.specialize = mode;
  Kernel smooth = runtime.kernel(source);
  Field u = runtime.allocate<float>({n + 2 * most_radius});
  u.copy_from(std::vector<float>(static_cast<std::size_t>(n + 2 * most_radius), 1.0f));
  Field out = runtime.allocate<float>({n});
  const Domain domain{n};
  smooth.launch(domain, most_radius, u, out);  // the generic stub, for background
  smooth.finish_specializing();
  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  std::int32_t radius = 0;
  int generic = 0;
  for (auto _ : state) {
    if (++radius == most_radius) {
      state.SkipWithError("out of radii");
      break;
    }
    const auto start = Clock::now();
    generic += smooth.launch(domain, radius, u, out).generic ? 1 : 0;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    state.SetIterationTime(ms.back() / 1e3);
  }
  smooth.finish_specializing();  // untimed: the queue's compiles
  state.counters["launch_ms"] = stubjit::bench::median(ms);
  state.counters["generic_launches"] = generic;
}
BENCHMARK(BM_Specialize_NewValueLatency)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// A Fortran Jacobi step over column-major m x n arrays, both read and written through
// broadcast views, so that no projected field gives a memory order and the domain's
// order decides which loop is innermost:
//   do j = 2, n-1; do i = 2, m-1
//     b(i, j) = 0.25 * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1))
// as a Fortran-order domain (i innermost, unit stride), as the C-order domain of the
// same points (j innermost, stride m), and as the hand-written nest (i innermost,
// bench/hand_loops.cpp: g++ -O3 -march=native, OpenMP over j). Alternating
// launch by launch after checking all three agree; counters: ms per step and
// c_over_fortran, hand_over_fortran (above 1: the Fortran-order launch is faster).
void BM_FortranOrder_StencilOverColumnMajor(benchmark::State& state) {
  constexpr std::int64_t m = 4096, n = 2048;
  Runtime runtime(cpu());
  Kernel jacobi = runtime.kernel({"jacobi_views",
                                  {index("p"), in<float>("a", 2), inout<float>("b", 2)},
                                  "const auto i = p[0], j = p[1];\n"
                                  "b(i, j) = 0.25f * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + "
                                  "a(i, j + 1));"});
  Field a = runtime.allocate<float>({m, n}, Layout::column_major);
  Field b_fortran = runtime.allocate<float>({m, n}, Layout::column_major);
  Field b_c = runtime.allocate<float>({m, n}, Layout::column_major);
  Field b_hand = runtime.allocate<float>({m, n}, Layout::column_major);
  std::vector<float> values(static_cast<std::size_t>(m * n));
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = float(k % 89) * 0.5f;
  a.copy_from(values);
  const std::vector<float> zeros(values.size(), 0.0f);
  b_fortran.copy_from(zeros);
  b_c.copy_from(zeros);
  b_hand.copy_from(zeros);
  const std::vector<Loop> nest = {{1, n - 2}, {1, m - 2}};
  const Domain fortran = Domain::loops(nest, Order::fortran);
  const Domain c_order(fortran.dims());  // the same points, the last (j) fastest
  const auto* pa = static_cast<const float*>(a.data());
  auto* ph = static_cast<float*>(b_hand.data());
  jacobi.launch(fortran, a, b_fortran);
  jacobi.launch(c_order, a, b_c);
  hand_jacobi_column_major(m, n, pa, ph);
  const std::vector<float> expected = b_hand.to_vector<float>();
  if (b_fortran.to_vector<float>() != expected || b_c.to_vector<float>() != expected) {
    state.SkipWithError("the launches and the hand loop disagree");
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto time = [](auto&& run) {
    const auto start = Clock::now();
    run();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  std::vector<double> fortran_ms, c_ms, hand_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    // The three in a rotating order, so that none always runs after the same one.
    for (int k = 0; k < 3; ++k) {
      switch ((iteration + k) % 3) {
        case 0:
          fortran_ms.push_back(time([&] { jacobi.launch(fortran, a, b_fortran); }));
          break;
        case 1:
          c_ms.push_back(time([&] { jacobi.launch(c_order, a, b_c); }));
          break;
        default:
          hand_ms.push_back(time([&] { hand_jacobi_column_major(m, n, pa, ph); }));
      }
    }
    ++iteration;
    state.SetIterationTime(fortran_ms.back() / 1e3);
  }
  const double f = stubjit::bench::median(fortran_ms);
  state.counters["fortran_ms"] = f;
  state.counters["c_ms"] = stubjit::bench::median(c_ms);
  state.counters["hand_ms"] = stubjit::bench::median(hand_ms);
  state.counters["c_over_fortran"] = stubjit::bench::median(c_ms) / f;
  state.counters["hand_over_fortran"] = stubjit::bench::median(hand_ms) / f;
}
BENCHMARK(BM_FortranOrder_StencilOverColumnMajor)->UseManualTime()->Unit(benchmark::kMillisecond);

// A non-rectangular domain: a(i, j) = 2 a(i, j) + 1 over the lower triangle of a
// row-major 4096 x 4096 matrix of doubles, as the box filtered by "i[1] <= i[0]" and as
// the hand-written triangular nest (bench/hand_loops.cpp), alternating launch by launch
// after checking both give the same bits. Counters: ms per update; hand_over_filtered
// (above 1: the filtered launch is faster).
void BM_Filter_LowerTriangle(benchmark::State& state) {
  constexpr std::int64_t n = 4096;
  Runtime runtime(cpu());
  KernelSource source{"lower_update", {inout<double>("a")}, "a = 2 * a + 1;"};
  source.filter = "i[1] <= i[0]";
  Kernel lower = runtime.kernel(source);
  Field filtered = runtime.allocate<double>({n, n});
  Field hand = runtime.allocate<double>({n, n});
  const std::vector<double> zeros(static_cast<std::size_t>(n * n), 0.0);
  filtered.copy_from(zeros);
  hand.copy_from(zeros);
  auto* ph = static_cast<double*>(hand.data());
  const Domain box{n, n};
  lower.launch(box, filtered);
  hand_lower_triangle(n, ph);
  if (filtered.to_vector<double>() != hand.to_vector<double>()) {
    state.SkipWithError("the filtered launch and the hand loop disagree");
    return;
  }
  // Keep the values small: every update doubles them.
  filtered.copy_from(zeros);
  hand.copy_from(zeros);
  using Clock = std::chrono::steady_clock;
  const auto time = [](auto&& run) {
    const auto start = Clock::now();
    run();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  std::vector<double> filtered_ms, hand_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    if (iteration % 500 == 499) {  // 2^500 stays finite; reset before it is not
      filtered.copy_from(zeros);
      hand.copy_from(zeros);
    }
    stubjit::bench::time_both_alternating(
        iteration++, [&] { return time([&] { lower.launch(box, filtered); }); }, filtered_ms,
        [&] { return time([&] { hand_lower_triangle(n, ph); }); }, hand_ms);
    state.SetIterationTime(filtered_ms.back() / 1e3);
  }
  state.counters["filtered_ms"] = stubjit::bench::median(filtered_ms);
  state.counters["hand_ms"] = stubjit::bench::median(hand_ms);
  state.counters["hand_over_filtered"] =
      stubjit::bench::median(hand_ms) / stubjit::bench::median(filtered_ms);
}
BENCHMARK(BM_Filter_LowerTriangle)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
