// CUDA backend figures, each against a baseline measured in the same run
// (bench/results/cuda.md holds them):
//
//   ColdCompile (no GPU needed): a launch that misses every cache, end to end through
//     the public API (bind, plan, key, codegen, NVRTC, load), against raw NVRTC
//     (create, compile, get CUBIN, destroy) on the same stub source and options.
//     The two alternate within one benchmark; counters give their medians and the
//     ratio (target <= 1.05; <= 1.03 with the disk cache on, second argument 1: a
//     fresh cache directory, every launch a miss whose entry is written in the
//     background). The runtime is the CUDA backend's compile-only mode
//     (STUBJIT_CUDA_ARCH=sm_90), so the figure is the same with and without a GPU.
//   ColdCompile ... OverHandWritten (no GPU needed): the same stubjit side against raw
//     NVRTC on the kernel a CUDA programmer would write by hand for the same case (own
//     index computation and bounds check, same body), contiguous arrays (third
//     argument 0) or the stub's generality of one stride per dimension (1), compiled
//     with the architecture option alone (fourth argument 0) or with -minimal too, as
//     stubjit compiles these stubs (1). Target <= 1.05 on the contiguous one (issue
//     #9, part 5).
//   HotLaunch (GPU): launch of a cached stub over one element against cuLaunchKernel
//     of the same CUBIN with pre-packed parameters (target: <= 0.3 us more).
//   Saxpy (GPU): 2^28 floats in each mode against a hand-written CUDA kernel compiled
//     with NVRTC in the same run (target >= 0.97), and against device copy bandwidth.
//   TiledTranspose (GPU): a 2^14 x 2^14 float transpose as a group kernel through a
//     32x33 shared tile (one group per 32x32 tile), in groups of 256 and 1024 threads,
//     against device copy bandwidth (BM_DeviceCopy moves the same bytes; target >= 0.8,
//     issue #11).
//   Reduce (GPU): the sum of 2^28 floats, whole and by rows, against device copy
//     bandwidth in the same iterations (target >= 0.85, issue #12).
//   Scan (GPU): the inclusive prefix sum of 2^28 int32 values, whole and by rows,
//     against a device copy in the same iterations (target >= 0.85, issue #12).
//
// GPU benchmarks report an error and run nothing without a CUDA device.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cuda/cuda_context.hpp"
#include "backends/cuda/cuda_driver.hpp"
#include "backends/cuda/nvrtc_compiler.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "bench_support.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
#include "cuda_support.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using stubjit::bench::cubin_for;
using stubjit::bench::device_seconds;
using stubjit::bench::Gpu;
using stubjit::bench::median;
using stubjit::bench::open_gpu;
using stubjit::bench::raw_nvrtc_cubin;
using stubjit::bench::RawModule;
using stubjit::test::ScopedEnv;

using namespace stubjit;
using Clock = std::chrono::steady_clock;

KernelSource saxpy_source(const std::string& tag = "") {
  return {"saxpy",
          {scalar<float>("a"), in<float>("x"), inout<float>("y")},
          "y = a * x + y;" + (tag.empty() ? "" : " // " + tag)};
}

// One cold-compile case: a kernel (the tag makes its body new to every cache), its
// domain and arguments. Fields wrap host buffers: the compile-only runtime never
// touches their memory.
struct ColdCase {
  KernelSource (*source)(const std::string& tag);
  Domain domain;
  std::vector<std::vector<double>> buffers;
  std::vector<Field> fields;
  std::vector<Arg> args;
};

KernelSource mixed_source(const std::string& tag) {
  return {
      "mixed",
      {scalar<double>("scale"), scalar<std::int32_t>("offset"), scalar<std::uint32_t>("mask"),
       scalar<std::int64_t>("bias"), in<double>("x"), in<std::int32_t>("k"), inout<double>("z")},
      "z = scale * x + offset + (k & (stubjit::i32)mask) + (double)bias; // " + tag};
}

// 0: saxpy over 256 x 256 (three parameters); 1: seven parameters of mixed types over
// a rank-5 domain. Their fields are contiguous, so dimension fusion runs both as one
// dimension (direct, rank 1); the labels say what ran.
ColdCase cold_case(Runtime& runtime, std::int64_t which) {
  ColdCase c{which == 0 ? [](const std::string& tag) { return saxpy_source(tag); } : mixed_source,
             which == 0 ? Domain{256, 256} : Domain{6, 6, 6, 6, 6},
             {},
             {},
             {}};
  const std::vector<std::int64_t> extents(c.domain.dims().size(), which == 0 ? 256 : 6);
  c.buffers.assign(3, std::vector<double>(1 << 16));
  c.fields.reserve(3);  // args point at the fields
  if (which == 0) {
    c.fields.push_back(runtime.wrap(reinterpret_cast<const float*>(c.buffers[0].data()), extents));
    c.fields.push_back(runtime.wrap(reinterpret_cast<float*>(c.buffers[1].data()), extents));
    c.args = {2.0f, c.fields[0], c.fields[1]};
  } else {
    c.fields.push_back(runtime.wrap(static_cast<const double*>(c.buffers[0].data()), extents));
    c.fields.push_back(
        runtime.wrap(reinterpret_cast<const std::int32_t*>(c.buffers[1].data()), extents));
    c.fields.push_back(runtime.wrap(c.buffers[2].data(), extents));
    c.args = {1.5,         std::int32_t(-7), std::uint32_t(0xff), std::int64_t(1) << 40,
              c.fields[0], c.fields[1],      c.fields[2]};
  }
  return c;
}

// "saxpy 256x256, ran direct r1": the case, and the mode and rank its stub ran in
// (dimension fusion runs both cases' contiguous fields as one dimension). Prepares
// one more kernel: call it after the counters are read.
std::string case_label(Runtime& runtime, const ColdCase& c) {
  const LaunchSummary ran =
      runtime.kernel(c.source("label")).prepare_args(c.domain, c.args.data(), c.args.size());
  return std::string(c.domain.rank() == 2 ? "saxpy 256x256" : "mixed 6^5") + ", ran " +
         name_of(ran.mode) + " r" + std::to_string(ran.rank);
}

void BM_ColdCompile_StubjitOverRawNvrtc(benchmark::State& state) {
  ScopedEnv arch("STUBJIT_CUDA_ARCH", "sm_90");
  ScopedEnv no_driver("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-bench/libcuda.so.1");
  const bool disk_cache = state.range(1) != 0;
  // Off, or on in a directory of its own (any STUBJIT_CACHE=off of the caller aside).
  ScopedEnv cache_switch("STUBJIT_CACHE", disk_cache ? "on" : "off");
  const stubjit::test::TempDir cache_dir;
  std::shared_ptr<const detail::NvrtcLibrary> nvrtc;
  std::optional<Runtime> runtime;
  try {
    nvrtc = detail::load_nvrtc();
    RuntimeOptions options;
    options.backend = "cuda";
    options.cache_dir = cache_dir.path();
    runtime.emplace(options);
  } catch (const Error& error) {
    state.SkipWithError(error.what());
    return;
  }
  const ColdCase c = cold_case(*runtime, state.range(0));
  const detail::NvrtcCompiler backend_compiler(
      nvrtc, detail::CudaTarget{detail::parse_cuda_arch("sm_90")});
  bool minimal = false;
  std::vector<double> stubjit_ms, raw_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    // A body no cache has seen: every launch compiles.
    const KernelSource cold = c.source("cold " + std::to_string(iteration));
    Kernel probe = runtime->kernel(cold);
    const std::string source = probe.stub_source(c.domain, c.args);
    const std::string name = "stubjit_" + cold.name + "_" + name_of(probe.plan(c.domain).mode) +
                             "_r" + std::to_string(c.domain.rank()) + ".cu";
    // The options the CUDA backend passes for this source (nvrtc_compiler.cpp: -minimal
    // where the user's code allows it).
    const std::vector<std::string> no_user_options;
    const detail::CompileJob job{source, name, name, cold.name, no_user_options};
    const std::vector<std::string> options = backend_compiler.options(job);
    minimal = backend_compiler.compiles_minimal_first(job);
    const auto time_stubjit = [&] {
      const auto start = Clock::now();
      try {
        // Compiles, then refuses to run.
        runtime->kernel(cold).launch_args(c.domain, c.args.data(), c.args.size());
      } catch (const BackendError&) {
      }
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    const auto time_raw = [&] {
      const auto start = Clock::now();
      benchmark::DoNotOptimize(raw_nvrtc_cubin(*nvrtc, source, name, options));
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    stubjit::bench::time_both_alternating(iteration, time_stubjit, stubjit_ms, time_raw, raw_ms);
    state.SetIterationTime(stubjit_ms.back() / 1e3);
    ++iteration;
  }
  // counters() waits for the background writes: every compile must have reached the disk.
  const CacheCounters counters = runtime->counters();
  if (counters.compiles != static_cast<std::uint64_t>(iteration)) {
    state.SkipWithError("a launch did not compile: the measurement is not cold");
    return;
  }
  if (disk_cache && counters.disk_writes != counters.compiles) {
    state.SkipWithError("an entry was not written to the disk cache");
    return;
  }
  state.SetLabel(case_label(*runtime, c) + (disk_cache ? ", disk cache on" : ", disk cache off") +
                 (minimal ? ", both -minimal" : ""));
  state.counters["stubjit_ms"] = median(stubjit_ms);
  state.counters["raw_nvrtc_ms"] = median(raw_ms);
  state.counters["ratio"] = median(stubjit_ms) / median(raw_ms);
}
BENCHMARK(BM_ColdCompile_StubjitOverRawNvrtc)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The kernel a CUDA programmer would write by hand for cold case `which` (0: saxpy over
// 256 x 256, 1: the mixed body over 6^5), with 32-bit indices like the stub's: each
// thread computes its own index and checks it against the extents, then runs the
// same body. Contiguous row-major arrays (`strided` false: saxpy indexes in 2-D,
// mixed flattens its 5-D domain, as one would by hand), or one stride per dimension
// and field (true: the generality the stub has). `tag` makes the source new to any
// cache, as the stubjit side's body is.
std::string hand_written_source(std::int64_t which, bool strided, const std::string& tag) {
  std::string source;
  if (which == 0) {
    source = strided ? "extern \"C\" __global__ void saxpy(float a, const float* __restrict__ x,\n"
                       "    float* __restrict__ y, int n0, int n1, int xs0, int xs1, int ys0,\n"
                       "    int ys1) {\n"
                     : "extern \"C\" __global__ void saxpy(float a, const float* __restrict__ x,\n"
                       "    float* __restrict__ y, int n0, int n1) {\n";
    source +=
        "  const int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  const int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "  if (i >= n0 || j >= n1) return;\n";
    source += strided
                  ? "  y[i * ys0 + j * ys1] = a * x[i * xs0 + j * xs1] + y[i * ys0 + j * ys1];\n"
                  : "  const int k = i * n1 + j;\n  y[k] = a * x[k] + y[k];\n";
  } else if (!strided) {
    source =
        "extern \"C\" __global__ void mixed(double scale, int offset, unsigned mask,\n"
        "    long long bias, const double* __restrict__ x, const int* __restrict__ k,\n"
        "    double* __restrict__ z, int n) {\n"
        "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i >= n) return;\n"
        "  z[i] = scale * x[i] + offset + (k[i] & (int)mask) + (double)bias;\n";
  } else {
    source =
        "extern \"C\" __global__ void mixed(double scale, int offset, unsigned mask,\n"
        "    long long bias, const double* __restrict__ x, const int* __restrict__ k,\n"
        "    double* __restrict__ z, int n0, int n1, int n2, int n3, int n4,\n"
        "    int xs0, int xs1, int xs2, int xs3, int xs4, int ks0, int ks1, int ks2, int ks3,\n"
        "    int ks4, int zs0, int zs1, int zs2, int zs3, int zs4) {\n"
        "  int l = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (l >= n0 * n1 * n2 * n3 * n4) return;\n"
        "  const int i4 = l % n4; l /= n4;\n"
        "  const int i3 = l % n3; l /= n3;\n"
        "  const int i2 = l % n2; l /= n2;\n"
        "  const int i1 = l % n1;\n"
        "  const int i0 = l / n1;\n"
        "  const int xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3 + i4 * xs4;\n"
        "  const int ko = i0 * ks0 + i1 * ks1 + i2 * ks2 + i3 * ks3 + i4 * ks4;\n"
        "  const int zo = i0 * zs0 + i1 * zs1 + i2 * zs2 + i3 * zs3 + i4 * zs4;\n"
        "  z[zo] = scale * x[xo] + offset + (k[ko] & (int)mask) + (double)bias;\n";
  }
  return source + "} // " + tag + "\n";
}

// stubjit's cold launch (as above) against raw NVRTC on the hand-written kernel, with
// the options one would give NVRTC by hand (the architecture only; -std=c++17 is
// NVRTC 13's default, and -default-device changes nothing for a kernel whose
// functions are all qualified).
void BM_ColdCompile_StubjitOverHandWritten(benchmark::State& state) {
  ScopedEnv arch("STUBJIT_CUDA_ARCH", "sm_90");
  ScopedEnv no_driver("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-bench/libcuda.so.1");
  const bool disk_cache = state.range(1) != 0;
  const bool strided = state.range(2) != 0;
  ScopedEnv cache_switch("STUBJIT_CACHE", disk_cache ? "on" : "off");
  const stubjit::test::TempDir cache_dir;
  std::shared_ptr<const detail::NvrtcLibrary> nvrtc;
  std::optional<Runtime> runtime;
  try {
    nvrtc = detail::load_nvrtc();
    RuntimeOptions options;
    options.backend = "cuda";
    options.cache_dir = cache_dir.path();
    runtime.emplace(options);
  } catch (const Error& error) {
    state.SkipWithError(error.what());
    return;
  }
  const ColdCase c = cold_case(*runtime, state.range(0));
  // Fourth argument 1: the hand-written kernel with NVRTC's -minimal too, as the
  // backend compiles these stubs where the NVRTC has it (nvrtc_compiler.hpp).
  const bool hand_minimal = state.range(3) != 0;
  if (hand_minimal && !(nvrtc->major > 12 || (nvrtc->major == 12 && nvrtc->minor >= 4))) {
    state.SkipWithError("NVRTC before 12.4 has no -minimal");
    return;
  }
  std::vector<std::string> hand_options = {"--gpu-architecture=sm_90"};
  if (hand_minimal) hand_options.push_back("-minimal");
  std::vector<double> stubjit_ms, hand_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    const std::string tag = "cold " + std::to_string(iteration);
    const KernelSource cold = c.source(tag);
    const std::string hand = hand_written_source(state.range(0), strided, tag);
    const auto time_stubjit = [&] {
      const auto start = Clock::now();
      try {
        runtime->kernel(cold).launch_args(c.domain, c.args.data(), c.args.size());
      } catch (const BackendError&) {
      }
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    const auto time_hand = [&] {
      const auto start = Clock::now();
      benchmark::DoNotOptimize(raw_nvrtc_cubin(*nvrtc, hand, "hand.cu", hand_options));
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    stubjit::bench::time_both_alternating(iteration, time_stubjit, stubjit_ms, time_hand, hand_ms);
    state.SetIterationTime(stubjit_ms.back() / 1e3);
    ++iteration;
  }
  const CacheCounters counters = runtime->counters();
  if (counters.compiles != static_cast<std::uint64_t>(iteration)) {
    state.SkipWithError("a launch did not compile: the measurement is not cold");
    return;
  }
  if (disk_cache && counters.disk_writes != counters.compiles) {
    state.SkipWithError("an entry was not written to the disk cache");
    return;
  }
  state.SetLabel(case_label(*runtime, c) +
                 (strided ? " vs hand-written strided" : " vs hand-written contiguous") +
                 (hand_minimal ? " -minimal" : "") +
                 (disk_cache ? ", disk cache on" : ", disk cache off"));
  state.counters["stubjit_ms"] = median(stubjit_ms);
  state.counters["hand_nvrtc_ms"] = median(hand_ms);
  state.counters["ratio"] = median(stubjit_ms) / median(hand_ms);
}
BENCHMARK(BM_ColdCompile_StubjitOverHandWritten)
    ->Args({0, 0, 0, 0})
    ->Args({1, 0, 0, 0})
    ->Args({0, 1, 0, 0})
    ->Args({1, 1, 0, 0})
    ->Args({0, 0, 1, 0})
    ->Args({1, 0, 1, 0})
    ->Args({0, 0, 0, 1})
    ->Args({1, 0, 0, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// --- GPU ---------------------------------------------------------------------------------

// Launches are asynchronous: wait now and then so the queue never fills (both sides
// pay the same waits).
constexpr std::int64_t launches_per_wait = 256;

void BM_HotLaunch_Stubjit(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Kernel saxpy = gpu.runtime->kernel(saxpy_source());
  Field x = gpu.runtime->allocate<float>({1});
  Field y = gpu.runtime->allocate<float>({1});
  x.copy_from(std::vector<float>{1.0f});
  y.copy_from(std::vector<float>{0.0f});
  const Domain domain{1};
  saxpy.launch(domain, 1.0f, x, y);  // compile outside the timed loop
  gpu.runtime->synchronize();
  std::int64_t n = 0;
  for (auto _ : state) {
    saxpy.launch(domain, 1.0f, x, y);
    if (++n % launches_per_wait == 0) gpu.runtime->synchronize();
  }
  gpu.runtime->synchronize();
}
BENCHMARK(BM_HotLaunch_Stubjit);

// cuLaunchKernel of the very stub the runtime compiled, parameters packed once.
void BM_HotLaunch_RawCuLaunchKernel(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Kernel saxpy = gpu.runtime->kernel(saxpy_source());
  Field x = gpu.runtime->allocate<float>({1});
  Field y = gpu.runtime->allocate<float>({1});
  x.copy_from(std::vector<float>{1.0f});
  y.copy_from(std::vector<float>{0.0f});
  const Domain domain{1};
  const Plan plan = saxpy.plan(domain);
  RawModule module(gpu, cubin_for(gpu, saxpy.stub_source(domain, {1.0f, x, y}), "saxpy.cu"),
                   "stubjit_saxpy_direct_r1");
  // The stub's entry takes what it reads one by one (support/entry_parameters.hpp):
  // here the count and group extent of its one dimension, a, x and y, as its source
  // declares them; each parameter points at a value packed once.
  const std::int64_t count = 1;
  const std::uint32_t block = plan.block[0];
  const float a = 1.0f;
  const void* x_data = x.data();
  void* y_data = y.data();
  const std::map<std::string, const void*> values = {{"stubjit_lp_count0", &count},
                                                     {"stubjit_lp_block0", &block},
                                                     {"stubjit_a1_a", &a},
                                                     {"stubjit_a1_x", &x_data},
                                                     {"stubjit_a1_y", &y_data}};
  const std::string source = saxpy.stub_source(domain, {1.0f, x, y});
  const std::string entry = "stubjit_saxpy_direct_r1(";
  const std::size_t begin = source.find(entry) + entry.size();
  std::stringstream declared(source.substr(begin, source.find(')', begin) - begin));
  std::vector<void*> params;
  for (std::string declaration; std::getline(declared, declaration, ',');) {
    const auto found = values.find(declaration.substr(declaration.find_last_of(" *") + 1));
    if (found == values.end())
      return state.SkipWithError(("the stub takes an unexpected " + declaration).c_str());
    params.push_back(const_cast<void*>(found->second));
  }
  const unsigned grid = static_cast<unsigned>(plan.dispatches.at(0).grid[0]);
  const detail::CudaDriver& driver = *gpu.driver;
  std::int64_t n = 0;
  for (auto _ : state) {
    driver.launch_kernel(module.function(), grid, 1, 1, block, 1, 1, 0, nullptr, params.data(),
                         nullptr);
    if (++n % launches_per_wait == 0) driver.ctx_synchronize();
  }
  driver.ctx_synchronize();
  if (y.to_vector<float>()[0] <= 0.0f) state.SkipWithError("the raw launches did not run");
}
BENCHMARK(BM_HotLaunch_RawCuLaunchKernel);

constexpr std::int64_t saxpy_side = 1 << 14;  // 2^14 x 2^14 = 2^28 floats, 1 GiB per array
constexpr double saxpy_bytes = 3.0 * sizeof(float) * saxpy_side * saxpy_side;

void BM_Saxpy_Stubjit(benchmark::State& state) {
  const Mode mode = static_cast<Mode>(state.range(0));
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Kernel saxpy = gpu.runtime->kernel(saxpy_source());
  Field x = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  Field y = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  const auto n = static_cast<std::size_t>(saxpy_side * saxpy_side);
  x.copy_from(std::vector<float>(n, 1.0f));
  y.copy_from(std::vector<float>(n, 2.0f));
  const Domain domain{saxpy_side, saxpy_side};
  LaunchOptions options;
  options.mode = mode;
  saxpy.launch(options, domain, 0.5f, x, y);  // compile, warm up
  gpu.runtime->synchronize();
  for (auto _ : state) {
    state.SetIterationTime(device_seconds(gpu, [&] { saxpy.launch(options, domain, 0.5f, x, y); }));
  }
  state.SetLabel(name_of(mode));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * saxpy_bytes));
}
BENCHMARK(BM_Saxpy_Stubjit)
    ->Arg(static_cast<int>(Mode::direct))
    ->Arg(static_cast<int>(Mode::spread))
    ->Arg(static_cast<int>(Mode::multi))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The hand-written kernel a CUDA programmer would write for the same 2^28 floats.
void BM_Saxpy_HandWrittenCuda(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  const char* source =
      "extern \"C\" __global__ void hand_saxpy(float a, const float* __restrict__ x,\n"
      "                                      float* __restrict__ y, long long n) {\n"
      "  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = a * x[i] + y[i];\n"
      "}\n";
  RawModule module(gpu, cubin_for(gpu, source, "hand_saxpy.cu"), "hand_saxpy");
  Field x = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  Field y = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  const auto n = static_cast<std::size_t>(saxpy_side * saxpy_side);
  x.copy_from(std::vector<float>(n, 1.0f));
  y.copy_from(std::vector<float>(n, 2.0f));
  float a = 0.5f;
  void* px = x.data();
  void* py = y.data();
  long long count = static_cast<long long>(n);
  void* params[4] = {&a, &px, &py, &count};
  const unsigned block = 256;
  const auto grid = static_cast<unsigned>((n + block - 1) / block);
  const auto launch = [&] {
    gpu.driver->check(gpu.driver->launch_kernel(module.function(), grid, 1, 1, block, 1, 1, 0,
                                                nullptr, params, nullptr),
                      "cuLaunchKernel");
  };
  launch();
  gpu.driver->ctx_synchronize();
  for (auto _ : state) state.SetIterationTime(device_seconds(gpu, launch));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * saxpy_bytes));
}
BENCHMARK(BM_Saxpy_HandWrittenCuda)->UseManualTime()->Unit(benchmark::kMillisecond);

// A transpose through group-shared memory: reads and writes whole 32-float rows of a
// tile, so both sides are coalesced; the tile is padded to 33 columns against bank
// conflicts. The argument is the group size. Every iteration also times a device copy
// of the same bytes (cuMemcpyDtoD of the input to a third array), alternating which goes
// first; counters: transpose_ms and copy_ms (medians) and transpose_over_copy = copy time
// / transpose time (target >= 0.8). The whole transposed output is checked once before
// timing.
void BM_TiledTranspose_Stubjit(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Kernel transpose = gpu.runtime->kernel(KernelSource{
      "tiled_transpose",
      {group("g"), index("tile"), scalar<std::int64_t>("rows"), scalar<std::int64_t>("cols"),
       in<float>("in", 2), inout<float>("out", 2), shared<float>("t", {"32", "33"})},
      R"(
const stubjit::i64 r0 = stubjit::i64(tile[0]) * 32, c0 = stubjit::i64(tile[1]) * 32;
g.inner(32, 32, [&](int r, int c) {
  if (r0 + r < rows && c0 + c < cols) t(r, c) = in(r0 + r, c0 + c);
});
g.fence();
g.inner(32, 32, [&](int c, int r) {
  if (r0 + r < rows && c0 + c < cols) out(c0 + c, r0 + r) = t(r, c);
});
)"});
  const std::int64_t side = saxpy_side;
  Field in = gpu.runtime->allocate<float>({side, side});
  Field out = gpu.runtime->allocate<float>({side, side});
  Field copy_out = gpu.runtime->allocate<float>({side, side});
  const auto n = static_cast<std::size_t>(side * side);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000003);
  in.copy_from(host);
  const Domain tiles{side / 32, side / 32};
  LaunchOptions options;
  options.group_size = static_cast<std::uint32_t>(state.range(0));
  const LaunchSummary summary = transpose.launch(options, tiles, side, side, in, out);
  gpu.runtime->synchronize();
  // Checked once, every element (in 32 x 32 blocks, so that the host's reads stay
  // near each other): a fast wrong transpose is no figure.
  {
    const std::vector<float> got = out.to_vector<float>();
    for (std::int64_t rb = 0; rb < side; rb += 32)
      for (std::int64_t cb = 0; cb < side; cb += 32)
        for (std::int64_t r = rb; r < std::min(rb + 32, side); ++r)
          for (std::int64_t c = cb; c < std::min(cb + 32, side); ++c)
            if (got[static_cast<std::size_t>(c * side + r)] !=
                host[static_cast<std::size_t>(r * side + c)])
              return state.SkipWithError(("the transpose is wrong at in(" + std::to_string(r) +
                                          ", " + std::to_string(c) + ")")
                                             .c_str());
  }
  const std::size_t bytes = sizeof(float) * n;
  const auto copy = [&] {
    gpu.driver->check(gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(copy_out.data()),
                                              reinterpret_cast<std::uintptr_t>(in.data()), bytes),
                      "cuMemcpyDtoD");
  };
  copy();  // warm up
  gpu.runtime->synchronize();
  std::vector<double> transpose_ms, copy_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    stubjit::bench::time_both_alternating(
        iteration++,
        [&] {
          return 1e3 * device_seconds(
                           gpu, [&] { transpose.launch(options, tiles, side, side, in, out); });
        },
        transpose_ms, [&] { return 1e3 * device_seconds(gpu, copy); }, copy_ms);
    state.SetIterationTime(transpose_ms.back() / 1e3);
  }
  state.counters["transpose_ms"] = median(transpose_ms);
  state.counters["copy_ms"] = median(copy_ms);
  state.counters["transpose_over_copy"] = median(copy_ms) / median(transpose_ms);
  state.SetLabel("group of " + std::to_string(summary.group_size));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * 2.0 * sizeof(float) * double(n)));
}
BENCHMARK(BM_TiledTranspose_Stubjit)
    ->Arg(256)
    ->Arg(1024)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// A reduce kernel's sum of 2^28 floats (argument 0: the whole field to one element;
// 1: the rows of the 2^14 x 2^14 field, along the last dimension), left on the device
// (assign), each iteration alternating with a device copy of the same field. Counters:
// the medians, and reduce_over_copy = the reduce's bandwidth (bytes read per second)
// ÷ the copy's (bytes read and written per second; target >= 0.85, issue #12). The
// sums are checked once against the host's before timing.
void BM_Reduce_Stubjit(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  const bool rows = state.range(0) == 1;
  Kernel sum = gpu.runtime->kernel(
      KernelSource{rows ? "sum_rows" : "sum_all",
                   {in<float>("x"), result<float>("v", Combiner::sum, rows ? 1 : 0)},
                   "v = x;"});
  const std::int64_t side = saxpy_side;
  Field x = gpu.runtime->allocate<float>({side, side});
  Field copy_out = gpu.runtime->allocate<float>({side, side});
  Field result = rows ? gpu.runtime->allocate<float>({side}) : gpu.runtime->allocate<float>({});
  const auto n = static_cast<std::size_t>(side * side);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000) * 0.001f;
  x.copy_from(host);
  const Domain domain{side, side};
  LaunchOptions options;
  options.reduce_update = ReduceUpdate::assign;
  const LaunchSummary summary = sum.launch(options, domain, x, result);
  gpu.runtime->synchronize();
  {
    const std::vector<float> got = result.to_vector<float>();
    for (std::size_t r = 0; r < got.size(); ++r) {
      double want = 0;
      const std::size_t length = rows ? static_cast<std::size_t>(side) : n;
      for (std::size_t k = 0; k < length; ++k) want += double(host[r * length + k]);
      if (std::abs(double(got[r]) - want) > 1e-4 * std::max(want, 1.0))
        return state.SkipWithError(("the sum of " + std::to_string(r) + " is " +
                                    std::to_string(got[r]) + ", not " + std::to_string(want))
                                       .c_str());
    }
  }
  const std::size_t bytes = sizeof(float) * n;
  const auto copy = [&] {
    gpu.driver->check(gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(copy_out.data()),
                                              reinterpret_cast<std::uintptr_t>(x.data()), bytes),
                      "cuMemcpyDtoD");
  };
  copy();  // warm up
  gpu.runtime->synchronize();
  std::vector<double> reduce_ms, copy_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    stubjit::bench::time_both_alternating(
        iteration++,
        [&] { return 1e3 * device_seconds(gpu, [&] { sum.launch(options, domain, x, result); }); },
        reduce_ms, [&] { return 1e3 * device_seconds(gpu, copy); }, copy_ms);
    state.SetIterationTime(reduce_ms.back() / 1e3);
  }
  state.counters["reduce_ms"] = median(reduce_ms);
  state.counters["copy_ms"] = median(copy_ms);
  // Bandwidths: the reduce reads the field once, the copy reads and writes it.
  state.counters["reduce_over_copy"] =
      (double(bytes) / median(reduce_ms)) / (2.0 * double(bytes) / median(copy_ms));
  state.counters["parts"] = summary.reduce_parts;
  state.SetLabel(std::string(rows ? "rows" : "whole") + ", group of " +
                 std::to_string(summary.group_size));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * double(bytes)));
}
BENCHMARK(BM_Reduce_Stubjit)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// A scan kernel's inclusive prefix sum of 2^28 int32 values x into y (argument 0: the
// whole field as one pencil; 1: each row of the 2^14 x 2^14 field), each iteration
// alternating with a device copy of the same field. int32 so that every prefix is
// exact and checked whole, once, before timing. Counters: the medians, and
// scan_over_copy = the copy's time ÷ the scan's (both read and write the field once:
// since generator 18 a split pencil too, in one pass; target >= 0.85, issue #12). The
// last timed launch's prefixes are checked whole again after timing.
void BM_Scan_Stubjit(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  const bool rows = state.range(0) == 1;
  Kernel prefix = gpu.runtime->kernel(KernelSource{
      "prefix_i32", {in<std::int32_t>("x"), scan<std::int32_t>("y", Combiner::sum)}, "y = x;"});
  const std::int64_t side = saxpy_side;
  const std::int64_t n = side * side;
  const std::vector<std::int64_t> extents =
      rows ? std::vector<std::int64_t>{side, side} : std::vector<std::int64_t>{n};
  Field x = gpu.runtime->allocate<std::int32_t>(extents);
  Field y = gpu.runtime->allocate<std::int32_t>(extents);
  Field copy_out = gpu.runtime->allocate<std::int32_t>(extents);
  std::vector<std::int32_t> host(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::int32_t>(i % 7) - 3;
  x.copy_from(host);
  const Domain whole{n}, matrix{side, side};
  const Domain& domain = rows ? matrix : whole;
  const LaunchSummary summary = prefix.launch(domain, x, y);
  gpu.runtime->synchronize();
  // The first wrong prefix, or "".
  const auto wrong = [&]() -> std::string {
    const std::vector<std::int32_t> got = y.to_vector<std::int32_t>();
    const std::size_t length = rows ? static_cast<std::size_t>(side) : host.size();
    std::int64_t running = 0;
    for (std::size_t k = 0; k < host.size(); ++k) {
      if (k % length == 0) running = 0;
      running += host[k];
      if (got[k] != static_cast<std::int32_t>(running))
        return "prefix " + std::to_string(k) + " is " + std::to_string(got[k]) + ", not " +
               std::to_string(running);
    }
    return "";
  };
  if (const std::string problem = wrong(); !problem.empty())
    return state.SkipWithError(problem.c_str());
  const std::size_t bytes = sizeof(std::int32_t) * static_cast<std::size_t>(n);
  const auto copy = [&] {
    gpu.driver->check(gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(copy_out.data()),
                                              reinterpret_cast<std::uintptr_t>(x.data()), bytes),
                      "cuMemcpyDtoD");
  };
  copy();  // warm up
  gpu.runtime->synchronize();
  std::vector<double> scan_ms, copy_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    stubjit::bench::time_both_alternating(
        iteration++,
        [&] { return 1e3 * device_seconds(gpu, [&] { prefix.launch(domain, x, y); }); }, scan_ms,
        [&] { return 1e3 * device_seconds(gpu, copy); }, copy_ms);
    state.SetIterationTime(scan_ms.back() / 1e3);
  }
  gpu.runtime->synchronize();
  if (const std::string problem = wrong(); !problem.empty())
    return state.SkipWithError(("after timing: " + problem).c_str());
  state.counters["scan_ms"] = median(scan_ms);
  state.counters["copy_ms"] = median(copy_ms);
  state.counters["scan_over_copy"] = median(copy_ms) / median(scan_ms);
  state.counters["parts"] = summary.reduce_parts;
  state.SetLabel(std::string(rows ? "rows" : "whole") + ", group of " +
                 std::to_string(summary.group_size));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2.0 * double(bytes)));
}
BENCHMARK(BM_Scan_Stubjit)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// A sort kernel's ascending sort of 2^26 floats in place (issue #12: sort in keys per
// second), each iteration from the same unsorted keys (a device copy, not timed).
// Checked once, before timing, against std::sort on the host. Counters: the median
// sort, Mkeys_per_s, parts, and sort_over_copy = the copy's time ÷ the sort's (a copy
// reads and writes the keys once; a sort moves them once per merge pass and more).
void BM_Sort_Stubjit(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Kernel order = gpu.runtime->kernel(KernelSource{"sort_floats", {sort<float>("x")}, ""});
  const std::int64_t n = std::int64_t(1) << 26;
  Field unsorted = gpu.runtime->allocate<float>({n});
  Field x = gpu.runtime->allocate<float>({n});
  std::vector<float> host(static_cast<std::size_t>(n));
  std::uint32_t state_bits = 26;
  for (float& v : host) {
    state_bits = state_bits * 1664525u + 1013904223u;
    v = float(state_bits >> 8) / float(1u << 24);
  }
  unsorted.copy_from(host);
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  const auto reset = [&] {
    gpu.driver->check(
        gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(x.data()),
                                reinterpret_cast<std::uintptr_t>(unsorted.data()), bytes),
        "cuMemcpyDtoD");
  };
  reset();
  const LaunchSummary summary = order.launch(Domain{n}, x);
  std::sort(host.begin(), host.end());
  if (x.to_vector<float>() != host) return state.SkipWithError("the keys are not std::sort's");
  std::vector<double> sort_ms, copy_ms;
  for (auto _ : state) {
    reset();
    gpu.runtime->synchronize();
    sort_ms.push_back(1e3 * device_seconds(gpu, [&] { order.launch(Domain{n}, x); }));
    copy_ms.push_back(1e3 * device_seconds(gpu, reset));
    state.SetIterationTime(sort_ms.back() / 1e3);
  }
  state.counters["sort_ms"] = median(sort_ms);
  state.counters["copy_ms"] = median(copy_ms);
  state.counters["Mkeys_per_s"] = double(n) / median(sort_ms) / 1e3;
  state.counters["sort_over_copy"] = median(copy_ms) / median(sort_ms);
  state.counters["parts"] = summary.reduce_parts;
  state.SetLabel("2^26 floats, group of " + std::to_string(summary.group_size));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}
BENCHMARK(BM_Sort_Stubjit)->UseManualTime()->Unit(benchmark::kMillisecond);

// Device-to-device copy of one 2^28-float array: the bandwidth reference.
void BM_DeviceCopy(benchmark::State& state) {
  Gpu gpu = open_gpu();
  if (!gpu.runtime) return state.SkipWithError(gpu.problem.c_str());
  Field x = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  Field y = gpu.runtime->allocate<float>({saxpy_side, saxpy_side});
  const std::size_t bytes = sizeof(float) * saxpy_side * saxpy_side;
  const auto copy = [&] {
    gpu.driver->check(gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(y.data()),
                                              reinterpret_cast<std::uintptr_t>(x.data()), bytes),
                      "cuMemcpyDtoD");
  };
  copy();
  for (auto _ : state) state.SetIterationTime(device_seconds(gpu, copy));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_DeviceCopy)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
