// Disk-cache figures for the CPU backend, each against a baseline of the same run,
// per kernel (20 distinct kernels per iteration):
//   BM_ColdCompile: the first launch of a kernel with no disk cache (Clang +
//     optimizer + link + launch);
//   BM_WarmFromDisk: the first launch of a kernel in a fresh runtime whose disk cache
//     holds it (read + verify + link + launch);
//   BM_MemoryHit: a launch that finds its stub in memory, the "memory cache already
//     hot" baseline;
//   BM_Process_*: the same three in fresh processes (see below);
//   BM_Cuda_*: NVRTC compile vs cubin read from disk, without a GPU (see below);
//   BM_ScanEntries: the directory walk behind eviction, for 1000 and 10000 entries;
//   BM_ColdCompileIntoLargeCache: cold compiles stored into a 10000-entry cache.
// Runtime creation is outside the timed region of the in-process figures.
// bench/results/cache.md holds the latest figures.
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stubjit/cache.hpp"
#include "stubjit/stubjit.hpp"

extern char** environ;

namespace {

using namespace stubjit;
namespace fs = std::filesystem;

constexpr int kernels_per_iteration = 20;

KernelSource numbered_kernel(int j) {
  return {"add" + std::to_string(j),
          {scalar<float>("a"), in<float>("x"), inout<float>("y")},
          "y = a * x + y + " + std::to_string(j) + ".0f;"};
}

RuntimeOptions options_for(const std::string& cache_dir) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.cache_dir = cache_dir;
  options.disk_cache = !cache_dir.empty();
  return options;
}

struct Workload {
  explicit Workload(Runtime& runtime)
      : x(runtime.allocate<float>({64})), y(runtime.allocate<float>({64})) {
    x.copy_from(std::vector<float>(64, 1.0f));
    y.copy_from(std::vector<float>(64, 0.0f));
  }
  Field x, y;
};

void launch_all(std::vector<Kernel>& kernels, Workload& data) {
  for (Kernel& kernel : kernels) kernel.launch(Domain{64}, 2.0f, data.x, data.y);
}

std::vector<Kernel> make_kernels(Runtime& runtime) {
  std::vector<Kernel> kernels;
  for (int j = 0; j < kernels_per_iteration; ++j)
    kernels.push_back(runtime.kernel(numbered_kernel(j)));
  return kernels;
}

// A private cache directory for this run, filled once with every benchmark kernel.
const std::string& warm_cache() {
  static const std::string dir = [] {
    const fs::path path =
        fs::temp_directory_path() / ("stubjit-bench-cache-" + std::to_string(::getpid()));
    fs::remove_all(path);
    Runtime runtime(options_for(path.string()));
    Workload data(runtime);
    std::vector<Kernel> kernels = make_kernels(runtime);
    launch_all(kernels, data);
    return path.string();
  }();
  return dir;
}

void report_per_kernel(benchmark::State& state) {
  state.counters["per_kernel"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kernels_per_iteration),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ColdCompile(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto runtime = std::make_unique<Runtime>(options_for(""));
    Workload data(*runtime);
    std::vector<Kernel> kernels = make_kernels(*runtime);
    state.ResumeTiming();
    launch_all(kernels, data);
    state.PauseTiming();
    if (runtime->counters().compiles != kernels_per_iteration) state.SkipWithError("not cold");
    kernels.clear();
    runtime.reset();
    state.ResumeTiming();
  }
  report_per_kernel(state);
}
BENCHMARK(BM_ColdCompile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WarmFromDisk(benchmark::State& state) {
  const std::string& cache = warm_cache();
  for (auto _ : state) {
    state.PauseTiming();
    auto runtime = std::make_unique<Runtime>(options_for(cache));
    Workload data(*runtime);
    std::vector<Kernel> kernels = make_kernels(*runtime);
    state.ResumeTiming();
    launch_all(kernels, data);
    state.PauseTiming();
    const CacheCounters c = runtime->counters();
    if (c.compiles != 0 || c.disk_hits != kernels_per_iteration) state.SkipWithError("not warm");
    kernels.clear();
    runtime.reset();
    state.ResumeTiming();
  }
  report_per_kernel(state);
}
BENCHMARK(BM_WarmFromDisk)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemoryHit(benchmark::State& state) {
  Runtime runtime(options_for(""));
  Workload data(runtime);
  std::vector<Kernel> kernels = make_kernels(runtime);
  launch_all(kernels, data);  // compile outside the timed loop
  for (auto _ : state) launch_all(kernels, data);
  report_per_kernel(state);
}
BENCHMARK(BM_MemoryHit)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- CUDA without a GPU: NVRTC compile vs cubin read --------------------------------
// The CUDA backend's compile-only mode (STUBJIT_CUDA_ARCH, no driver) compiles with
// NVRTC and refuses to launch; a launch therefore measures the way to a ready cubin:
// NVRTC (cold), or reading and verifying the cubin from disk (warm; the driver's
// cuModuleLoadData is not part of it, there is no driver). Skipped without NVRTC.

class CudaCompileOnly {
 public:
  CudaCompileOnly() {
    saved_ = {env("STUBJIT_CUDA_ARCH"), env("STUBJIT_CUDA_DRIVER_PATH")};
    ::setenv("STUBJIT_CUDA_ARCH", "sm_90", 1);
    ::setenv("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-bench/libcuda.so.1", 1);
  }
  CudaCompileOnly(const CudaCompileOnly&) = delete;
  CudaCompileOnly& operator=(const CudaCompileOnly&) = delete;
  ~CudaCompileOnly() {
    restore("STUBJIT_CUDA_ARCH", saved_[0]);
    restore("STUBJIT_CUDA_DRIVER_PATH", saved_[1]);
  }

  static RuntimeOptions options(const std::string& cache_dir) {
    RuntimeOptions options = options_for(cache_dir);
    options.backend = "cuda";
    return options;
  }

 private:
  static std::optional<std::string> env(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  }
  static void restore(const char* name, const std::optional<std::string>& value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  std::array<std::optional<std::string>, 2> saved_;
};

// Host buffers wrapped as fields: the compile-only runtime never touches them.
struct HostWorkload {
  explicit HostWorkload(Runtime& runtime)
      : xs(64, 1.0f),
        ys(64, 0.0f),
        x(runtime.wrap(xs.data(), {64})),
        y(runtime.wrap(ys.data(), {64})) {}
  std::vector<float> xs, ys;
  Field x, y;
};

void launch_refused(std::vector<Kernel>& kernels, HostWorkload& data) {
  for (Kernel& kernel : kernels) {
    try {
      kernel.launch(Domain{64}, 2.0f, data.x, data.y);
    } catch (const BackendError&) {  // compiled (or read), then refused: no device
    }
  }
}

std::unique_ptr<Runtime> open_cuda(benchmark::State& state, const std::string& cache_dir) {
  try {
    return std::make_unique<Runtime>(CudaCompileOnly::options(cache_dir));
  } catch (const Error& error) {
    state.SkipWithError(error.what());
    return nullptr;
  }
}

const std::string& warm_cuda_cache() {
  static const std::string dir = [] {
    const fs::path path =
        fs::temp_directory_path() / ("stubjit-bench-cuda-cache-" + std::to_string(::getpid()));
    fs::remove_all(path);
    try {
      Runtime runtime(CudaCompileOnly::options(path.string()));
      HostWorkload data(runtime);
      std::vector<Kernel> kernels = make_kernels(runtime);
      launch_refused(kernels, data);
    } catch (const Error&) {  // no NVRTC: the benchmarks skip
    }
    return path.string();
  }();
  return dir;
}

void BM_Cuda_ColdCompile(benchmark::State& state) {
  CudaCompileOnly cuda;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Runtime> runtime = open_cuda(state, "");
    if (!runtime) break;
    HostWorkload data(*runtime);
    std::vector<Kernel> kernels = make_kernels(*runtime);
    state.ResumeTiming();
    launch_refused(kernels, data);
    state.PauseTiming();
    if (runtime->counters().compiles != kernels_per_iteration) state.SkipWithError("not cold");
    kernels.clear();
    runtime.reset();
    state.ResumeTiming();
  }
  report_per_kernel(state);
}
BENCHMARK(BM_Cuda_ColdCompile)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_Cuda_CubinFromDisk(benchmark::State& state) {
  CudaCompileOnly cuda;
  const std::string& cache = warm_cuda_cache();
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Runtime> runtime = open_cuda(state, cache);
    if (!runtime) break;
    HostWorkload data(*runtime);
    std::vector<Kernel> kernels = make_kernels(*runtime);
    state.ResumeTiming();
    launch_refused(kernels, data);
    state.PauseTiming();
    const CacheCounters c = runtime->counters();
    if (c.compiles != 0 || c.disk_hits != kernels_per_iteration) state.SkipWithError("not warm");
    kernels.clear();
    runtime.reset();
    state.ResumeTiming();
  }
  report_per_kernel(state);
}
BENCHMARK(BM_Cuda_CubinFromDisk)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Cuda_MemoryHit(benchmark::State& state) {
  CudaCompileOnly cuda;
  std::unique_ptr<Runtime> runtime = open_cuda(state, "");
  if (!runtime) return;
  HostWorkload data(*runtime);
  std::vector<Kernel> kernels = make_kernels(*runtime);
  launch_refused(kernels, data);  // compile outside the timed loop
  for (auto _ : state) launch_refused(kernels, data);
  report_per_kernel(state);
}
BENCHMARK(BM_Cuda_MemoryHit)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- the walk behind eviction ---------------------------------------------------------
// To enforce the cap a runtime totals the entries' sizes by walking the cache's layout
// (the same walk as list_disk_cache): once per store before the size record, now only
// when the record says the cap is crossed or every 256 stores. The walk's cost for
// caches of 1000 and 10000 entries, and cold compiles stored into a 10000-entry
// cache, both against BM_ColdCompile's compile per kernel.

// A cache root of `count` small entry files in eight variant directories.
std::string synthetic_cache(int count) {
  const fs::path root =
      fs::temp_directory_path() /
      ("stubjit-bench-scan-" + std::to_string(::getpid()) + "-" + std::to_string(count));
  fs::remove_all(root);
  for (int i = 0; i < count; ++i) {
    const fs::path directory = root / "cpu" / "target" / ("spread-r" + std::to_string(i % 8 + 1));
    if (i < 8) fs::create_directories(directory);
    char name[40];
    std::snprintf(name, sizeof name, "%032x.bin", i);
    std::ofstream(directory / name) << std::string(2700, 'x');  // an entry's usual size
  }
  return root.string();
}

void BM_ScanEntries(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const std::string root = synthetic_cache(count);
  for (auto _ : state) {
    if (list_disk_cache(root, false).size() != static_cast<std::size_t>(count)) {
      state.SkipWithError("entries missing from the scan");
    }
  }
  std::error_code ignored;
  fs::remove_all(root, ignored);
}
BENCHMARK(BM_ScanEntries)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

// BM_ColdCompile's work plus storing each stub into a disk cache that already holds
// 10000 entries: what a store costs beyond the compile (the walk, when it happens).
// Every iteration compiles 20 kernels never seen before.
void BM_ColdCompileIntoLargeCache(benchmark::State& state) {
  const std::string root = synthetic_cache(10000);
  int first_kernel = 1000;  // beyond the numbers the other benchmarks use
  for (auto _ : state) {
    state.PauseTiming();
    auto runtime = std::make_unique<Runtime>(options_for(root));
    Workload data(*runtime);
    std::vector<Kernel> kernels;
    for (int j = 0; j < kernels_per_iteration; ++j)
      kernels.push_back(runtime->kernel(numbered_kernel(first_kernel + j)));
    first_kernel += kernels_per_iteration;
    state.ResumeTiming();
    launch_all(kernels, data);
    state.PauseTiming();
    const CacheCounters c = runtime->counters();
    if (c.compiles != kernels_per_iteration || c.disk_writes != kernels_per_iteration) {
      state.SkipWithError("not cold, or not stored");
    }
    kernels.clear();
    runtime.reset();
    state.ResumeTiming();
  }
  report_per_kernel(state);
  std::error_code ignored;
  fs::remove_all(root, ignored);
}
BENCHMARK(BM_ColdCompileIntoLargeCache)->Unit(benchmark::kMillisecond)->UseRealTime();

// --- fresh processes -----------------------------------------------------------------
// A child process creates a runtime (backend and cache from the environment), then
// launches the kernels once or twice and writes the time of the pass asked for to a
// file: "first" is the first launch of each kernel in a fresh process (compiled, or
// read from disk), "second" the same launches once the memory cache is hot. The
// benchmarks use that time as the iteration time; the whole process (start, library
// load, runtime creation, exit) is timed as well, in BM_Process_Wall_*.

int child_main(int kernel_count, const std::string& pass, const std::string& out_path) {
  Runtime runtime(RuntimeOptions{});
  Workload data(runtime);
  std::vector<Kernel> kernels;
  for (int j = 0; j < kernel_count; ++j) kernels.push_back(runtime.kernel(numbered_kernel(j)));
  const auto start = std::chrono::steady_clock::now();
  launch_all(kernels, data);
  auto end = std::chrono::steady_clock::now();
  if (pass == "second") {
    const auto again = std::chrono::steady_clock::now();
    launch_all(kernels, data);
    end = std::chrono::steady_clock::now();
    if (runtime.counters().memory_hits != static_cast<std::uint64_t>(kernel_count)) return 3;
    std::ofstream(out_path) << std::chrono::duration<double>(end - again).count();
    return 0;
  }
  std::ofstream(out_path) << std::chrono::duration<double>(end - start).count();
  return 0;
}

// Runs the child and returns the time it reports.
double run_child(int kernel_count, const std::string& pass, const std::string& cache_env) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string out =
      (fs::temp_directory_path() / ("stubjit-bench-child-" + std::to_string(::getpid()) + ".txt"))
          .string();
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("STUBJIT_CACHE", 0) != 0 && entry.rfind("STUBJIT_BACKEND=", 0) != 0)
      env.push_back(entry);
  }
  env.push_back("STUBJIT_BACKEND=cpu");
  env.push_back(cache_env);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args{self, "--child", std::to_string(kernel_count), pass, out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) {
    std::abort();
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::abort();
  double seconds = 0;
  std::ifstream(out) >> seconds;
  return seconds;
}

// A fixed count: with manual time, a memory-hot pass of a few microseconds would
// otherwise need tens of thousands of processes to fill the minimum time.
constexpr int process_iterations = 12;

std::string warm_env() { return "STUBJIT_CACHE_DIR=" + warm_cache(); }

void BM_Process_FirstLaunches_Cold(benchmark::State& state) {
  for (auto _ : state)
    state.SetIterationTime(run_child(kernels_per_iteration, "first", "STUBJIT_CACHE=off"));
  report_per_kernel(state);
}
BENCHMARK(BM_Process_FirstLaunches_Cold)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(process_iterations)
    ->UseManualTime();

void BM_Process_FirstLaunches_WarmDisk(benchmark::State& state) {
  const std::string env = warm_env();
  for (auto _ : state) state.SetIterationTime(run_child(kernels_per_iteration, "first", env));
  report_per_kernel(state);
}
BENCHMARK(BM_Process_FirstLaunches_WarmDisk)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(process_iterations)
    ->UseManualTime();

void BM_Process_Launches_MemoryHot(benchmark::State& state) {
  const std::string env = warm_env();
  for (auto _ : state) state.SetIterationTime(run_child(kernels_per_iteration, "second", env));
  report_per_kernel(state);
}
BENCHMARK(BM_Process_Launches_MemoryHot)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(process_iterations)
    ->UseManualTime();

void BM_Process_Wall_NoKernels(benchmark::State& state) {
  const std::string env = warm_env();
  for (auto _ : state) run_child(0, "first", env);
}
BENCHMARK(BM_Process_Wall_NoKernels)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(process_iterations)
    ->UseRealTime();

void BM_Process_Wall_WarmDisk(benchmark::State& state) {
  const std::string env = warm_env();
  for (auto _ : state) run_child(kernels_per_iteration, "first", env);
}
BENCHMARK(BM_Process_Wall_WarmDisk)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(process_iterations)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--child") {
    return child_main(std::atoi(argv[2]), argv[3], argv[4]);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ignored;
  const std::string pid = std::to_string(::getpid());
  fs::remove_all(fs::temp_directory_path() / ("stubjit-bench-cache-" + pid), ignored);
  fs::remove_all(fs::temp_directory_path() / ("stubjit-bench-cuda-cache-" + pid), ignored);
  fs::remove(fs::temp_directory_path() / ("stubjit-bench-child-" + pid + ".txt"), ignored);
  return 0;
}
