// Which ROCm installation the HIP backend takes its libraries from. A host may have
// several (Debian's ROCm 5.2 in the system's library directory beside ROCm 6 or 7 under
// /opt), and their pieces do not mix: the runtime, hipRTC and comgr must come from one
// installation. The first root that has the runtime or hipRTC wins, in this order:
//   1. $ROCM_PATH/lib, where set (the user's explicit choice);
//   2. /opt/rocm-<version>/lib, newest version first;
//   3. /opt/rocm/lib (unless it is one of those under another name);
//   4. the system: the names through the dynamic loader's search path.
#pragma once

#include <string>
#include <vector>

namespace stubjit::detail::hip {

struct RocmRoot {
  std::string lib_dir;  // "/opt/rocm-6.4.0/lib"; "" for the system
  std::string label;    // "/opt/rocm-6.4.0", "$ROCM_PATH=/x", "the system's library path"
};

// The candidate roots in order, from `rocm_path` ($ROCM_PATH, may be empty) and the
// rocm* directories of `opt_dir` ("/opt"); the system's last. Directories that resolve
// to the same place are listed once.
std::vector<RocmRoot> rocm_roots(const std::string& rocm_path, const std::string& opt_dir);

// The first root whose directory holds a HIP runtime or hipRTC named in
// `runtime_names` or `rtc_names`; the system's when none does.
RocmRoot choose_rocm_root(const std::vector<RocmRoot>& roots,
                          const std::vector<std::string>& runtime_names,
                          const std::vector<std::string>& rtc_names);

// `names` in `root`: paths in its directory, or the bare names for the system.
std::vector<std::string> in_root(const RocmRoot& root, const std::vector<std::string>& names);

}  // namespace stubjit::detail::hip
