// HIP cold compile: stubjit's stub compile path against raw hipRTC on the same
// source, measured in the same run (no AMD GPU needed):
//   Stubjit:   what a launch that misses every cache pays before loading: codegen,
//              the cache key, the HIP backend's compile (hipRTC + code object).
//   RawHiprtc: hiprtcCreateProgram / CompileProgram / GetCodeSize / GetCode /
//              DestroyProgram on the exact source and options that compile passes.
// Target: Stubjit / RawHiprtc <= 1.05. bench/results/hip_compile.md holds the figures;
// run with --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <stdexcept>

#include "backends/hip/hip_backend.hpp"
#include "backends/hip/hip_library.hpp"
#include "backends/hip/hip_target.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "cache/cache_key.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/stubjit.hpp"

namespace {

using namespace stubjit;
using namespace stubjit::detail;

constexpr const char* arch = "gfx90a";

struct Case {
  KernelSource kernel;
  Mode mode;
  int rank;
  std::vector<Binding> bindings;
};

// A small stub and a larger one (seven parameters, spread indexing over rank 5).
Case case_of(std::int64_t index) {
  if (index == 0) {
    return {{"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"},
            Mode::direct,
            2,
            {Binding::scalar, Binding::projection, Binding::projection}};
  }
  return {
      {"mixed",
       {scalar<double>("scale"), scalar<std::int32_t>("offset"), scalar<std::uint32_t>("mask"),
        scalar<std::int64_t>("bias"), in<double>("x"), in<std::int32_t>("k"), inout<double>("z")},
       "z = scale * x + offset + (k & (stubjit::i32)mask) + (double)bias;"},
      Mode::multi,
      5,
      {Binding::scalar, Binding::scalar, Binding::scalar, Binding::scalar, Binding::projection,
       Binding::projection, Binding::projection}};
}

StubVariant variant_of(const Case& c, const DeviceLimits& limits) {
  StubVariant variant;
  variant.mode = c.mode;
  variant.rank = c.rank;
  variant.index_bits = 32;
  variant.bindings = c.bindings;
  variant.max_threads_per_group = max_group_threads(limits, c.kernel.block, c.mode, c.rank);
  return variant;
}

StubRequest request_of(const Case& c, const StubVariant& variant) {
  StubRequest request;
  request.dialect = Dialect::hip;
  request.mode = variant.mode;
  request.rank = variant.rank;
  request.index_bits = variant.index_bits;
  request.kernel = &c.kernel;
  request.bindings = variant.bindings;
  request.max_threads_per_group = variant.max_threads_per_group;
  return request;
}

// The HIP backend as Runtime opens it for `arch` when no AMD GPU is present.
std::unique_ptr<Backend> hip_backend() {
  ::setenv("STUBJIT_HIP_ARCH", arch, 1);
  BackendConfig config;
  config.named = true;
  BackendProbe probe = open_hip_backend(config);
  if (!probe.backend) throw std::runtime_error("HIP backend not available: " + probe.reason);
  return std::move(probe.backend);
}

void BM_ColdCompile_Stubjit(benchmark::State& state) {
  const Case c = case_of(state.range(0));
  std::unique_ptr<Backend> backend = hip_backend();
  const DeviceLimits limits = backend->limits();
  const KernelIdentity identity = identify(c.kernel);
  const ToolchainIdentity toolchain{"hip", backend->target_id(), backend->compiler_id(), ""};
  const std::vector<std::string> options;
  auto compile_once = [&] {
    const StubVariant variant = variant_of(c, limits);
    const CacheKey key = make_cache_key(identity, variant, toolchain);
    benchmark::DoNotOptimize(key.hash);
    const GeneratedStub stub = generate_stub(request_of(c, variant));
    return backend->compile({stub.source, stub.file_name, stub.entry, c.kernel.name, options})
        .bytes.size();
  };
  compile_once();  // the process's first compile initializes comgr: not a stub's cost
  std::size_t bytes = 0;
  for (auto _ : state) bytes = compile_once();
  state.counters["code_object_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ColdCompile_Stubjit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ColdCompile_RawHiprtc(benchmark::State& state) {
  const Case c = case_of(state.range(0));
  std::string reason;
  const hip::RtcLibrary* library = hip::hiprtc_library(reason);
  if (!library) throw std::runtime_error(reason);
  const hip::RtcApi& api = library->api;
  const hip::HiprtcCompiler compiler(arch);
  hip::HipDeviceShape shape;
  shape.wavefront_size = hip::default_wavefront_size(arch);
  const GeneratedStub stub =
      generate_stub(request_of(c, variant_of(c, hip::hip_device_limits(shape))));
  const std::string source = hip::device_default_source(stub.source);
  const std::vector<std::string> no_extra;
  const std::vector<std::string> options =
      compiler.options_for({stub.source, stub.file_name, stub.entry, c.kernel.name, no_extra});
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());
  auto compile_once = [&]() -> std::size_t {
    hip::hiprtcProgram program = nullptr;
    api.CreateProgram(&program, source.c_str(), stub.file_name.c_str(), 0, nullptr, nullptr);
    if (api.CompileProgram(program, static_cast<int>(option_pointers.size()),
                           option_pointers.data()) != hip::hiprtc_success) {
      api.DestroyProgram(&program);
      return 0;
    }
    std::size_t size = 0;
    api.GetCodeSize(program, &size);
    std::vector<char> code(size);
    api.GetCode(program, code.data());
    api.DestroyProgram(&program);
    return code.size();
  };
  if (compile_once() == 0) {
    state.SkipWithError("hipRTC failed to compile the stub");
    return;
  }
  std::size_t bytes = 0;
  for (auto _ : state) bytes = compile_once();
  state.counters["code_object_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ColdCompile_RawHiprtc)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
