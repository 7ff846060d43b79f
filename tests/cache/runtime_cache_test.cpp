// The disk cache as an application sees it through Runtime: hits, damaged entries,
// unsafe or unusable directories, the off switches, the size cap, the lock timeout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;
using test::NeutralCacheEnv;
using test::ScopedEnv;
using test::TempDir;

RuntimeOptions on_disk(const std::string& dir) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.cache_dir = dir;
  return options;
}

// saxpy over `n` elements (rank 1) or all but the last column of n x n (rank 2: a
// launch that stays rank 2, where whole rows would fuse); checks y = 3x + y0.
void run_saxpy(Runtime& runtime, int rank, std::int64_t n = 32) {
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::vector<std::int64_t> extents =
      rank == 1 ? std::vector<std::int64_t>{n} : std::vector<std::int64_t>{n, n};
  const std::size_t size =
      rank == 1 ? static_cast<std::size_t>(n) : static_cast<std::size_t>(n * n);
  Field x = runtime.allocate<float>(extents);
  Field y = runtime.allocate<float>(extents);
  std::vector<float> xs(size), ys(size), want(size);
  for (std::size_t i = 0; i < size; ++i) {
    xs[i] = static_cast<float>(i);
    ys[i] = 1.0f;
    const bool last_column = rank == 2 && static_cast<std::int64_t>(i) % n == n - 1;
    want[i] = last_column ? 1.0f : 3.0f * xs[i] + 1.0f;
  }
  x.copy_from(xs);
  y.copy_from(ys);
  if (rank == 1)
    saxpy.launch(Domain{n}, 3.0f, x, y);
  else
    saxpy.launch(Domain({Dim{0, n, 1}, Dim{0, n - 1, 1}}), 3.0f, x, y);
  EXPECT_EQ(y.to_vector<float>(), want);
}

// Restores the working directory when it goes.
class WorkingDirectory {
 public:
  WorkingDirectory() : saved_(fs::current_path()) {}
  ~WorkingDirectory() { fs::current_path(saved_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path saved_;
};

// A relative root is made absolute once, when the runtime opens it: a chdir later
// does not send entries into a directory the runtime never inspected or tagged.
TEST(DiskCacheRelativeRoot, StaysWhereTheRuntimeOpenedIt) {
  NeutralCacheEnv neutral;
  TempDir first, second;
  const WorkingDirectory restore;
  fs::current_path(first.path());
  Runtime runtime(on_disk("relcache"));
  EXPECT_EQ(runtime.cache_dir(), (fs::path(first.path()) / "relcache").string());
  fs::current_path(second.path());
  run_saxpy(runtime, 1);
  EXPECT_EQ(runtime.counters().disk_writes, 1u);  // counters() waits for pending writes
  EXPECT_EQ(list_disk_cache(first / "relcache", true).size(), 1u);
  EXPECT_FALSE(fs::exists(second / "relcache"));
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<long>(bytes.size()));
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

const DiskCacheEntry& entry_in(const std::vector<DiskCacheEntry>& entries,
                               const std::string& variant) {
  for (const DiskCacheEntry& entry : entries) {
    if (fs::path(entry.directory).filename() == variant) return entry;
  }
  throw std::runtime_error("no entry for " + variant);
}

class DiskCacheRuntime : public ::testing::Test {
 protected:
  NeutralCacheEnv neutral_;
  TempDir dir_;
};

TEST_F(DiskCacheRuntime, SecondRuntimeLoadsFromDiskWithoutCompiling) {
  {
    Runtime first(on_disk(dir_.path()));
    EXPECT_EQ(first.cache_dir(), dir_.path());
    run_saxpy(first, 1);
    run_saxpy(first, 1);  // memory hit: the disk is not asked again
    const CacheCounters c = first.counters();
    EXPECT_EQ(c.compiles, 1u);
    EXPECT_EQ(c.memory_hits, 1u);
    EXPECT_EQ(c.disk_hits, 0u);
    EXPECT_EQ(c.disk_writes, 1u);
  }
  Runtime second(on_disk(dir_.path()));
  Kernel saxpy = second.kernel(test::saxpy_kernel());
  Field x = second.allocate<float>({4});
  Field y = second.allocate<float>({4});
  x.copy_from(std::vector<float>{1, 2, 3, 4});
  y.copy_from(std::vector<float>{1, 1, 1, 1});
  const LaunchSummary summary = saxpy.launch(Domain{4}, 3.0f, x, y);
  EXPECT_FALSE(summary.compiled);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{4, 7, 10, 13}));
  const CacheCounters c = second.counters();
  EXPECT_EQ(c.compiles, 0u);
  EXPECT_EQ(c.disk_hits, 1u);
  EXPECT_EQ(c.disk_writes, 0u);
}

TEST_F(DiskCacheRuntime, LayoutAndPermissions) {
  {
    Runtime runtime(on_disk(dir_ / "root"));
    run_saxpy(runtime, 2);
  }  // entries are written in the background, and on disk once the runtime is gone
  const std::vector<DiskCacheEntry> entries = list_disk_cache(dir_ / "root", true);
  ASSERT_EQ(entries.size(), 1u);
  const fs::path relative(entries[0].directory);
  EXPECT_EQ(relative.begin()->string(), "cpu");
  EXPECT_EQ(relative.filename().string(), "direct-r2");
  EXPECT_EQ(fs::path(entries[0].path).extension(), ".bin");
  EXPECT_EQ(entries[0].kernel, "saxpy");
  EXPECT_TRUE(entries[0].valid) << entries[0].problem;
  struct stat info {};
  ASSERT_EQ(::stat((dir_ / "root").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(entries[0].path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

// Each kind of damage: detected, reported once at warning level, compiled again,
// replaced, and the results are right.
class DamagedEntry
    : public DiskCacheRuntime,
      public ::testing::WithParamInterface<
          std::pair<const char*, std::function<void(const std::string&, const std::string&)>>> {};

TEST_P(DamagedEntry, IsRecompiledReportedOnceAndReplaced) {
  std::string victim, other;
  {
    Runtime writer(on_disk(dir_.path()));
    run_saxpy(writer, 1);
    run_saxpy(writer, 2);
  }  // entries are on disk once the runtime is gone
  const std::vector<DiskCacheEntry> entries = list_disk_cache(dir_.path(), false);
  ASSERT_EQ(entries.size(), 2u);
  victim = entry_in(entries, "direct-r1").path;
  other = entry_in(entries, "direct-r2").path;
  GetParam().second(victim, other);

  testing::internal::CaptureStderr();
  CacheCounters c;
  {
    Runtime reader(on_disk(dir_.path()));
    run_saxpy(reader, 1);
    run_saxpy(reader, 1);
    run_saxpy(reader, 2);
    c = reader.counters();
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.disk_rejected, 1u);
  EXPECT_EQ(c.compiles, 1u);
  EXPECT_EQ(c.disk_hits, 1u);  // the undamaged rank-2 entry
  EXPECT_EQ(c.disk_writes, 1u);
  EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
  EXPECT_NE(log.find(victim), std::string::npos) << log;

  Runtime after(on_disk(dir_.path()));
  run_saxpy(after, 1);
  EXPECT_EQ(after.counters().disk_hits, 1u);
  EXPECT_EQ(after.counters().compiles, 0u);
  for (const DiskCacheEntry& entry : list_disk_cache(dir_.path(), true)) {
    EXPECT_TRUE(entry.valid) << entry.path << ": " << entry.problem;
  }
}

using Damage = std::function<void(const std::string&, const std::string&)>;

INSTANTIATE_TEST_SUITE_P(
    Kinds, DamagedEntry,
    ::testing::Values(
        std::make_pair("truncated", Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         bytes.resize(bytes.size() / 2);
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("bit_flip_in_payload",
                       Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         bytes[bytes.size() - 100] ^= 0x10;
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("bit_flip_in_key", Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         bytes[50] ^= 0x01;
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("wrong_magic", Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         bytes[0] = 'X';
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("wrong_version", Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         bytes[8] = static_cast<char>(bytes[8] + 1);
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("wrong_key", Damage([](const std::string& victim, const std::string& other) {
                         write_bytes(victim, read_bytes(other));
                       })),
        std::make_pair("zero_length", Damage([](const std::string& victim, const std::string&) {
                         write_bytes(victim, {});
                       })),
        // What a power loss can leave of an entry renamed without fsync: the name and
        // the length, with blocks that never reached the disk reading as zeros.
        std::make_pair("torn_zeroed_tail",
                       Damage([](const std::string& victim, const std::string&) {
                         std::vector<char> bytes = read_bytes(victim);
                         std::fill(bytes.begin() + static_cast<long>(bytes.size() / 2), bytes.end(),
                                   '\0');
                         write_bytes(victim, bytes);
                       })),
        std::make_pair("world_writable_entry",
                       Damage([](const std::string& victim, const std::string&) {
                         ASSERT_EQ(::chmod(victim.c_str(), 0666), 0);
                       })),
        // A terabyte, sparse: refused from its size, never allocated (not bad_alloc).
        std::make_pair("huge_sparse_file",
                       Damage([](const std::string& victim, const std::string&) {
                         fs::resize_file(victim, std::uint64_t(1) << 40);
                       })),
        std::make_pair("symbolic_link",
                       Damage([](const std::string& victim, const std::string& other) {
                         ASSERT_EQ(::unlink(victim.c_str()), 0);
                         ASSERT_EQ(::symlink(other.c_str(), victim.c_str()), 0);
                       }))),
    [](const auto& info) { return std::string(info.param.first); });

TEST_F(DiskCacheRuntime, EntryOfAnotherOwnerIsRefused) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "only root can give a file to another user; the mode checks above run "
                    "for every user";
  }
  {
    Runtime writer(on_disk(dir_.path()));
    run_saxpy(writer, 1);
  }
  const std::string entry = list_disk_cache(dir_.path(), false).at(0).path;
  ASSERT_EQ(::chown(entry.c_str(), 65534, 65534), 0);
  Runtime reader(on_disk(dir_.path()));
  run_saxpy(reader, 1);
  EXPECT_EQ(reader.counters().disk_rejected, 1u);
  EXPECT_EQ(reader.counters().compiles, 1u);
  struct stat info {};
  ASSERT_EQ(::stat(entry.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, ::geteuid());  // replaced by our own
}

// A root others can write to could be planted with entries by another user: it is
// refused, and the run goes on in memory. (Another owner is simulated by the mode,
// which also works when the tests run as root.)
TEST_F(DiskCacheRuntime, WorldOrGroupWritableRootMeansMemoryOnly) {
  for (mode_t mode : {mode_t(0777), mode_t(0770), mode_t(0702)}) {
    const std::string root = dir_ / ("shared" + std::to_string(mode));
    ASSERT_EQ(::mkdir(root.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(root.c_str(), mode), 0);
    testing::internal::CaptureStderr();
    Runtime runtime(on_disk(root));
    run_saxpy(runtime, 1);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(runtime.cache_dir(), "");
    EXPECT_EQ(runtime.counters().compiles, 1u);
    EXPECT_EQ(runtime.counters().disk_writes, 0u);
    EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
    EXPECT_NE(log.find("writable by group or others"), std::string::npos) << log;
    EXPECT_TRUE(fs::is_empty(root));
  }
}

// Unwritable without relying on permission bits (root ignores them): the root's path
// is a regular file, or lies below one.
TEST_F(DiskCacheRuntime, UnusableRootMeansMemoryOnlyWithOneWarning) {
  const std::string file = dir_ / "not-a-directory";
  std::ofstream(file) << "x";
  for (const std::string& root : {file, file + "/stubjit"}) {
    testing::internal::CaptureStderr();
    Runtime runtime(on_disk(root));
    run_saxpy(runtime, 1);
    run_saxpy(runtime, 2);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(runtime.cache_dir(), "");
    EXPECT_EQ(runtime.counters().compiles, 2u);
    EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
    EXPECT_NE(log.find("memory only"), std::string::npos) << log;
  }
}

TEST_F(DiskCacheRuntime, OffSwitches) {
  {
    ScopedEnv env_dir("STUBJIT_CACHE_DIR", dir_ / "from-env");
    ScopedEnv off("STUBJIT_CACHE", "off");
    RuntimeOptions options;
    options.backend = "cpu";
    Runtime runtime(options);
    run_saxpy(runtime, 1);
    EXPECT_EQ(runtime.cache_dir(), "");
    EXPECT_EQ(runtime.counters().compiles, 1u);
    EXPECT_FALSE(fs::exists(dir_ / "from-env"));
    EXPECT_FALSE(disk_cache_info().enabled);
  }
  RuntimeOptions options = on_disk(dir_ / "by-option");
  options.disk_cache = false;
  Runtime runtime(options);
  run_saxpy(runtime, 1);
  EXPECT_EQ(runtime.cache_dir(), "");
  EXPECT_FALSE(fs::exists(dir_ / "by-option"));
}

TEST_F(DiskCacheRuntime, DefaultLocationFollowsXdgThenHome) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", dir_ / "xdg");
    RuntimeOptions options;
    options.backend = "cpu";
    Runtime runtime(options);
    EXPECT_EQ(runtime.cache_dir(), dir_ / "xdg/stubjit");
    run_saxpy(runtime, 1);
  }
  EXPECT_EQ(list_disk_cache(dir_ / "xdg/stubjit", false).size(), 1u);
  ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  ScopedEnv home("HOME", dir_ / "home");
  RuntimeOptions options;
  options.backend = "cpu";
  EXPECT_EQ(Runtime(options).cache_dir(), dir_ / "home/.cache/stubjit");
  ScopedEnv env_dir("STUBJIT_CACHE_DIR", dir_ / "env");
  EXPECT_EQ(Runtime(options).cache_dir(), dir_ / "env");
  const DiskCacheInfo info = disk_cache_info(options);
  EXPECT_TRUE(info.enabled);
  EXPECT_EQ(info.root, dir_ / "env");
  EXPECT_EQ(info.max_bytes, std::uint64_t(1) << 30);
}

void launch_numbered(Runtime& runtime, int j) {
  Field x = runtime.allocate<float>({16});
  Field y = runtime.allocate<float>({16});
  x.copy_from(std::vector<float>(16, 1.0f));
  y.copy_from(std::vector<float>(16, 1.0f));
  runtime.kernel(test::numbered_kernel(j)).launch(Domain{16}, 2.0f, x, y);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(16, 3.0f + static_cast<float>(j)));
}

TEST_F(DiskCacheRuntime, SizeCapEvictsLeastRecentlyUsed) {
  std::uint64_t entry_bytes = 0;
  {
    TempDir probe;
    {
      Runtime runtime(on_disk(probe.path()));
      launch_numbered(runtime, 0);
    }
    entry_bytes = list_disk_cache(probe.path(), false).at(0).bytes;
  }
  RuntimeOptions options = on_disk(dir_.path());
  options.cache_max_bytes = entry_bytes * 5 / 2;  // room for two entries
  {
    Runtime runtime(options);
    for (int j = 0; j < 5; ++j) launch_numbered(runtime, j);
    EXPECT_EQ(runtime.counters().disk_writes, 5u);
  }
  std::uint64_t total = 0;
  for (const DiskCacheEntry& entry : list_disk_cache(dir_.path(), true)) {
    EXPECT_TRUE(entry.valid);
    total += entry.bytes;
  }
  EXPECT_LE(total, options.cache_max_bytes);
  Runtime later(options);
  launch_numbered(later, 4);  // the newest survived
  EXPECT_EQ(later.counters().disk_hits, 1u);
  launch_numbered(later, 0);  // the oldest was evicted
  EXPECT_EQ(later.counters().compiles, 1u);
}

// A specialized value is part of the disk key: a second process finds the stub of a
// value the first compiled, and compiles one it did not.
TEST_F(DiskCacheRuntime, SpecializedValuesAreKeysOfTheirOwn) {
  const KernelSource kernel{
      "times", {specialized<std::int32_t>("k"), inout<std::int32_t>("y")}, "y = y * k;", "", {}};
  const auto run = [&](Runtime& runtime, std::int32_t k) {
    Field y = runtime.allocate<std::int32_t>({8});
    y.copy_from(std::vector<std::int32_t>(8, 5));
    runtime.kernel(kernel).launch(Domain{8}, k, y);
    EXPECT_EQ(y.to_vector<std::int32_t>(), std::vector<std::int32_t>(8, 5 * k)) << k;
  };
  {
    Runtime first(on_disk(dir_.path()));
    run(first, 3);
    run(first, 4);
    EXPECT_EQ(first.counters().disk_writes, 2u);
  }
  Runtime second(on_disk(dir_.path()));
  run(second, 4);
  run(second, 3);
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 2u);
  run(second, 6);
  EXPECT_EQ(second.counters().compiles, 1u);
  EXPECT_EQ(list_disk_cache(dir_.path(), true).size(), 3u);
}

TEST_F(DiskCacheRuntime, CompilesAnywayWhenTheLockCannotBeHad) {
  std::string entry;
  {
    Runtime writer(on_disk(dir_.path()));
    run_saxpy(writer, 1);
  }
  entry = list_disk_cache(dir_.path(), false).at(0).path;
  ASSERT_EQ(::unlink(entry.c_str()), 0);
  // The key's compile lock (docs/cache.md): the byte of <root>/.build.lock at the
  // number in the entry name's first 15 hex digits. Held as if another process hung
  // while compiling.
  const int held = ::open((dir_.path() + "/.build.lock").c_str(), O_RDWR);
  ASSERT_GE(held, 0);
  struct flock byte {};
  byte.l_type = F_WRLCK;
  byte.l_whence = SEEK_SET;
  byte.l_start =
      static_cast<off_t>(std::stoull(fs::path(entry).stem().string().substr(0, 15), nullptr, 16));
  byte.l_len = 1;
  ASSERT_EQ(::fcntl(held, F_OFD_SETLK, &byte), 0);
  // Longer than any compile of this stub, so that only the wait can take that long.
  ScopedEnv wait("STUBJIT_CACHE_LOCK_TIMEOUT_MS", "1500");
  Runtime reader(on_disk(dir_.path()));
  const auto start = std::chrono::steady_clock::now();
  run_saxpy(reader, 1);
  // It waited for that byte, the timeout through, before compiling.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
  EXPECT_EQ(reader.counters().compiles, 1u);
  EXPECT_EQ(reader.counters().disk_writes, 1u);
  ::close(held);
  EXPECT_TRUE(list_disk_cache(dir_.path(), true).at(0).valid);
}

// Options are arguments, not words: {"-DA=3 -DB"} (one argument, A expands to
// "3 -DB") and {"-DA=3", "-DB"} compile differently and are two entries, never one.
TEST_F(DiskCacheRuntime, OptionListsThatJoinAlikeAreDifferentStubs) {
  const KernelSource kernel{"optioned", {inout<float>("y")}, "y = A;", "#define DB 1\n"};
  auto run = [&](const std::vector<std::string>& compiler_options) {
    RuntimeOptions options = on_disk(dir_.path());
    options.compiler_options = compiler_options;
    Runtime runtime(options);
    Field y = runtime.allocate<float>({4});
    y.copy_from(std::vector<float>(4, 0.0f));
    runtime.kernel(kernel).launch(Domain{4}, y);
    return std::make_pair(y.to_vector<float>(), runtime.counters());
  };
  const auto [one_argument, first] = run({"-DA=3 -DB"});
  EXPECT_EQ(one_argument, std::vector<float>(4, 2.0f));  // 3 - DB
  EXPECT_EQ(first.compiles, 1u);
  const auto [two_arguments, second] = run({"-DA=3", "-DB"});
  EXPECT_EQ(two_arguments, std::vector<float>(4, 3.0f));
  EXPECT_EQ(second.compiles, 1u);
  EXPECT_EQ(second.disk_hits, 0u);
  const auto [again, third] = run({"-DA=3", "-DB"});  // and each is found again
  EXPECT_EQ(again, std::vector<float>(4, 3.0f));
  EXPECT_EQ(third.compiles, 0u);
  EXPECT_EQ(third.disk_hits, 1u);
  EXPECT_EQ(list_disk_cache(dir_.path(), true).size(), 2u);
}

// "/root/" and "/root" are one cache; nothing outside it is ever removed through it.
TEST_F(DiskCacheRuntime, TheRootIsNormalisedAndRemovalStaysInside) {
  const std::string spelt = dir_.path() + "//./";
  {
    Runtime runtime(on_disk(spelt));
    EXPECT_EQ(runtime.cache_dir(), dir_.path());
    run_saxpy(runtime, 1);
  }
  const std::vector<DiskCacheEntry> entries = list_disk_cache(spelt, true);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].path.rfind(dir_.path() + "/cpu/", 0), 0u) << entries[0].path;

  TempDir elsewhere;
  const std::string victim = elsewhere / "0123456789abcdef0123456789abcdef.bin";
  std::ofstream(victim) << "precious";
  const std::string relative_victim =
      fs::path(victim).lexically_relative(dir_.path() + "/cpu/t/direct-r1").string();
  for (const std::string& path :
       {dir_.path() + "/../" + fs::path(elsewhere.path()).filename().string() +
            "/0123456789abcdef0123456789abcdef.bin",
        dir_.path() + "/cpu/t/direct-r1/" + relative_victim, victim,
        dir_.path() + "/cpu/0123456789abcdef0123456789abcdef.bin"}) {
    DiskCacheEntry outside;
    outside.path = path;
    try {
      remove_disk_cache_entries(spelt, {entries[0], outside});
      ADD_FAILURE() << "removed " << path;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("not an entry file of the cache root"),
                std::string::npos)
          << error.what();
    }
    EXPECT_TRUE(fs::exists(victim)) << path;
    EXPECT_TRUE(fs::exists(entries[0].path)) << "nothing is removed when one path is refused";
  }
  EXPECT_EQ(remove_disk_cache_entries(spelt, entries), 1u);
  EXPECT_TRUE(list_disk_cache(dir_.path(), false).empty());
}

TEST_F(DiskCacheRuntime, FailedCompilesStoreNothing) {
  Runtime runtime(on_disk(dir_.path()));
  Kernel broken = runtime.kernel({"broken", {inout<float>("y")}, "y = undefined_name;"});
  Field y = runtime.allocate<float>({4});
  EXPECT_THROW(broken.launch(Domain{4}, y), CompileError);
  EXPECT_TRUE(list_disk_cache(dir_.path(), false).empty());
  EXPECT_EQ(runtime.counters().disk_writes, 0u);
}

// Entries are written in the background; a destroyed runtime has written them all. (No
// counters() before the end: it would wait for the writes itself.)
TEST_F(DiskCacheRuntime, EntriesAreOnDiskOnceTheRuntimeIsGone) {
  {
    Runtime first(on_disk(dir_.path()));
    for (int j = 0; j < 4; ++j) launch_numbered(first, j);
  }
  const std::vector<DiskCacheEntry> entries = list_disk_cache(dir_.path(), true);
  EXPECT_EQ(entries.size(), 4u);
  for (const DiskCacheEntry& entry : entries) EXPECT_TRUE(entry.valid) << entry.problem;
  Runtime second(on_disk(dir_.path()));
  for (int j = 0; j < 4; ++j) launch_numbered(second, j);
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 4u);
}

// The compile lock of a key stays held until its entry is on disk: a second runtime
// (as another process would) that asks for the stub right after the first one
// compiled it waits for the entry and loads it, whether the write was done or not.
TEST_F(DiskCacheRuntime, AStubJustCompiledIsFoundByTheNextRuntime) {
  Runtime first(on_disk(dir_.path()));
  Runtime second(on_disk(dir_.path()));
  for (int j = 0; j < 6; ++j) {
    launch_numbered(first, j);
    launch_numbered(second, j);
  }
  EXPECT_EQ(first.counters().compiles, 6u);
  EXPECT_EQ(second.counters().compiles, 0u);
  EXPECT_EQ(second.counters().disk_hits, 6u);
  EXPECT_EQ(first.counters().disk_writes, 6u);
}

// Constructing a runtime touches no disk: the cache is opened by the first launch,
// or by cache_dir(), which opens it to give a true answer.
TEST_F(DiskCacheRuntime, OpensOnFirstUseNotOnConstruction) {
  const std::string root = dir_ / "not/yet/there";
  {
    Runtime runtime(on_disk(root));
    EXPECT_FALSE(fs::exists(dir_ / "not"));
    EXPECT_EQ(runtime.counters().disk_writes, 0u);  // counters do not open it
    EXPECT_FALSE(fs::exists(dir_ / "not"));
    run_saxpy(runtime, 1);
    EXPECT_TRUE(fs::exists(root + "/CACHEDIR.TAG"));
  }
  EXPECT_EQ(list_disk_cache(root, true).size(), 1u);

  const std::string asked = dir_ / "asked";
  Runtime runtime(on_disk(asked));
  EXPECT_FALSE(fs::exists(asked));
  EXPECT_EQ(runtime.cache_dir(), asked);
  EXPECT_TRUE(fs::exists(asked + "/CACHEDIR.TAG"));
}

// A root that cannot be created costs nothing and says nothing until it is needed;
// then it is reported once and the runtime goes on in memory.
TEST_F(DiskCacheRuntime, AnUnusableRootIsReportedAtFirstUse) {
  const std::string file = dir_ / "not-a-directory";
  std::ofstream(file) << "x";
  testing::internal::CaptureStderr();
  Runtime runtime(on_disk(file + "/stubjit"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  run_saxpy(runtime, 1);
  run_saxpy(runtime, 2);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
  EXPECT_NE(log.find("memory only"), std::string::npos) << log;
  EXPECT_EQ(runtime.cache_dir(), "");
  EXPECT_EQ(runtime.counters().compiles, 2u);
  EXPECT_EQ(runtime.counters().disk_writes, 0u);
}

}  // namespace
}  // namespace stubjit
