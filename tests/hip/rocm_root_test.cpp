// Which ROCm installation the HIP backend takes its libraries from (rocm_root.hpp):
// fake installations in a temporary directory, then the one this machine has.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "backends/hip/comgr.hpp"
#include "backends/hip/hip_library.hpp"
#include "backends/hip/rocm_root.hpp"
#include "common/temp_dir.hpp"
#include "support/sanitizers.hpp"

namespace stubjit::detail::hip {
namespace {

namespace fs = std::filesystem;

// An installation's lib directory under `opt`, holding empty files named `libraries`.
void install(const std::string& dir, const std::vector<std::string>& libraries = {}) {
  fs::create_directories(dir + "/lib");
  for (const std::string& library : libraries) std::ofstream(dir + "/lib/" + library) << "";
}

std::vector<std::string> labels(const std::vector<RocmRoot>& roots) {
  std::vector<std::string> out;
  for (const RocmRoot& root : roots) out.push_back(root.label);
  return out;
}

const std::vector<std::string> runtimes = {"libamdhip64.so.7", "libamdhip64.so.6",
                                           "libamdhip64.so.5"};
const std::vector<std::string> rtcs = {"libhiprtc.so.7", "libhiprtc.so.6", "libamdhip64.so.5"};

TEST(RocmRoot, RocmPathFirstThenNewestVersionFirstThenTheSystem) {
  const test::TempDir opt;
  install(opt / "rocm-5.7.1");
  install(opt / "rocm-6.10.0");
  install(opt / "rocm-6.4.2");
  install(opt / "rocm-dev");                                        // not a version: not a root
  fs::create_directory_symlink(opt / "rocm-6.10.0", opt / "rocm");  // the same as 6.10.0
  install(opt / "custom");
  const std::vector<RocmRoot> roots = rocm_roots(opt / "custom", opt.path());
  EXPECT_EQ(labels(roots),
            (std::vector<std::string>{"$ROCM_PATH=" + opt / "custom", opt / "rocm-6.10.0",
                                      opt / "rocm-6.4.2", opt / "rocm-5.7.1",
                                      "the system's library path"}));
  EXPECT_EQ(roots[1].lib_dir, opt / "rocm-6.10.0/lib");
  EXPECT_EQ(roots.back().lib_dir, "");
}

TEST(RocmRoot, AnUnversionedRocmDirectoryComesAfterTheVersionedOnes) {
  const test::TempDir opt;
  install(opt / "rocm");
  install(opt / "rocm-6.2.0");
  EXPECT_EQ(
      labels(rocm_roots("", opt.path())),
      (std::vector<std::string>{opt / "rocm-6.2.0", opt / "rocm", "the system's library path"}));
  // A ROCM_PATH or /opt without installations leaves the system only.
  const test::TempDir empty;
  EXPECT_EQ(labels(rocm_roots(empty / "nothing", empty.path())),
            std::vector<std::string>{"the system's library path"});
}

TEST(RocmRoot, TheFirstRootWithARuntimeOrHiprtcIsChosenAndItsLibrariesNamed) {
  const test::TempDir opt;
  install(opt / "rocm-7.0.0");  // no libraries: passed over
  install(opt / "rocm-6.4.2", {"libhiprtc.so.6", "libamdhip64.so.6", "libamd_comgr.so.2"});
  install(opt / "rocm-5.7.1", {"libamdhip64.so.5"});
  const RocmRoot chosen = choose_rocm_root(rocm_roots("", opt.path()), runtimes, rtcs);
  EXPECT_EQ(chosen.label, opt / "rocm-6.4.2");
  EXPECT_EQ(in_root(chosen, {"libamdhip64.so.6", "libamd_comgr.so.2"}),
            (std::vector<std::string>{opt / "rocm-6.4.2/lib/libamdhip64.so.6",
                                      opt / "rocm-6.4.2/lib/libamd_comgr.so.2"}));
  // Only an older installation has one: that one, not a mix.
  const test::TempDir old_only;
  install(old_only / "rocm-6.0.0");
  install(old_only / "rocm-5.2.0", {"libamdhip64.so.5"});
  EXPECT_EQ(choose_rocm_root(rocm_roots("", old_only.path()), runtimes, rtcs).label,
            old_only / "rocm-5.2.0");
  // None has one: the system's, whose names go through the dynamic loader.
  const test::TempDir none;
  install(none / "rocm-6.0.0");
  const RocmRoot system = choose_rocm_root(rocm_roots("", none.path()), runtimes, rtcs);
  EXPECT_EQ(system.lib_dir, "");
  EXPECT_EQ(in_root(system, {"libamdhip64.so.5"}), std::vector<std::string>{"libamdhip64.so.5"});
}

// This machine: the runtime, hipRTC and comgr from one root, and exactly one comgr.
TEST(RocmRoot, ThisMachinesLibrariesComeFromTheChosenRoot) {
  const RocmRoot& root = chosen_rocm_root();
  std::string reason;
  const RtcLibrary* rtc = hiprtc_library(reason);
  if (!rtc) GTEST_SKIP() << "no hipRTC here: " << reason;
  const std::string prefix = root.lib_dir.empty() ? "" : root.lib_dir + "/";
  EXPECT_EQ(rtc->file.rfind(prefix, 0), 0u) << rtc->file << " is not in " << root.label;
  if (const RuntimeLibrary* runtime = runtime_library(reason)) {
    EXPECT_EQ(runtime->file.rfind(prefix, 0), 0u) << runtime->file;
  }
  const std::string comgr = loaded_comgr();
  if (sanitizer_refusing_deepbind()) {
    EXPECT_EQ(comgr, "");  // nothing loaded under ASan or TSan
  } else {
    EXPECT_EQ(comgr.rfind(prefix + "libamd_comgr.so.", 0), 0u) << comgr;
  }
}

}  // namespace
}  // namespace stubjit::detail::hip
