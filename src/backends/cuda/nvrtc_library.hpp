// NVRTC, loaded at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_api.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail {

struct NvrtcLibrary {
  std::shared_ptr<SharedLibrary> library;
  int major = 0;
  int minor = 0;
  std::vector<int> supported_archs;  // compute capabilities as 10*major+minor, ascending

  cuda::nvrtcGetErrorString_t get_error_string = nullptr;
  cuda::nvrtcVersion_t version = nullptr;
  cuda::nvrtcGetNumSupportedArchs_t get_num_supported_archs = nullptr;
  cuda::nvrtcGetSupportedArchs_t get_supported_archs = nullptr;
  cuda::nvrtcCreateProgram_t create_program = nullptr;
  cuda::nvrtcDestroyProgram_t destroy_program = nullptr;
  cuda::nvrtcCompileProgram_t compile_program = nullptr;
  cuda::nvrtcGetSize_t get_program_log_size = nullptr;
  cuda::nvrtcGetBytes_t get_program_log = nullptr;
  cuda::nvrtcGetSize_t get_cubin_size = nullptr;
  cuda::nvrtcGetBytes_t get_cubin = nullptr;
  cuda::nvrtcGetSize_t get_ptx_size = nullptr;
  cuda::nvrtcGetBytes_t get_ptx = nullptr;

  // "NVRTC_ERROR_COMPILATION (6)".
  std::string describe(cuda::nvrtcResult result) const;
  // e.g. "nvrtc 13.0".
  std::string id() const;
  bool supports(int arch) const;
};

// Where NVRTC is looked for, in order: only the paths of `override_paths` when it is
// not empty (STUBJIT_NVRTC_PATH: one path, or several separated by ':'); else the
// versioned names libnvrtc.so.13, .12, .11.2, .11.1, .11.0 through the dynamic linker's
// search path, then the same names under $CUDA_HOME/lib64, $CUDA_PATH/lib64 and
// /usr/local/cuda/lib64. Newest first.
std::vector<std::string> nvrtc_candidates(const std::string& override_paths);

// Opens the first of nvrtc_candidates($STUBJIT_NVRTC_PATH) that loads and resolves
// what stubjit uses: the newest NVRTC, what compiling without a driver takes. Throws
// BackendError naming every place tried and why it failed.
std::shared_ptr<const NvrtcLibrary> load_nvrtc();

// Why a CUDA driver reporting `driver_version` (cuDriverGetVersion: 1000 * major + 10 *
// minor) cannot load what NVRTC major.minor makes; "" when it can. A CUBIN needs a
// driver of the same CUDA major version or newer (minor-version compatibility holds
// within a major version, never across one); PTX is compiled by the driver, which
// takes no PTX newer than itself, so it needs a driver of NVRTC's version or newer.
std::string nvrtc_driver_problem(int major, int minor, int driver_version, bool ptx);

// The NVRTC whose code the driver can load: `newest` (load_nvrtc's) when it does,
// else the newest of the other candidates that does. Throws BackendError naming the
// driver's version and every NVRTC found with the version it would need.
std::shared_ptr<const NvrtcLibrary> nvrtc_for_driver(std::shared_ptr<const NvrtcLibrary> newest,
                                                     int driver_version, bool ptx);

// The first of the candidates whose id() is `id` ("nvrtc 12.6"). Throws BackendError
// naming the versions found when none is.
std::shared_ptr<const NvrtcLibrary> load_nvrtc_with_id(const std::string& id);

// "12.4" from cuDriverGetVersion's 12040.
std::string cuda_version_text(int version);

}  // namespace stubjit::detail
