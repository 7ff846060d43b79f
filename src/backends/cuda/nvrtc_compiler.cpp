#include "backends/cuda/nvrtc_compiler.hpp"

#include <cctype>

#include "backends/cuda/nvrtc_log.hpp"
#include "stubjit/error.hpp"
#include "support/log.hpp"
#include "support/name_scan.hpp"

namespace stubjit::detail {
namespace {

// Destroys an NVRTC program however compile() leaves.
class ProgramGuard {
 public:
  ProgramGuard(const NvrtcLibrary& nvrtc, cuda::nvrtcProgram program)
      : nvrtc_(nvrtc), program_(program) {}
  ~ProgramGuard() { nvrtc_.destroy_program(&program_); }
  ProgramGuard(const ProgramGuard&) = delete;
  ProgramGuard& operator=(const ProgramGuard&) = delete;

 private:
  const NvrtcLibrary& nvrtc_;
  cuda::nvrtcProgram program_;
};

std::string program_log(const NvrtcLibrary& nvrtc, cuda::nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtc.get_program_log_size(program, &size) != cuda::NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtc.get_program_log(program, log.data()) != cuda::NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // the size counts the terminating NUL
  return log;
}

std::vector<char> program_output(const NvrtcLibrary& nvrtc, cuda::nvrtcProgram program, bool ptx) {
  std::size_t size = 0;
  cuda::nvrtcResult r = (ptx ? nvrtc.get_ptx_size : nvrtc.get_cubin_size)(program, &size);
  std::vector<char> bytes(size);
  if (r == cuda::NVRTC_SUCCESS) r = (ptx ? nvrtc.get_ptx : nvrtc.get_cubin)(program, bytes.data());
  if (r != cuda::NVRTC_SUCCESS || bytes.empty()) {
    throw BackendError(std::string("NVRTC produced no ") + (ptx ? "PTX" : "CUBIN") + ": " +
                       nvrtc.describe(r));
  }
  return bytes;
}

}  // namespace

NvrtcCompiler::NvrtcCompiler(std::shared_ptr<const NvrtcLibrary> nvrtc, CudaTarget target,
                             MinimalFirst minimal)
    : nvrtc_(std::move(nvrtc)), target_(std::move(target)), minimal_(minimal) {}

bool NvrtcCompiler::compiles_minimal_first(const CompileJob& job) const {
  if (minimal_ == MinimalFirst::never) return false;
  if (nvrtc_->major < 12 || (nvrtc_->major == 12 && nvrtc_->minor < 4)) return false;
  if (minimal_ == MinimalFirst::always) return true;
  // The user's code is the last part of a stub, from its helpers or its body, each
  // after a #line that names it (codegen/stub_writer.cpp). Not found: the whole
  // source, whose prelude names __CUDA_ARCH__, so no -minimal.
  const std::size_t user_code = job.source.find("#line 1 \"" + job.kernel + ".");
  std::string text = job.source.substr(user_code == std::string::npos ? 0 : user_code);
  for (const std::string& option : job.options) text += "\n" + option;
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !text_may_name(text, {"cuda", "tex", "surf", "<<<"});
}

std::vector<std::string> NvrtcCompiler::options(const CompileJob& job, bool minimal) const {
  std::vector<std::string> options = {target_.nvrtc_option(), "-std=c++17", "-default-device"};
  if (minimal) options.push_back("-minimal");
  options.insert(options.end(), job.options.begin(), job.options.end());
  return options;
}

std::vector<std::string> NvrtcCompiler::options(const CompileJob& job) const {
  return options(job, compiles_minimal_first(job));
}

Binary NvrtcCompiler::compile(const CompileJob& job, std::string* diagnostics) const {
  if (diagnostics) diagnostics->clear();
  if (compiles_minimal_first(job)) {
    try {
      return compile(job, options(job, true), diagnostics);
    } catch (const CompileError& error) {
      logger().debug("{} did not compile with -minimal; compiling it again without:\n{}",
                     job.file_name, error.log());
    }
  }
  return compile(job, options(job, false), diagnostics);
}

Binary NvrtcCompiler::compile(const CompileJob& job, const std::vector<std::string>& strings,
                              std::string* diagnostics) const {
  const NvrtcLibrary& nvrtc = *nvrtc_;
  cuda::nvrtcProgram program = nullptr;
  if (const cuda::nvrtcResult r = nvrtc.create_program(&program, job.source.c_str(),
                                                       job.file_name.c_str(), 0, nullptr, nullptr);
      r != cuda::NVRTC_SUCCESS) {
    throw BackendError("nvrtcCreateProgram failed for " + job.file_name + ": " + nvrtc.describe(r));
  }
  ProgramGuard guard(nvrtc, program);
  std::vector<const char*> pointers;
  pointers.reserve(strings.size());
  for (const std::string& option : strings) pointers.push_back(option.c_str());
  const cuda::nvrtcResult result =
      nvrtc.compile_program(program, static_cast<int>(pointers.size()), pointers.data());
  const std::string log = normalize_nvrtc_log(program_log(nvrtc, program));
  // The source or the options were rejected: the same inputs fail the same way, a
  // CompileError (a runtime compiles such a stub once). Anything else (out of memory,
  // an internal error) may pass on a later try: a BackendError.
  if (result == cuda::NVRTC_ERROR_COMPILATION || result == cuda::NVRTC_ERROR_INVALID_OPTION) {
    throw CompileError(job.kernel, log.empty() ? "NVRTC failed: " + nvrtc.describe(result) : log,
                       job.source);
  }
  if (result != cuda::NVRTC_SUCCESS) {
    throw BackendError("NVRTC failed on " + job.file_name + ": " + nvrtc.describe(result) +
                       (log.empty() ? "" : "\n" + log));
  }
  if (!log.empty()) logger().debug("NVRTC diagnostics for {}:\n{}", job.file_name, log);
  if (diagnostics) *diagnostics = log;
  return Binary{target_.ptx ? "ptx" : "cubin", program_output(nvrtc, program, target_.ptx)};
}

}  // namespace stubjit::detail
