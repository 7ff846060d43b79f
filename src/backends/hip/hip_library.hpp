// Finding and opening hipRTC and the HIP runtime at run time (nothing of ROCm is
// needed to build or run stubjit). Two layouts exist:
//   ROCm <= 5.x: hipRTC lives inside the runtime, libamdhip64.so.5;
//   ROCm >= 6:   a separate libhiprtc.so.6 / .7 next to libamdhip64.so.6 / .7.
// Libraries, once opened, stay open for the life of the process: the HIP runtime
// starts threads and registers exit handlers that do not survive dlclose.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/hip/hip_api.hpp"
#include "backends/hip/rocm_root.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail::hip {

struct RtcLibrary {
  std::shared_ptr<SharedLibrary> library;
  RtcApi api;
  std::string file;     // the candidate that opened, e.g. "libamdhip64.so.5"
  std::string version;  // "5.2.21153", or "" when neither hiprtcVersion nor the runtime says
};

struct RuntimeLibrary {
  std::shared_ptr<SharedLibrary> library;
  RuntimeApi api;
  std::string file;
  int version = 0;  // hipRuntimeGetVersion: major * 10^7 + minor * 10^5 + patch
};

// The ROCm installation the process takes the runtime, hipRTC and comgr from
// (rocm_root.hpp), chosen once.
const RocmRoot& chosen_rocm_root();

// Where to look in it, in order: ROCm 7, 6 and 5's sonames (paths in the root's lib
// directory, or names through the dynamic loader's search path for the system's).
std::vector<std::string> default_hiprtc_candidates();
std::vector<std::string> default_runtime_candidates();

// Opens the first candidate that loads and defines every symbol needed. On failure
// returns nullopt and sets `reason` to what was tried and why each failed.
std::optional<RtcLibrary> open_hiprtc(const std::vector<std::string>& candidates,
                                      std::string& reason);
std::optional<RuntimeLibrary> open_runtime(const std::vector<std::string>& candidates,
                                           std::string& reason);

// The process-wide libraries from the default candidates, opened on first use.
// nullptr when not available; `reason` then says why (the same every call).
const RtcLibrary* hiprtc_library(std::string& reason);
const RuntimeLibrary* runtime_library(std::string& reason);

// "5.2.21153" from hipRuntimeGetVersion's 50221153.
std::string runtime_version_text(int version);

}  // namespace stubjit::detail::hip
