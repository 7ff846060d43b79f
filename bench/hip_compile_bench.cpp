// HIP cold compile (no GPU needed): a launch that misses every cache, end to end
// through the public API (bind, plan, key, codegen, hipRTC, code object, load), against
// raw hipRTC (create, compile, get code, destroy) on the same source and options.
// The two alternate within one benchmark (which goes first alternates too), so drift
// on a shared machine reaches both alike; counters give their medians and the ratio
// (target <= 1.05). The runtime is the HIP backend's compile-only mode
// (STUBJIT_HIP_ARCH=gfx90a); with an AMD GPU present the benchmark refuses to run,
// since launches would then run too. bench/results/hip_compile.md holds the figures.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "backends/hip/hip_library.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "bench_support.hpp"
#include "common/scoped_env.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using stubjit::bench::median;
using stubjit::test::ScopedEnv;

using namespace stubjit;
using Clock = std::chrono::steady_clock;

constexpr const char* arch = "gfx90a";

KernelSource saxpy_source(const std::string& tag) {
  return {
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y; // " + tag};
}

KernelSource mixed_source(const std::string& tag) {
  return {
      "mixed",
      {scalar<double>("scale"), scalar<std::int32_t>("offset"), scalar<std::uint32_t>("mask"),
       scalar<std::int64_t>("bias"), in<double>("x"), in<std::int32_t>("k"), inout<double>("z")},
      "z = scale * x + offset + (k & (stubjit::i32)mask) + (double)bias; // " + tag};
}

// One launch shape: a kernel whose body gets a tag (so no cache has seen it), host
// memory wrapped as its fields (compile-only allocates nothing), and the domain.
// 0: saxpy, 3 parameters, direct rank 2; 1: mixed, 7 parameters, spread rank 5.
// Not movable: the arguments point at the fields.
class ColdCase {
 public:
  ColdCase(Runtime& runtime, std::int64_t which) {
    fields_.reserve(3);
    if (which == 0) {
      domain = Domain{512, 512};
      const Field& x = wrapped(runtime, ElementType::f32, {512, 512});
      const Field& y = wrapped(runtime, ElementType::f32, {512, 512});
      args = {2.0f, x, y};
      source = saxpy_source;
      label = "saxpy direct r2";
    } else {
      domain = Domain{4, 5, 6, 7, 8};
      const std::vector<std::int64_t> extents = {4, 5, 6, 7, 8};
      const Field& x = wrapped(runtime, ElementType::f64, extents);
      const Field& k = wrapped(runtime, ElementType::i32, extents);
      const Field& z = wrapped(runtime, ElementType::f64, extents);
      args = {0.5, std::int32_t(1), std::uint32_t(0xF), std::int64_t(7), x, k, z};
      source = mixed_source;
      label = "mixed spread r5";
    }
  }
  ColdCase(const ColdCase&) = delete;
  ColdCase& operator=(const ColdCase&) = delete;

  Domain domain{1};
  std::vector<Arg> args;
  KernelSource (*source)(const std::string& tag) = nullptr;
  const char* label = "";

 private:
  const Field& wrapped(Runtime& runtime, ElementType type,
                       const std::vector<std::int64_t>& extents) {
    std::int64_t count = 1;
    for (std::int64_t e : extents) count *= e;
    memory_.emplace_back(static_cast<std::size_t>(count) * size_of(type));
    fields_.push_back(runtime.wrap_memory(memory_.back().data(), type, extents, {}, true));
    return fields_.back();
  }

  std::vector<std::vector<char>> memory_;
  std::vector<Field> fields_;
};

// What the backend does with hipRTC, without stubjit around it.
std::size_t raw_hiprtc_code_object(const detail::hip::RtcApi& api, const std::string& source,
                                   const std::string& name,
                                   const std::vector<const char*>& options) {
  detail::hip::hiprtcProgram program = nullptr;
  api.CreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  std::size_t size = 0;
  if (api.CompileProgram(program, static_cast<int>(options.size()), options.data()) ==
      detail::hip::hiprtc_success) {
    api.GetCodeSize(program, &size);
    std::vector<char> code(size);
    api.GetCode(program, code.data());
  }
  api.DestroyProgram(&program);
  return size;
}

void BM_ColdCompile_StubjitOverRawHiprtc(benchmark::State& state) {
  ScopedEnv target("STUBJIT_HIP_ARCH", arch);
  ScopedEnv no_disk("STUBJIT_CACHE", "off");
  std::string reason;
  const detail::hip::RtcLibrary* library = detail::hip::hiprtc_library(reason);
  if (!library) {
    state.SkipWithError(reason.c_str());
    return;
  }
  std::optional<Runtime> runtime;
  try {
    RuntimeOptions options;
    options.backend = "hip";
    options.disk_cache = false;
    runtime.emplace(options);
  } catch (const Error& error) {
    state.SkipWithError(error.what());
    return;
  }
  ColdCase c(*runtime, state.range(0));
  // The options the HIP backend passes (hiprtc_compiler.cpp).
  const detail::hip::HiprtcCompiler compiler(arch);
  std::vector<std::string> option_text;
  std::vector<const char*> options;
  // The process's first compile initializes comgr's LLVM: a one-time cost, not a stub's.
  {
    const KernelSource warm = c.source("warm-up");
    const std::string source =
        detail::hip::device_default_source(runtime->kernel(warm).stub_source(c.domain, c.args));
    const std::vector<std::string> none;
    option_text = compiler.options_for({source, warm.name, warm.name, warm.name, none});
    for (const std::string& option : option_text) options.push_back(option.c_str());
    raw_hiprtc_code_object(library->api, source, "warm-up.hip", options);
  }
  std::vector<double> stubjit_ms, raw_ms;
  std::int64_t iteration = 0;
  for (auto _ : state) {
    // A body no cache has seen: every launch compiles.
    const KernelSource cold = c.source("cold " + std::to_string(iteration));
    Kernel probe = runtime->kernel(cold);
    // Exactly the text the backend hands hipRTC.
    const std::string source =
        detail::hip::device_default_source(probe.stub_source(c.domain, c.args));
    const std::string name = "stubjit_" + cold.name + "_" + name_of(probe.plan(c.domain).mode) +
                             "_r" + std::to_string(c.domain.rank()) + ".hip";
    bool launched = false;
    const auto time_stubjit = [&] {
      const auto start = Clock::now();
      try {
        // Compiles and loads, then refuses to run (compile-only).
        runtime->kernel(cold).launch_args(c.domain, c.args.data(), c.args.size());
        launched = true;
      } catch (const BackendError&) {
      }
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    const auto time_raw = [&] {
      const auto start = Clock::now();
      benchmark::DoNotOptimize(raw_hiprtc_code_object(library->api, source, name, options));
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    };
    stubjit::bench::time_both_alternating(iteration, time_stubjit, stubjit_ms, time_raw, raw_ms);
    if (launched) {
      state.SkipWithError("an AMD GPU ran the launch: this benchmark measures compile-only");
      return;
    }
    state.SetIterationTime(stubjit_ms.back() / 1e3);
    ++iteration;
  }
  if (runtime->counters().compiles != static_cast<std::uint64_t>(iteration)) {
    state.SkipWithError("a launch did not compile: the measurement is not cold");
    return;
  }
  state.SetLabel(c.label);
  state.counters["stubjit_ms"] = median(stubjit_ms);
  state.counters["raw_hiprtc_ms"] = median(raw_ms);
  state.counters["ratio"] = median(stubjit_ms) / median(raw_ms);
}
BENCHMARK(BM_ColdCompile_StubjitOverRawHiprtc)
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
