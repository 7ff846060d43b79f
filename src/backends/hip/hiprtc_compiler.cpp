#include "backends/hip/hiprtc_compiler.hpp"

#include <memory>
#include <mutex>

#include "backends/hip/code_object.hpp"
#include "backends/hip/comgr.hpp"
#include "backends/hip/hip_target.hpp"
#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit::detail::hip {
namespace {

// hipRTC hands each compile to comgr, whose clang keeps its options in LLVM's
// process-global registry; ROCm 5's comgr is not safe to enter from two threads
// at once. Compiles are therefore serialized here (different stubs of one
// process still compile one after another, the cache keeps each to once).
std::mutex& compile_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct ProgramDeleter {
  const RtcApi* api;
  void operator()(hiprtcProgram program) const { api->DestroyProgram(&program); }
};
using Program = std::unique_ptr<std::remove_pointer_t<hiprtcProgram>, ProgramDeleter>;

std::string program_log(const RtcApi& api, hiprtcProgram program) {
  std::size_t size = 0;
  if (api.GetProgramLogSize(program, &size) != hiprtc_success || size == 0) return "";
  std::string log(size, '\0');
  if (api.GetProgramLog(program, log.data()) != hiprtc_success) return "";
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string rtc_error(const RtcApi& api, hiprtcResult result) {
  const char* text = api.GetErrorString ? api.GetErrorString(result) : nullptr;
  return std::string(text ? text : "hipRTC error") + " (" + std::to_string(result) + ")";
}

const RtcLibrary& require_library() {
  std::string reason;
  const RtcLibrary* library = hiprtc_library(reason);
  if (!library) throw BackendError("hip: " + reason);
  return *library;
}

}  // namespace

std::string device_default_source(const std::string& stub_source) {
  return "#pragma clang force_cuda_host_device begin\n" + stub_source +
         "\n#pragma clang force_cuda_host_device end\n";
}

HiprtcCompiler::HiprtcCompiler(std::string target_id)
    : library_(&require_library()), target_(std::move(target_id)) {
  if (!valid_target_id(target_)) {
    throw BackendError("hip: '" + target_ +
                       "' is not an AMDGPU target id (expected e.g. gfx90a, gfx1030 or "
                       "gfx90a:xnack-)");
  }
  if (const std::string problem = comgr_target_problem(target_); !problem.empty()) {
    throw BackendError("hip: " + compiler_id() + " cannot compile for " + target_ + ": " + problem);
  }
}

std::string HiprtcCompiler::compiler_id() const {
  return "hiprtc " + (library_->version.empty() ? std::string("unknown") : library_->version) +
         " (" + library_->file + ")";
}

std::vector<std::string> HiprtcCompiler::options_for(const CompileJob& job) const {
  std::vector<std::string> options = {"--offload-arch=" + target_, "-O3", "-std=c++17"};
  options.insert(options.end(), job.options.begin(), job.options.end());
  return options;
}

Binary HiprtcCompiler::compile(const CompileJob& job) const {
  const RtcApi& api = library_->api;
  const std::vector<std::string> options = options_for(job);
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  const std::string source = device_default_source(job.source);

  std::lock_guard<std::mutex> lock(compile_mutex());
  hiprtcProgram raw = nullptr;
  const hiprtcResult created =
      api.CreateProgram(&raw, source.c_str(), job.file_name.c_str(), 0, nullptr, nullptr);
  if (created != hiprtc_success) {
    throw BackendError("hip: hiprtcCreateProgram failed: " + rtc_error(api, created));
  }
  const Program program(raw, ProgramDeleter{&api});
  const hiprtcResult compiled = api.CompileProgram(
      program.get(), static_cast<int>(option_pointers.size()), option_pointers.data());
  const std::string log = program_log(api, program.get());
  // Rejected source or options fail the same way every time (CompileError); other
  // failures may pass on a later try (BackendError).
  if (compiled == hiprtc_error_compilation || compiled == hiprtc_error_invalid_option) {
    throw CompileError(job.kernel, log.empty() ? rtc_error(api, compiled) : log, source);
  }
  if (compiled != hiprtc_success) {
    throw BackendError("hip: hiprtcCompileProgram failed: " + rtc_error(api, compiled) +
                       (log.empty() ? "" : "\n" + log));
  }
  if (!log.empty()) logger().debug("hipRTC diagnostics for {}:\n{}", job.file_name, log);

  std::size_t size = 0;
  if (const hiprtcResult r = api.GetCodeSize(program.get(), &size); r != hiprtc_success) {
    throw BackendError("hip: hiprtcGetCodeSize failed: " + rtc_error(api, r));
  }
  std::vector<char> code(size);
  if (const hiprtcResult r = api.GetCode(program.get(), code.data()); r != hiprtc_success) {
    throw BackendError("hip: hiprtcGetCode failed: " + rtc_error(api, r));
  }
  return Binary{"amdgpu-code-object", extract_code_object(code, target_)};
}

}  // namespace stubjit::detail::hip
