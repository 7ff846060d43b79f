#include "backends/cuda/nvrtc_library.hpp"

#include <algorithm>

#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

std::string NvrtcLibrary::describe(cuda::nvrtcResult result) const {
  const char* name = get_error_string ? get_error_string(result) : nullptr;
  return std::string(name ? name : "NVRTC error") + " (" + std::to_string(result) + ")";
}

std::string NvrtcLibrary::id() const {
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

bool NvrtcLibrary::supports(int arch) const {
  return std::binary_search(supported_archs.begin(), supported_archs.end(), arch);
}

std::vector<std::string> nvrtc_candidates(const std::string& override_paths) {
  if (!override_paths.empty()) {
    std::vector<std::string> paths;
    std::size_t begin = 0;
    while (begin <= override_paths.size()) {
      const std::size_t end = std::min(override_paths.find(':', begin), override_paths.size());
      if (end > begin) paths.push_back(override_paths.substr(begin, end - begin));
      begin = end + 1;
    }
    return paths;
  }
  const std::vector<std::string> sonames = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                            "libnvrtc.so.11.1", "libnvrtc.so.11.0"};
  std::vector<std::string> dirs;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const std::string root = env_or(variable, "");
    if (!root.empty()) dirs.push_back(root + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  std::vector<std::string> candidates = sonames;
  for (const std::string& dir : dirs)
    for (const std::string& soname : sonames) candidates.push_back(dir + "/" + soname);
  return candidates;
}

namespace {

// NVRTC opens libnvrtc-builtins.so.<major>.<minor> by name when it first compiles, through
// the dynamic loader's search path, which need not include the directory NVRTC itself
// was found in (/usr/local/cuda/lib64 on a machine whose loader was never told of it):
// the first compile would fail. Loaded from NVRTC's own directory first, it is found
// by its name. Nothing happens where NVRTC was found by name, or the file is absent.
void preload_builtins(const SharedLibrary& nvrtc, int major, int minor) {
  const std::string& path = nvrtc.name();
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return;
  const std::string builtins = path.substr(0, slash + 1) + "libnvrtc-builtins.so." +
                               std::to_string(major) + "." + std::to_string(minor);
  std::string why;
  if (!SharedLibrary::open(builtins, why))
    logger().debug("nvrtc: {} not preloaded: {}", builtins, why);
}

// Resolves what stubjit uses of an opened NVRTC and reads its version and
// architectures. Throws BackendError when it is not a usable NVRTC.
std::shared_ptr<const NvrtcLibrary> resolve_nvrtc(std::shared_ptr<SharedLibrary> library) {
  auto nvrtc = std::make_shared<NvrtcLibrary>();
  std::string missing;
  library->resolve(nvrtc->get_error_string, "nvrtcGetErrorString", missing);
  library->resolve(nvrtc->version, "nvrtcVersion", missing);
  library->resolve(nvrtc->get_num_supported_archs, "nvrtcGetNumSupportedArchs", missing);
  library->resolve(nvrtc->get_supported_archs, "nvrtcGetSupportedArchs", missing);
  library->resolve(nvrtc->create_program, "nvrtcCreateProgram", missing);
  library->resolve(nvrtc->destroy_program, "nvrtcDestroyProgram", missing);
  library->resolve(nvrtc->compile_program, "nvrtcCompileProgram", missing);
  library->resolve(nvrtc->get_program_log_size, "nvrtcGetProgramLogSize", missing);
  library->resolve(nvrtc->get_program_log, "nvrtcGetProgramLog", missing);
  library->resolve(nvrtc->get_cubin_size, "nvrtcGetCUBINSize", missing);
  library->resolve(nvrtc->get_cubin, "nvrtcGetCUBIN", missing);
  library->resolve(nvrtc->get_ptx_size, "nvrtcGetPTXSize", missing);
  library->resolve(nvrtc->get_ptx, "nvrtcGetPTX", missing);
  if (!missing.empty()) {
    throw BackendError(library->name() + " is not a usable NVRTC (11.1 or newer); missing " +
                       missing);
  }
  if (const cuda::nvrtcResult r = nvrtc->version(&nvrtc->major, &nvrtc->minor);
      r != cuda::NVRTC_SUCCESS) {
    throw BackendError(library->name() + ": nvrtcVersion failed: " + nvrtc->describe(r));
  }
  int count = 0;
  if (nvrtc->get_num_supported_archs(&count) == cuda::NVRTC_SUCCESS && count > 0) {
    nvrtc->supported_archs.resize(static_cast<std::size_t>(count));
    if (nvrtc->get_supported_archs(nvrtc->supported_archs.data()) != cuda::NVRTC_SUCCESS)
      nvrtc->supported_archs.clear();
    std::sort(nvrtc->supported_archs.begin(), nvrtc->supported_archs.end());
  }
  if (nvrtc->supported_archs.empty())
    throw BackendError(library->name() + " reports no supported GPU architectures");
  preload_builtins(*library, nvrtc->major, nvrtc->minor);
  nvrtc->library = std::move(library);
  return nvrtc;
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string nvrtc_driver_problem(int major, int minor, int driver_version, bool ptx) {
  const int nvrtc_version = 1000 * major + 10 * minor;
  const std::string nvrtc = "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
  const std::string driver = "the CUDA driver is " + cuda_version_text(driver_version);
  if (ptx && driver_version < nvrtc_version) {
    return nvrtc + "'s PTX needs a CUDA driver of version " + std::to_string(major) + "." +
           std::to_string(minor) + " or newer; " + driver;
  }
  if (driver_version / 1000 < major) {
    return nvrtc + "'s CUBINs need a CUDA " + std::to_string(major) + ".x driver or newer; " +
           driver;
  }
  return "";
}

std::shared_ptr<const NvrtcLibrary> load_nvrtc() {
  const std::string override_path = env_or("STUBJIT_NVRTC_PATH", "");
  std::string why;
  auto library = SharedLibrary::open_first(nvrtc_candidates(override_path), why);
  if (!library) {
    throw BackendError(
        override_path.empty()
            ? "NVRTC (libnvrtc.so.13, .12 or .11) " +
                  (why == "not found" ? why : "does not load: " + why) + "; set STUBJIT_NVRTC_PATH"
            : "cannot load NVRTC from STUBJIT_NVRTC_PATH=" + override_path + ": " + why);
  }
  return resolve_nvrtc(std::move(library));
}

std::shared_ptr<const NvrtcLibrary> load_nvrtc_with_id(const std::string& id) {
  std::string found;
  for (const std::string& candidate : nvrtc_candidates(env_or("STUBJIT_NVRTC_PATH", ""))) {
    std::string why;
    std::shared_ptr<SharedLibrary> library = SharedLibrary::open(candidate, why);
    if (!library) continue;
    try {
      std::shared_ptr<const NvrtcLibrary> nvrtc = resolve_nvrtc(std::move(library));
      if (nvrtc->id() == id) return nvrtc;
      found += (found.empty() ? "" : ", ") + nvrtc->id() + " (" + candidate + ")";
    } catch (const BackendError&) {
      continue;
    }
  }
  throw BackendError("no " + id + " here to compile with; found: " +
                     (found.empty() ? std::string("none") : found));
}

std::shared_ptr<const NvrtcLibrary> nvrtc_for_driver(std::shared_ptr<const NvrtcLibrary> newest,
                                                     int driver_version, bool ptx) {
  std::string problem = nvrtc_driver_problem(newest->major, newest->minor, driver_version, ptx);
  if (problem.empty()) return newest;
  std::string found = "\n    " + newest->library->name() + ": " + problem;
  std::vector<std::pair<int, int>> seen = {{newest->major, newest->minor}};
  for (const std::string& candidate : nvrtc_candidates(env_or("STUBJIT_NVRTC_PATH", ""))) {
    std::string why;
    std::shared_ptr<SharedLibrary> library = SharedLibrary::open(candidate, why);
    if (!library) continue;
    std::shared_ptr<const NvrtcLibrary> nvrtc;
    try {
      nvrtc = resolve_nvrtc(std::move(library));
    } catch (const BackendError& unusable) {
      found += std::string("\n    ") + unusable.what();
      continue;
    }
    // The same NVRTC under another name (a soname and a path to it) adds nothing.
    if (std::find(seen.begin(), seen.end(), std::make_pair(nvrtc->major, nvrtc->minor)) !=
        seen.end()) {
      continue;
    }
    seen.emplace_back(nvrtc->major, nvrtc->minor);
    problem = nvrtc_driver_problem(nvrtc->major, nvrtc->minor, driver_version, ptx);
    if (problem.empty()) return nvrtc;
    found += "\n    " + nvrtc->library->name() + ": " + problem;
  }
  throw BackendError("no NVRTC makes code the CUDA driver (" + cuda_version_text(driver_version) +
                     ") can load; found:" + found +
                     "\n  install the NVRTC of the driver's CUDA version or older, and set "
                     "STUBJIT_NVRTC_PATH to it (or update the driver)");
}

}  // namespace stubjit::detail
