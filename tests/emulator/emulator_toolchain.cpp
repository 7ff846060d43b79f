// The emulator's compiler: the stub as its GPU dialect wrote it, plus an entry that
// runs one GPU thread of it, compiled for the host by the CPU backend's compiler
// plugin with the shim header (gpu_shim.h) forced in first.
#include <array>
#include <mutex>

#include "backends/cpu/compiler_plugin.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/emulator_binary.hpp"

namespace stubjit::test::emulator {
namespace {

// Names a stub can only use with other threads of its block running beside it (and
// __shared__, whose storage is the stub's own: emulator_device.cpp runs one of its
// blocks at a time): such a stub's blocks run their GPU threads as fibers that take
// turns at each barrier (block_runner.cpp); all others, one thread after the other.
bool needs_block_threads(const std::string& source) {
  static const std::array<const char*, 8> cooperative = {"__syncthreads", "__syncwarp", "__shfl",
                                                         "__ballot",      "__any",      "__all",
                                                         "__activemask",  "__shared__"};
  for (const char* name : cooperative)
    if (source.find(name) != std::string::npos) return true;
  return false;
}

// What the toolchain appends to a stub: the thread entry (emulator_context.h), which
// calls the stub's entry as a driver would, each parameter read from its pointer as
// the entry declares it (whatever the entry's convention), and what the device reads
// from the stub's own defines.
std::string trailer(const std::string& entry, bool cooperative) {
  return "\n// --- appended by the emulator's toolchain (tests/emulator) ---\n"
         "namespace stubjit_emulator {\n"
         "template <int... I> struct Indices {};\n"
         "template <int N, int... I> struct CountTo : CountTo<N - 1, N - 1, I...> {};\n"
         "template <int... I> struct CountTo<0, I...> { using type = Indices<I...>; };\n"
         "template <class P> P read_parameter(const void* from) {\n"
         "  P value;\n"
         "  __builtin_memcpy(&value, from, sizeof(P));\n"
         "  return value;\n"
         "}\n"
         "template <class... P, int... I>\n"
         "void call_entry(void (*entry)(P...), void* const* params, Indices<I...>) {\n"
         "  entry(read_parameter<P>(params[I])...);\n"
         "}\n"
         "template <class... P>\n"
         "void call_entry(void (*entry)(P...), void* const* params) {\n"
         "  call_entry(entry, params, typename CountTo<int(sizeof...(P))>::type());\n"
         "}\n"
         "}  // namespace stubjit_emulator\n"
         "extern \"C\" void " +
         std::string(thread_entry_symbol) +
         "(void* const* params, const ::stubjit_emulator::Context* context) {\n"
         "  ::stubjit_emulator::current = context;\n"
         "  context->attach(context->block_state, &::stubjit_emulator::current);\n"
         "  ::stubjit_emulator::call_entry(&" +
         entry +
         ", params);\n"
         "}\n"
         "#ifndef STUBJIT_MAX_GROUP_THREADS\n"
         "#define STUBJIT_MAX_GROUP_THREADS 0\n"
         "#endif\n"
         "#ifndef STUBJIT_WARP_SIZE\n"
         "#define STUBJIT_WARP_SIZE 0\n"
         "#endif\n"
         "extern \"C\" const unsigned " +
         max_threads_symbol +
         " = STUBJIT_MAX_GROUP_THREADS;\n"
         "extern \"C\" const unsigned " +
         warp_size_symbol +
         " = STUBJIT_WARP_SIZE;\n"
         "extern \"C\" const int " +
         cooperative_symbol + " = " + (cooperative ? "1" : "0") + ";\n";
}

std::mutex compiled_mutex;
std::vector<std::string> compiled;

void record(const std::string& source) {
  const std::string marker = "// stubjit stub for kernel ";
  const std::size_t at = source.find(marker);
  if (at == std::string::npos) return;  // a test's own source
  const std::size_t begin = at + 3;
  const std::string line = source.substr(begin, source.find('\n', begin) - begin);
  const std::lock_guard<std::mutex> lock(compiled_mutex);
  compiled.push_back(line);
}

class EmulatorToolchain final : public detail::Toolchain {
 public:
  explicit EmulatorToolchain(const Config& config)
      : config_(config),
        traits_(detail::gpu_target_traits(config.dialect == Dialect::cuda ? "cuda" : "hip")) {
    traits_.index32 = config.index32;
  }

  const detail::TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return "host-" + backend_name(config_); }
  std::string compiler_id() const override {
    return detail::cpu_compiler_id() + (config_.ubsan ? " ubsan-trap" : "");
  }
  DeviceLimits typical_limits() const override { return gpu_like_limits(config_.dialect); }

  detail::Binary compile(const detail::CompileJob& job) const override {
    const bool cooperative = needs_block_threads(job.source);
    const std::string source = job.source + trailer(job.entry, cooperative);
    std::vector<std::string> options = job.options;
    options.insert(
        options.end(),
        {"-I", STUBJIT_EMULATOR_DIR, "-include", STUBJIT_EMULATOR_DIR "/gpu_shim.h",
         config_.dialect == Dialect::cuda ? "-DSTUBJIT_EMULATE_CUDA" : "-DSTUBJIT_EMULATE_HIP"});
    if (config_.ubsan) {
      // Every finding traps (no sanitizer runtime to link); -fsanitize=function and
      // vptr would need one.
      options.insert(options.end(), {"-fsanitize=undefined", "-fno-sanitize=function,vptr",
                                     "-fsanitize-trap=undefined"});
    }
    const detail::CompileJob emulated{source, job.file_name, job.entry, job.kernel, options};
    detail::Binary binary{emulator_binary_format,
                          detail::compile_host_shared_object(emulated).bytes};
    record(job.source);
    return binary;
  }

 private:
  Config config_;
  detail::TargetTraits traits_;
};

}  // namespace

std::vector<std::string> compiled_stubs() {
  const std::lock_guard<std::mutex> lock(compiled_mutex);
  return compiled;
}

std::unique_ptr<detail::Toolchain> make_toolchain(const Config& config) {
  return std::make_unique<EmulatorToolchain>(config);
}

}  // namespace stubjit::test::emulator
