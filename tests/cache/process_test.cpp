// Several processes sharing one disk cache: warm starts skip the compiler, and
// concurrent cold starts compile each key once.
#include <gtest/gtest.h>

#include "common/child_process.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache.hpp"

namespace stubjit {
namespace {

using test::Child;
using test::ChildReport;
using test::TempDir;

std::vector<std::string> child_env(const TempDir& cache, const std::string& cap = "1G") {
  return {"STUBJIT_CACHE_DIR=" + cache.path(), "STUBJIT_CACHE=on", "STUBJIT_BACKEND=cpu",
          "STUBJIT_CACHE_MAX_BYTES=" + cap};
}

ChildReport run_child(const TempDir& cache, const TempDir& scratch,
                      const std::vector<std::string>& arguments, const std::string& name) {
  std::vector<std::string> argv{STUBJIT_CACHE_CHILD};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return Child(argv, child_env(cache), scratch / name).wait();
}

TEST(WarmStart, SecondProcessCompilesNothingAndComputesTheSame) {
  TempDir cache, scratch;
  const ChildReport cold = run_child(cache, scratch, {"suite"}, "cold.txt");
  ASSERT_EQ(cold.exit_code, 0) << cold.output << cold.errors;
  EXPECT_EQ(cold.fields.at("results"), "ok");
  const std::uint64_t stubs = cold.number("compiles");
  EXPECT_GE(stubs, 8u);
  EXPECT_EQ(cold.number("disk_hits"), 0u);
  EXPECT_EQ(cold.number("disk_writes"), stubs);

  const ChildReport warm = run_child(cache, scratch, {"suite"}, "warm.txt");
  ASSERT_EQ(warm.exit_code, 0) << warm.output << warm.errors;
  EXPECT_EQ(warm.fields.at("results"), "ok");
  EXPECT_EQ(warm.number("compiles"), 0u);
  EXPECT_EQ(warm.number("disk_hits"), stubs);
  EXPECT_EQ(warm.number("disk_writes"), 0u);
  EXPECT_EQ(warm.number("disk_rejected"), 0u);
  EXPECT_EQ(warm.fields.at("digest"), cold.fields.at("digest"));

  const std::vector<DiskCacheEntry> entries = list_disk_cache(cache.path(), true);
  EXPECT_EQ(entries.size(), stubs);
  for (const DiskCacheEntry& entry : entries) {
    EXPECT_TRUE(entry.valid) << entry.path << ": " << entry.problem;
    EXPECT_EQ(entry.format, "elf-shared-object");
  }
}

TEST(ConcurrentColdStart, EightProcessesCompileEachKeyOnce) {
  TempDir cache, scratch;
  constexpr int processes = 8;
  constexpr int kernels = 20;
  std::vector<Child> children;
  children.reserve(processes);
  for (int p = 0; p < processes; ++p) {
    // Pairs of processes begin at the same kernel, the pairs at different ones: both
    // waiting on one compile and compiling different keys side by side happen.
    const int start = (p % 4) * 5;
    // At info level a child says why it compiled without the lock or did not write.
    std::vector<std::string> env = child_env(cache);
    env.push_back("STUBJIT_LOG=info");
    children.emplace_back(std::vector<std::string>{STUBJIT_CACHE_CHILD, "many",
                                                   std::to_string(kernels), std::to_string(start)},
                          env, scratch / ("child" + std::to_string(p) + ".txt"));
  }
  std::uint64_t compiles = 0, hits = 0, rejected = 0, writes = 0;
  std::string reports;
  for (Child& child : children) {
    const ChildReport report = child.wait();
    ASSERT_EQ(report.exit_code, 0) << report.output << report.errors;
    EXPECT_EQ(report.fields.at("results"), "ok");
    compiles += report.number("compiles");
    hits += report.number("disk_hits");
    rejected += report.number("disk_rejected");
    writes += report.number("disk_writes");
    reports += report.output + report.errors;
  }
  EXPECT_EQ(compiles, std::uint64_t(kernels)) << reports;
  EXPECT_EQ(writes, std::uint64_t(kernels)) << reports;
  EXPECT_EQ(hits, std::uint64_t(processes * kernels - kernels)) << reports;
  EXPECT_EQ(rejected, 0u);
  const std::vector<DiskCacheEntry> entries = list_disk_cache(cache.path(), true);
  EXPECT_EQ(entries.size(), std::size_t(kernels));
  for (const DiskCacheEntry& entry : entries) {
    EXPECT_TRUE(entry.valid) << entry.path << ": " << entry.problem;
  }
}

// A cap of a few entries: processes evict while others read and write. Entries go
// and come back (compiled again), but no process reads a damaged one or computes a
// wrong result.
TEST(ConcurrentEviction, ReadersNeverSeeADamagedEntry) {
  TempDir cache, scratch;
  constexpr int processes = 6;
  std::vector<Child> children;
  children.reserve(processes);
  for (int p = 0; p < processes; ++p) {
    children.emplace_back(
        std::vector<std::string>{STUBJIT_CACHE_CHILD, "many", "20", std::to_string(p * 3)},
        child_env(cache, "12K"), scratch / ("child" + std::to_string(p) + ".txt"));
  }
  for (Child& child : children) {
    const ChildReport report = child.wait();
    ASSERT_EQ(report.exit_code, 0) << report.output << report.errors;
    EXPECT_EQ(report.fields.at("results"), "ok");
    EXPECT_EQ(report.number("disk_rejected"), 0u);
  }
  std::uint64_t total = 0;
  for (const DiskCacheEntry& entry : list_disk_cache(cache.path(), true)) {
    EXPECT_TRUE(entry.valid) << entry.path << ": " << entry.problem;
    total += entry.bytes;
  }
  EXPECT_LE(total, 12u << 10);  // every writer evicts after its write
}

// stderr without the lines a sanitizer's runtime writes ("==PID==..."): in the
// sanitizer pass, LeakSanitizer's check at the exit of a forked child notes that the
// parent's threads are not there to suspend.
std::string without_sanitizer_notes(const std::string& errors) {
  std::string kept;
  std::size_t begin = 0;
  while (begin < errors.size()) {
    std::size_t end = errors.find('\n', begin);
    end = end == std::string::npos ? errors.size() : end + 1;
    const std::string line = errors.substr(begin, end - begin);
    if (line.rfind("==", 0) != 0) kept += line;
    begin = end;
  }
  return kept;
}

// A process that ends with its runtime alive — std::exit, main returning with the
// runtime leaked, or after forking a child that calls std::exit — still leaves every
// entry it compiled on disk: the background writer is drained at exit. The forked
// child exits at once (it has no writer thread to wait for, and does not write the
// parent's entries).
TEST(BackgroundWrites, AProcessEndingWithItsRuntimeAliveLeavesItsEntries) {
  for (const std::string end : {"exit", "leak", "fork"}) {
    TempDir cache, scratch;
    const ChildReport cold = run_child(cache, scratch, {"many", "6", "0", end}, end + ".txt");
    ASSERT_EQ(cold.exit_code, 0) << end << ": " << cold.output << cold.errors;
    EXPECT_EQ(cold.fields.at("results"), "ok") << end;
    if (end == "fork") {
      EXPECT_EQ(cold.fields.at("child_exit"), "0");
    }
    EXPECT_EQ(without_sanitizer_notes(cold.errors), "") << end;
    const std::vector<DiskCacheEntry> entries = list_disk_cache(cache.path(), true);
    EXPECT_EQ(entries.size(), 6u) << end;
    for (const DiskCacheEntry& entry : entries) EXPECT_TRUE(entry.valid) << entry.problem;

    const ChildReport warm = run_child(cache, scratch, {"many", "6", "0"}, end + "-warm.txt");
    ASSERT_EQ(warm.exit_code, 0) << end << ": " << warm.output << warm.errors;
    EXPECT_EQ(warm.number("compiles"), 0u) << end;
    EXPECT_EQ(warm.number("disk_hits"), 6u) << end;
    EXPECT_EQ(warm.fields.at("digest"), cold.fields.at("digest")) << end;
  }
}

// A write that fails in the background (here: no file of the process may grow past
// 2 KiB, so entries cannot be written while lock files and the log can) is reported
// once, and the run goes on in memory with the right results.
TEST(BackgroundWrites, AFailedWriteIsReportedOnceAndTheRunGoesOn) {
  TempDir cache, scratch;
  // The root is claimed and tagged first, by a process without the limit.
  // Kernels padded (in their keys) past the file-size limit: their entries cannot be
  // written, while their binaries, smaller than the limit, still load.
  const std::string limit = "65536", padding = "131072";
  const ChildReport claim =
      run_child(cache, scratch, {"many", "1", "0", "destroy", "0", padding}, "claim.txt");
  ASSERT_EQ(claim.exit_code, 0) << claim.output << claim.errors;
  ASSERT_GT(list_disk_cache(cache.path(), true).at(0).bytes, 65536u)
      << "entries must be larger than the limit for this test to mean anything";

  const ChildReport limited =
      run_child(cache, scratch, {"many", "5", "0", "destroy", limit, padding}, "limited.txt");
  ASSERT_EQ(limited.exit_code, 0) << limited.output << limited.errors;
  EXPECT_EQ(limited.fields.at("results"), "ok");
  EXPECT_EQ(limited.number("disk_hits"), 1u);  // add0, from the first process
  EXPECT_EQ(limited.number("compiles"), 4u);
  EXPECT_EQ(limited.number("disk_writes"), 0u);
  std::size_t warnings = 0;
  for (std::size_t at = limited.errors.find("[warning]"); at != std::string::npos;
       at = limited.errors.find("[warning]", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << limited.errors;
  EXPECT_NE(limited.errors.find("cannot write to the disk cache"), std::string::npos)
      << limited.errors;
  EXPECT_EQ(list_disk_cache(cache.path(), true).size(), 1u);
}

}  // namespace
}  // namespace stubjit
