// The core library loads no compiler: libstubjit.so does not link LLVM or Clang, and a
// process whose stubs are all on disk never maps them (nor the CPU compiler plugin),
// while its stubs run from sealed memory files.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "common/child_process.hpp"
#include "common/temp_dir.hpp"

namespace stubjit {
namespace {

using test::Child;
using test::ChildReport;
using test::TempDir;

std::string run_command(const std::string& command) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return output;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    output.append(buffer.data(), n);
  return output;
}

TEST(NoCompiler, CoreLibraryLinksNoLlvmOrClang) {
  // ldd lists what the dynamic linker loads with the library, dependencies of its
  // dependencies included.
  const std::string listed = run_command("ldd '" STUBJIT_LIBRARY_FILE "' 2>&1");
  ASSERT_NE(listed.find("libc.so"), std::string::npos) << "ldd did not list the library:\n"
                                                       << listed;
  EXPECT_EQ(listed.find("libLLVM"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("libclang"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("lld"), std::string::npos) << listed;
}

TEST(NoCompiler, CompilerPluginIsWhereTheLibraryLooks) {
  // The plugin does link the compiler: the check above would be meaningless if the
  // compiler were linked some other way.
  const std::string listed = run_command("ldd '" STUBJIT_CPU_COMPILER_FILE "' 2>&1");
  EXPECT_NE(listed.find("libLLVM"), std::string::npos) << listed;
  EXPECT_NE(listed.find("libclang-cpp"), std::string::npos) << listed;
}

ChildReport run_suite(const TempDir& cache, const TempDir& scratch, const std::string& name,
                      const std::string& compile_timeout, const std::string& plugin = "") {
  std::vector<std::string> env = {"STUBJIT_CACHE_DIR=" + cache.path(), "STUBJIT_CACHE=on",
                                  "STUBJIT_BACKEND=cpu",
                                  "STUBJIT_COMPILE_TIMEOUT=" + compile_timeout};
  if (!plugin.empty()) env.push_back("STUBJIT_CPU_COMPILER=" + plugin);
  return Child({STUBJIT_CACHE_CHILD, "suite"}, env, scratch / name).wait();
}

TEST(NoCompiler, WarmProcessNeverMapsTheCompiler) {
  TempDir cache, scratch;
  // Compiling in process (no compile worker) maps the plugin and LLVM: what the warm
  // process is checked against.
  const ChildReport cold = run_suite(cache, scratch, "cold.txt", "0");
  ASSERT_EQ(cold.exit_code, 0) << cold.output << cold.errors;
  EXPECT_EQ(cold.fields.at("results"), "ok");
  ASSERT_GE(cold.number("compiles"), 8u);
  EXPECT_EQ(cold.fields.at("compiler_mapped"), "1");
  EXPECT_EQ(cold.fields.at("llvm_mapped"), "1");

  const ChildReport warm = run_suite(cache, scratch, "warm.txt", "0");
  ASSERT_EQ(warm.exit_code, 0) << warm.output << warm.errors;
  EXPECT_EQ(warm.fields.at("results"), "ok");
  EXPECT_EQ(warm.number("compiles"), 0u);
  EXPECT_EQ(warm.number("disk_hits"), cold.number("compiles"));
  EXPECT_EQ(warm.fields.at("compiler_mapped"), "0");
  EXPECT_EQ(warm.fields.at("llvm_mapped"), "0");
  // Every stub it ran came from a sealed memory file, none from a path on disk.
  EXPECT_EQ(warm.number("memfd_stubs"), cold.number("compiles"));
}

TEST(NoCompiler, ColdProcessWithTheWorkerMapsNoCompilerEither) {
  // With the compile worker (the default), compiles run in another process.
  TempDir cache, scratch;
  const ChildReport cold = run_suite(cache, scratch, "cold.txt", "120");
  ASSERT_EQ(cold.exit_code, 0) << cold.output << cold.errors;
  EXPECT_EQ(cold.fields.at("results"), "ok");
  EXPECT_GE(cold.number("compiles"), 8u);
  EXPECT_EQ(cold.fields.at("compiler_mapped"), "0");
  EXPECT_EQ(cold.fields.at("llvm_mapped"), "0");
}

TEST(NoCompiler, AWarmProcessRunsWithoutThePlugin) {
  TempDir cache, scratch;
  const std::string missing = scratch.path() + "/no-such-plugin.so";
  // Cold, the plugin is needed: the first compile fails with a BackendError naming it
  // (in process and through the worker alike), and no result is computed.
  for (const char* timeout : {"0", "120"}) {
    const ChildReport refused = run_suite(cache, scratch, "refused.txt", timeout, missing);
    EXPECT_EQ(refused.exit_code, 3) << refused.output << refused.errors;
    EXPECT_NE(refused.errors.find("STUBJIT_CPU_COMPILER=" + missing), std::string::npos)
        << refused.errors;
    EXPECT_EQ(refused.output.find("results="), std::string::npos);
  }
  // Warm, it is never looked for.
  const ChildReport cold = run_suite(cache, scratch, "cold.txt", "0");
  ASSERT_EQ(cold.exit_code, 0) << cold.output << cold.errors;
  const ChildReport warm = run_suite(cache, scratch, "warm.txt", "0", missing);
  ASSERT_EQ(warm.exit_code, 0) << warm.output << warm.errors;
  EXPECT_EQ(warm.fields.at("results"), "ok");
  EXPECT_EQ(warm.number("compiles"), 0u);
}

}  // namespace
}  // namespace stubjit
