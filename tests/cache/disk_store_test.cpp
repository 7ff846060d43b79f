// The pieces under the disk cache: settings, private files, the cross-process lock,
// LRU eviction, and DiskCache itself on fake binaries.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_settings.hpp"
#include "cache/cache_tag.hpp"
#include "cache/disk_cache.hpp"
#include "cache/file_lock.hpp"
#include "cache/private_files.hpp"
#include "common/cache_fixtures.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using test::NeutralCacheEnv;
using test::ScopedEnv;
using test::TempDir;

mode_t mode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

// --- settings ----------------------------------------------------------------------

TEST(CacheSettings, RootPrecedence) {
  NeutralCacheEnv neutral;
  ScopedEnv home("HOME", "/home/someone");
  ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  RuntimeOptions options;
  EXPECT_EQ(resolve_cache_settings(options).root, "/home/someone/.cache/stubjit");
  {
    ScopedEnv relative_xdg("XDG_CACHE_HOME", "relative/dir");  // ignored, as XDG says
    EXPECT_EQ(resolve_cache_settings(options).root, "/home/someone/.cache/stubjit");
  }
  ScopedEnv absolute_xdg("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(resolve_cache_settings(options).root, "/xdg/stubjit");
  ScopedEnv dir("STUBJIT_CACHE_DIR", "/from/env");
  EXPECT_EQ(resolve_cache_settings(options).root, "/from/env");
  options.cache_dir = "/from/options";
  EXPECT_EQ(resolve_cache_settings(options).root, "/from/options");
  EXPECT_TRUE(resolve_cache_settings(options).enabled);
}

TEST(CacheSettings, OffSwitches) {
  NeutralCacheEnv neutral;
  RuntimeOptions options;
  options.cache_dir = "/somewhere";
  for (const char* off : {"off", "OFF", "0", "false", "no"}) {
    ScopedEnv cache("STUBJIT_CACHE", off);
    const DiskCacheSettings settings = resolve_cache_settings(options);
    EXPECT_FALSE(settings.enabled) << off;
    EXPECT_NE(settings.disabled_reason.find("STUBJIT_CACHE"), std::string::npos);
  }
  {
    ScopedEnv cache("STUBJIT_CACHE", "on");
    EXPECT_TRUE(resolve_cache_settings(options).enabled);
  }
  options.disk_cache = false;
  EXPECT_FALSE(resolve_cache_settings(options).enabled);
}

TEST(CacheSettings, SizeCap) {
  NeutralCacheEnv neutral;
  RuntimeOptions options;
  EXPECT_EQ(resolve_cache_settings(options).max_bytes, default_cache_max_bytes);
  {
    ScopedEnv cap("STUBJIT_CACHE_MAX_BYTES", "64M");
    EXPECT_EQ(resolve_cache_settings(options).max_bytes, 64u << 20);
    options.cache_max_bytes = 1234;
    EXPECT_EQ(resolve_cache_settings(options).max_bytes, 1234u);
    options.cache_max_bytes = 0;
  }
  ScopedEnv bad("STUBJIT_CACHE_MAX_BYTES", "lots");
  EXPECT_EQ(resolve_cache_settings(options).max_bytes, default_cache_max_bytes);
}

TEST(CacheSettings, ParseByteSize) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("512K"), 512u << 10);
  EXPECT_EQ(parse_byte_size("2GiB"), std::uint64_t(2) << 30);
  EXPECT_EQ(parse_byte_size("3mb"), 3u << 20);
  EXPECT_FALSE(parse_byte_size(""));
  EXPECT_FALSE(parse_byte_size("0"));
  EXPECT_FALSE(parse_byte_size("-5"));
  EXPECT_FALSE(parse_byte_size("12T"));
  EXPECT_FALSE(parse_byte_size("99999999999999999999"));
  EXPECT_FALSE(parse_byte_size("17179869184G"));  // overflows 64 bits
}

TEST(CacheSettings, LockTimeout) {
  NeutralCacheEnv neutral;
  EXPECT_EQ(resolve_cache_settings({}).lock_timeout, std::chrono::milliseconds(60000));
  ScopedEnv wait("STUBJIT_CACHE_LOCK_TIMEOUT_MS", "250");
  EXPECT_EQ(resolve_cache_settings({}).lock_timeout, std::chrono::milliseconds(250));
}

// --- private files ------------------------------------------------------------------

TEST(PrivateFiles, CreatedDirectoriesAre0700) {
  TempDir dir;
  const std::string root = dir / "a/b/stubjit";
  ASSERT_EQ(make_private_directory(root, true), "");
  EXPECT_EQ(mode_of(root), 0700u);
  EXPECT_EQ(mode_of(dir / "a"), 0700u);
}

TEST(PrivateFiles, SharedDirectoriesAreRefused) {
  TempDir dir;
  const std::string shared = dir / "shared";
  ASSERT_EQ(::mkdir(shared.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
  EXPECT_NE(check_private_directory(shared, true).find("writable by group or others"),
            std::string::npos);
  ASSERT_EQ(::chmod(shared.c_str(), 0770), 0);
  EXPECT_NE(make_private_directory(shared, true), "");
  ASSERT_EQ(::chmod(shared.c_str(), 0755), 0);  // readable by others is fine
  EXPECT_EQ(make_private_directory(shared, true), "");
}

TEST(PrivateFiles, RootBehindAFileIsRefused) {
  TempDir dir;
  write_file(dir / "file", "x");
  EXPECT_NE(make_private_directory(dir / "file", true).find("not a directory"), std::string::npos);
  EXPECT_NE(make_private_directory(dir / "file/stubjit", true), "");
}

TEST(PrivateFiles, LinksInsideTheCacheAreRefused) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir / "real").c_str(), 0700), 0);
  ASSERT_EQ(::symlink((dir / "real").c_str(), (dir / "link").c_str()), 0);
  EXPECT_EQ(check_private_directory(dir / "link", true), "");  // the root may be a link
  EXPECT_NE(check_private_directory(dir / "link", false).find("symbolic link"), std::string::npos);
  write_file(dir / "real/entry", "data");
  ASSERT_EQ(::symlink((dir / "real/entry").c_str(), (dir / "entry-link").c_str()), 0);
  EXPECT_EQ(read_private_file(dir / "entry-link", max_entry_bytes).status,
            ReadResult::Status::refused);
}

TEST(PrivateFiles, PublishReplacesAtomicallyAndPrivately) {
  TempDir dir;
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'o', 'l', 'd'}), "");
  ReadResult before = read_private_file(dir / "entry.bin", max_entry_bytes);
  ASSERT_EQ(before.status, ReadResult::Status::ok);
  EXPECT_EQ(std::string(before.bytes.begin(), before.bytes.end()), "old");
  EXPECT_EQ(mode_of(dir / "entry.bin"), 0600u);
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'n', 'e', 'w', '!'}), "");
  ReadResult after = read_private_file(dir / "entry.bin", max_entry_bytes);
  EXPECT_EQ(std::string(after.bytes.begin(), after.bytes.end()), "new!");
  std::size_t files = 0;  // no temporary left behind
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  EXPECT_NE(publish_file(dir / "missing", "entry.bin", {'x'}), "");
}

TEST(PrivateFiles, SharedEntriesAreRefused) {
  TempDir dir;
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'x'}), "");
  ASSERT_EQ(::chmod((dir / "entry.bin").c_str(), 0666), 0);
  const ReadResult read = read_private_file(dir / "entry.bin", max_entry_bytes);
  EXPECT_EQ(read.status, ReadResult::Status::refused);
  EXPECT_NE(read.problem.find("writable by group or others"), std::string::npos);
  EXPECT_EQ(read_private_file(dir / "absent.bin", max_entry_bytes).status,
            ReadResult::Status::missing);
}

// A huge or sparse file is refused from its size, before anything is allocated.
TEST(PrivateFiles, FilesLongerThanTheLimitAreRefusedUnread) {
  TempDir dir;
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'x'}), "");
  std::error_code error;
  std::filesystem::resize_file(dir / "entry.bin", std::uint64_t(1) << 40, error);  // 1 TiB
  if (error) GTEST_SKIP() << "this file system has no sparse 1 TiB files: " << error.message();
  const ReadResult read = read_private_file(dir / "entry.bin", max_entry_bytes);
  EXPECT_EQ(read.status, ReadResult::Status::refused);
  EXPECT_NE(read.problem.find("1099511627776 bytes long"), std::string::npos) << read.problem;
  EXPECT_TRUE(read.bytes.empty());
  // The limit is inclusive.
  ASSERT_EQ(publish_file(dir.path(), "small.bin", {'a', 'b'}), "");
  EXPECT_EQ(read_private_file(dir / "small.bin", 2).status, ReadResult::Status::ok);
  EXPECT_EQ(read_private_file(dir / "small.bin", 1).status, ReadResult::Status::refused);
}

// --- the lock -----------------------------------------------------------------------

TEST(FileLock, ExcludesAndTimesOut) {
  TempDir dir;
  const std::string path = dir / "key.lock";
  FileLock first(path, std::chrono::milliseconds(0));
  ASSERT_TRUE(first.held());
  const auto start = std::chrono::steady_clock::now();
  FileLock second(path, std::chrono::milliseconds(60));
  EXPECT_FALSE(second.held());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
  EXPECT_NE(second.problem().find("timed out"), std::string::npos);
  EXPECT_TRUE(second.timed_out());
  EXPECT_FALSE(FileLock(dir / "missing/key.lock", std::chrono::milliseconds(0)).timed_out());
  first = FileLock();  // released
  FileLock third(path, std::chrono::milliseconds(0));
  EXPECT_TRUE(third.held());
}

// Compile locks are bytes of one file: a byte excludes only the same byte, within one
// process as between processes (each lock is its own open file description).
TEST(FileLock, AByteExcludesOnlyItself) {
  TempDir dir;
  const std::string path = dir / ".build.lock";
  FileLock first = FileLock::on_byte(path, 5, std::chrono::milliseconds(0));
  ASSERT_TRUE(first.held()) << first.problem();
  const auto start = std::chrono::steady_clock::now();
  const FileLock same = FileLock::on_byte(path, 5, std::chrono::milliseconds(60));
  EXPECT_FALSE(same.held());
  EXPECT_TRUE(same.timed_out());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
  const FileLock next = FileLock::on_byte(path, 6, std::chrono::milliseconds(0));
  EXPECT_TRUE(next.held()) << next.problem();
  const FileLock far =
      FileLock::on_byte(path, (std::uint64_t(1) << 60) - 1, std::chrono::milliseconds(0));
  EXPECT_TRUE(far.held()) << far.problem();
  EXPECT_EQ(std::filesystem::file_size(path), 0u);  // locks write nothing
  EXPECT_EQ(mode_of(path), 0600u);
  first = FileLock();  // released: the byte can be had again, the others stay held
  EXPECT_TRUE(FileLock::on_byte(path, 5, std::chrono::milliseconds(0)).held());
  EXPECT_FALSE(FileLock::on_byte(path, 6, std::chrono::milliseconds(0)).held());
}

// Only a regular file of the user's is locked: a planted link is not followed (its
// target is never created), a FIFO is not used.
TEST(FileLock, RefusesWhatIsNotARegularFile) {
  TempDir dir;
  ASSERT_EQ(::symlink((dir / "target").c_str(), (dir / "link.lock").c_str()), 0);
  for (const FileLock& lock :
       {FileLock(dir / "link.lock", std::chrono::milliseconds(0)),
        FileLock::on_byte(dir / "link.lock", 1, std::chrono::milliseconds(0))}) {
    EXPECT_FALSE(lock.held());
    EXPECT_FALSE(lock.timed_out());
    EXPECT_NE(lock.problem().find("cannot open"), std::string::npos) << lock.problem();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "target"));
  ASSERT_EQ(::mkfifo((dir / "fifo.lock").c_str(), 0600), 0);
  for (const FileLock& lock :
       {FileLock(dir / "fifo.lock", std::chrono::milliseconds(0)),
        FileLock::on_byte(dir / "fifo.lock", 1, std::chrono::milliseconds(0))}) {
    EXPECT_FALSE(lock.held());
    EXPECT_NE(lock.problem().find("not a regular file"), std::string::npos) << lock.problem();
  }
  // A hard link to another of the user's files: its contents are not the lock's to write.
  write_file(dir / "precious", "data");
  ASSERT_EQ(::link((dir / "precious").c_str(), (dir / "hard.lock").c_str()), 0);
  for (const FileLock& lock :
       {FileLock(dir / "hard.lock", std::chrono::milliseconds(0)),
        FileLock::on_byte(dir / "hard.lock", 1, std::chrono::milliseconds(0))}) {
    EXPECT_FALSE(lock.held());
    EXPECT_NE(lock.problem().find("with one name"), std::string::npos) << lock.problem();
  }
  std::ifstream precious(dir / "precious");
  std::string kept;
  std::getline(precious, kept);
  EXPECT_EQ(kept, "data");
}

// Releasing a lock releases it even where its open file description lives on in
// another descriptor, as in a child forked while a background write held the lock (the
// child keeps its copies of pending writes' locks and never releases them itself).
TEST(FileLock, ReleasedWhileAnotherDescriptorSharesIt) {
  TempDir dir;
  const std::string bytes = dir / ".build.lock", whole = dir / "whole.lock";
  FileLock byte = FileLock::on_byte(bytes, 9, std::chrono::milliseconds(0));
  FileLock file(whole, std::chrono::milliseconds(0));
  ASSERT_TRUE(byte.held() && file.held());
  const int byte_copy = ::dup(byte.descriptor());  // what fork() gives the child
  const int file_copy = ::dup(file.descriptor());
  ASSERT_GE(byte_copy, 0);
  ASSERT_GE(file_copy, 0);
  byte = FileLock();
  file = FileLock();
  EXPECT_TRUE(FileLock::on_byte(bytes, 9, std::chrono::milliseconds(0)).held());
  EXPECT_TRUE(FileLock(whole, std::chrono::milliseconds(0)).held());
  ::close(byte_copy);
  ::close(file_copy);
}

TEST(FileLock, UnopenableLockIsNoError) {
  FileLock lock("/nonexistent-dir/for/a.lock", std::chrono::milliseconds(10));
  EXPECT_FALSE(lock.held());
  EXPECT_NE(lock.problem().find("cannot open"), std::string::npos);
}

// --- eviction -----------------------------------------------------------------------

TEST(Eviction, RemovesLeastRecentlyUsedUntilUnderNinetyPercent) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  for (int i = 0; i < 10; ++i) {
    const std::string path = sub + "/" + hex_name(i) + entry_suffix;
    write_file(path, std::string(100, 'x'));
    set_age(path, 1000 - i * 10);  // 0 oldest, 9 newest
  }
  write_file(sub + "/" + hex_name(0) + lock_suffix, "");   // the oldest entry's lock
  write_file(sub + "/" + hex_name(20) + lock_suffix, "");  // a lock without an entry
  const std::chrono::milliseconds no_wait(0);
  EXPECT_FALSE(evict_least_recently_used(dir.path(), 1000, "", no_wait).ran);  // at the cap
  const EvictionResult result =
      evict_least_recently_used(dir.path(), 500, sub + "/" + hex_name(1) + ".bin", no_wait);
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.bytes_before, 1000u);
  EXPECT_EQ(result.bytes_after, 400u);  // <= 450
  std::set<std::string> left;
  for (const StoredEntry& entry : scan_entries(dir.path()).entries) left.insert(entry.name);
  // 1 kept as asked, 7..9 the most recent.
  EXPECT_EQ(left, (std::set<std::string>{hex_name(1), hex_name(7), hex_name(8), hex_name(9)}));
  EXPECT_FALSE(std::filesystem::exists(sub + "/" + hex_name(0) + lock_suffix));  // with its entry
  EXPECT_TRUE(std::filesystem::exists(sub + "/" + hex_name(20) + lock_suffix));  // until clear
}

TEST(Eviction, OneProcessEvictsAtATimeTheOthersWait) {
  TempDir dir;
  const std::string big = tagged_root(dir) + "/" + hex_name(0) + entry_suffix;
  write_file(big, std::string(100, 'x'));
  FileLock other_evictor(dir / ".evict.lock", std::chrono::milliseconds(0));
  ASSERT_TRUE(other_evictor.held());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(50)).ran);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));  // waited
  EXPECT_TRUE(std::filesystem::exists(big));
  other_evictor = FileLock();  // the other one is done
  EXPECT_TRUE(evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(50)).ran);
  EXPECT_FALSE(std::filesystem::exists(big));
}

TEST(Eviction, StaleTemporariesAreRemovedFreshOnesKept) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  write_file(sub + "/" + hex_name(0) + entry_suffix, std::string(100, 'x'));
  const std::string stale = sub + "/" + temporary_prefix + hex_name(1) + ".bin.a1B2c3";
  const std::string fresh = sub + "/" + temporary_prefix + hex_name(2) + ".bin.654321";
  write_file(stale, "partial");
  write_file(fresh, "partial");
  set_age(stale, 2 * 3600);
  evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(0));
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(fresh));  // may be another process writing now
}

// --- the size record: no walk per store while the cache is clearly under its cap --

// Writes an entry file of `bytes` that is `seconds_ago` old, as a store would.
std::string stored(const std::string& sub, int i, std::size_t bytes, int seconds_ago) {
  const std::string path = sub + "/" + hex_name(i) + entry_suffix;
  write_file(path, std::string(bytes, 'x'));
  set_age(path, seconds_ago);
  return path;
}

EvictionResult after_store(const TempDir& dir, std::uint64_t cap, const std::string& path) {
  return evict_after_store(dir.path(), cap, std::filesystem::file_size(path), path,
                           std::chrono::milliseconds(0));
}

TEST(SizeRecord, StoresUnderTheCapDoNotWalkCrossingItDoes) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string e0 = stored(sub, 0, 100, 400);
  EXPECT_TRUE(after_store(dir, 1000, e0).walked);  // no record yet
  // Put there behind the record's back: a walk would count it, a store does not.
  const std::string unseen = stored(sub, 9, 5000, 500);
  const std::string e1 = stored(sub, 1, 100, 300);
  const EvictionResult quiet = after_store(dir, 1000, e1);
  EXPECT_FALSE(quiet.walked);
  EXPECT_EQ(quiet.bytes_after, 200u);
  EXPECT_TRUE(std::filesystem::exists(unseen));
  // The record would exceed the cap: walk, find the unseen entry, evict to 900.
  const std::string e2 = stored(sub, 2, 850, 200);
  const EvictionResult crossing = after_store(dir, 1000, e2);
  EXPECT_TRUE(crossing.walked);
  EXPECT_TRUE(crossing.ran);
  EXPECT_EQ(crossing.bytes_before, 6050u);
  EXPECT_EQ(crossing.bytes_after, 850u);
  EXPECT_FALSE(std::filesystem::exists(unseen));
  EXPECT_FALSE(std::filesystem::exists(e0));
  EXPECT_FALSE(std::filesystem::exists(e1));
  EXPECT_TRUE(std::filesystem::exists(e2));
  // The walk's total is the new record.
  const std::string e3 = stored(sub, 3, 10, 100);
  const EvictionResult next = after_store(dir, 1000, e3);
  EXPECT_FALSE(next.walked);
  EXPECT_EQ(next.bytes_after, 860u);
}

TEST(SizeRecord, AWalkComesAtLeastEveryFewHundredStores) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string e0 = stored(sub, 0, 10, 100);
  ASSERT_TRUE(after_store(dir, 1u << 30, e0).walked);
  for (std::uint32_t i = 0; i < stores_between_walks; ++i) {
    ASSERT_FALSE(after_store(dir, 1u << 30, e0).walked) << "store " << i;
  }
  EXPECT_TRUE(after_store(dir, 1u << 30, e0).walked);
}

TEST(SizeRecord, ADamagedOrForgottenRecordMeansAWalk) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string e0 = stored(sub, 0, 10, 100);
  ASSERT_TRUE(after_store(dir, 1000, e0).walked);
  ASSERT_FALSE(after_store(dir, 1000, e0).walked);
  write_file(dir / ".evict.lock", "garbage that is not a size record");
  EXPECT_TRUE(after_store(dir, 1000, e0).walked);
  ASSERT_FALSE(after_store(dir, 1000, e0).walked);
  // Removing entries (cache clear, verify --remove) forgets the record.
  stored(sub, 1, 10, 100);
  EXPECT_EQ(clear_disk_cache(dir.path(), 50), 2u);
  EXPECT_EQ(std::filesystem::file_size(dir / ".evict.lock"), 0u);
  const std::string e2 = stored(sub, 2, 10, 10);
  EXPECT_TRUE(after_store(dir, 1000, e2).walked);
}

TEST(SizeRecord, NothingHappensInAnUntaggedRoot) {
  TempDir dir;
  const std::string sub = dir / "cpu/t/direct-r1";
  ASSERT_EQ(make_private_directory(sub, true), "");
  write_file(dir / "notes.txt", "mine");
  const std::string e0 = stored(sub, 0, 5000, 100);
  const EvictionResult result = after_store(dir, 10, e0);
  EXPECT_FALSE(result.walked);
  EXPECT_TRUE(std::filesystem::exists(e0));
  EXPECT_FALSE(std::filesystem::exists(dir / ".evict.lock"));
}

// Files that are not stubjit's, at every depth and of every kind that resembles its
// own, with entries of stubjit around them. Returns the foreign paths; all are old.
std::vector<std::string> plant_foreign_files(const TempDir& dir, const TempDir& outside) {
  const std::string sub = dir / "cpu/t/direct-r1";
  const std::string hex = hex_name(99);
  for (const char* directory :
       {"mydata", "cpu/t/direct-r1/nested", "cpu/t/direct-r9", "cpu/t/.hidden-r1", "cpu/t/notes"}) {
    std::filesystem::create_directories(dir / directory);
  }
  std::vector<std::string> foreign = {
      dir / "mydata/firmware.bin",                       // the review's example
      dir / "notes.lock",                                // ... and the other one
      dir / (hex + ".bin"),                              // an entry's name at the wrong depth
      dir / ("cpu/" + hex + ".bin"),                     //
      dir / ("cpu/t/" + hex + ".bin"),                   //
      dir / ("cpu/t/direct-r1/nested/" + hex + ".bin"),  // too deep
      dir / ("cpu/t/direct-r9/" + hex + ".bin"),         // no such rank
      dir / ("cpu/t/notes/" + hex + ".bin"),             // no such mode
      dir / ("cpu/t/.hidden-r1/" + hex + ".bin"),        //
      sub + "/firmware.bin",                             // the right depth, a foreign name
      sub + "/notes.lock",                               //
      sub + "/" + hex + ".bin.bak",                      //
      sub + "/" + hex.substr(1) + ".bin",                // 31 digits
      sub + "/0123456789ABCDEF0123456789ABCDEF.bin",     // upper case: not stubjit's
      sub + "/.tmp-download",                            // a temporary file of someone else
      sub + "/.tmp-" + hex + ".bin",                     // no unique suffix
  };
  for (const std::string& path : foreign) {
    write_file(path, std::string(4096, 'f'));
    set_age(path, 30 * 86400);
  }
  // Links are never followed: a linked entry name, a linked layout directory.
  write_file(outside / (hex + ".bin"), "precious");
  std::filesystem::create_directories(outside / "t/direct-r1");
  write_file(outside / ("t/direct-r1/" + hex + ".bin"), "precious");
  ::symlink((outside / (hex + ".bin")).c_str(), (sub + "/" + hex_name(98) + ".bin").c_str());
  ::symlink((outside / "t").c_str(), (dir / "cpu/linked").c_str());
  foreign.push_back(outside / (hex + ".bin"));
  foreign.push_back(outside / ("t/direct-r1/" + hex + ".bin"));
  foreign.push_back(sub + "/" + hex_name(98) + ".bin");  // the link itself
  return foreign;
}

void expect_all_exist(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::symlink_status(path))) << path;
  }
}

// Two real entries, old, in the layout.
std::vector<std::string> plant_entries(const std::string& sub) {
  std::vector<std::string> entries;
  for (int i = 0; i < 2; ++i) {
    entries.push_back(sub + "/" + hex_name(i) + entry_suffix);
    write_file(entries.back(), std::string(100, 'x'));
    set_age(entries.back(), 30 * 86400);
  }
  return entries;
}

TEST(ForeignFiles, SurviveEviction) {
  TempDir dir, outside;
  const std::vector<std::string> entries = plant_entries(tagged_root(dir));
  const std::vector<std::string> foreign = plant_foreign_files(dir, outside);
  const EvictionResult result =
      evict_least_recently_used(dir.path(), 1, "", std::chrono::milliseconds(0));
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.bytes_before, 200u);  // foreign files are not counted either
  EXPECT_EQ(result.removed, 2u);
  for (const std::string& entry : entries) EXPECT_FALSE(std::filesystem::exists(entry));
  expect_all_exist(foreign);
}

TEST(ForeignFiles, SurviveClear) {
  TempDir dir, outside;
  const std::vector<std::string> entries = plant_entries(tagged_root(dir));
  const std::vector<std::string> foreign = plant_foreign_files(dir, outside);
  EXPECT_EQ(clear_disk_cache(dir.path()), 2u);
  for (const std::string& entry : entries) EXPECT_FALSE(std::filesystem::exists(entry));
  expect_all_exist(foreign);
}

TEST(ForeignFiles, SurviveVerifyRemove) {
  TempDir dir, outside;
  const std::vector<std::string> entries = plant_entries(tagged_root(dir));
  const std::vector<std::string> foreign = plant_foreign_files(dir, outside);
  const std::vector<DiskCacheEntry> listed = list_disk_cache(dir.path(), true);
  ASSERT_EQ(listed.size(), 2u);  // only the two entries, both bad (not stubjit entries inside)
  for (const DiskCacheEntry& entry : listed) EXPECT_FALSE(entry.valid);
  EXPECT_EQ(remove_disk_cache_entries(dir.path(), listed), 2u);
  for (const std::string& entry : entries) EXPECT_FALSE(std::filesystem::exists(entry));
  expect_all_exist(foreign);
}

// Lock files go with their entries; a lock without an entry stays until clear.
TEST(LockFiles, GoWithTheirEntries) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::vector<std::string> entries = plant_entries(sub);
  const std::string young = stored(sub, 5, 10, 10);
  std::vector<std::string> locks;
  for (int i : {0, 1, 5, 7}) {  // 7 has no entry: its compile failed
    locks.push_back(sub + "/" + hex_name(i) + lock_suffix);
    write_file(locks.back(), "");
    set_age(locks.back(), i == 5 ? 10 : 30 * 86400);
  }
  DiskCacheEntry first;
  first.path = entries[0];
  EXPECT_EQ(remove_disk_cache_entries(dir.path(), {first}), 1u);
  EXPECT_FALSE(std::filesystem::exists(locks[0]));
  EXPECT_TRUE(std::filesystem::exists(locks[1]));
  EXPECT_EQ(clear_disk_cache(dir.path(), 3600), 1u);  // entry 1; entry 5 is younger
  EXPECT_FALSE(std::filesystem::exists(locks[1]));
  EXPECT_FALSE(std::filesystem::exists(locks[3]));  // as old as asked
  EXPECT_TRUE(std::filesystem::exists(locks[2]));   // young, with a young entry
  EXPECT_TRUE(std::filesystem::exists(young));
  EXPECT_EQ(clear_disk_cache(dir.path()), 1u);
  EXPECT_FALSE(std::filesystem::exists(locks[2]));
}

// A directory stubjit did not create is never cleaned: not by eviction, not by clear.
TEST(ForeignFiles, AnUntaggedRootIsNeverCleaned) {
  TempDir dir;
  const std::string sub = dir / "cpu/t/direct-r1";
  ASSERT_EQ(make_private_directory(sub, true), "");
  const std::vector<std::string> entries = plant_entries(sub);
  write_file(dir / "notes.txt", "mine");
  EXPECT_EQ(inspect_cache_root(dir.path()).kind, RootKind::foreign);
  EXPECT_FALSE(evict_least_recently_used(dir.path(), 1, "", std::chrono::milliseconds(0)).ran);
  try {
    clear_disk_cache(dir.path());
    ADD_FAILURE() << "clear_disk_cache cleaned an untagged root";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("already holds 'notes.txt'"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(remove_disk_cache_entries(dir.path(), list_disk_cache(dir.path(), false)), Error);
  expect_all_exist(entries);
  expect_all_exist({dir / "notes.txt"});
}

// Unreadable and unsafe directories are skipped and reported; the scan goes on.
TEST(Scan, SkipsDirectoriesItCannotUseAndGoesOn) {
  TempDir dir;
  std::vector<std::string> readable;
  for (const char* target : {"a", "b", "c", "d"}) {
    const std::string sub = dir / (std::string("cpu/") + target + "/spread-r2");
    ASSERT_EQ(make_private_directory(sub, true), "");
    readable.push_back(sub + "/" + hex_name(target[0]) + entry_suffix);
    write_file(readable.back(), "x");
  }
  ASSERT_EQ(::chmod((dir / "cpu/b").c_str(), 0777), 0);  // writable by anyone: not entered
  std::string unreadable;
  if (::geteuid() != 0) {  // root reads any directory; tests/tools covers it for root
    unreadable = dir / "cpu/c/spread-r2";
    ASSERT_EQ(::chmod(unreadable.c_str(), 0), 0);
  }
  const EntryScan scan = scan_entries(dir.path());
  std::set<std::string> found;
  for (const StoredEntry& entry : scan.entries) found.insert(entry.path);
  EXPECT_TRUE(found.count(readable[0]) && found.count(readable[3]));
  EXPECT_FALSE(found.count(readable[1]));
  std::map<std::string, std::string> skipped;
  for (const SkippedDirectory& directory : scan.skipped)
    skipped[directory.path] = directory.problem;
  EXPECT_EQ(skipped[dir / "cpu/b"], "is writable by group or others");
  if (!unreadable.empty()) {
    EXPECT_EQ(skipped[unreadable], "cannot be read: Permission denied");
    EXPECT_EQ(skipped.size(), 2u);
  } else {
    EXPECT_EQ(skipped.size(), 1u);
  }
}

TEST(Layout, NamesAreExactlyWhatStubjitWrites) {
  const std::string hex = hex_name(1);
  EXPECT_TRUE(is_entry_name(hex + ".bin"));
  EXPECT_FALSE(is_entry_name(hex + "0.bin"));
  EXPECT_FALSE(is_entry_name("firmware.bin"));
  EXPECT_TRUE(is_lock_name(hex + ".lock"));
  EXPECT_FALSE(is_lock_name("notes.lock"));
  EXPECT_TRUE(is_temporary_name(".tmp-" + hex + ".bin.Ab9xYz"));
  EXPECT_FALSE(is_temporary_name(".tmp-" + hex + ".bin.Ab9xY"));
  EXPECT_FALSE(is_temporary_name(".tmp-download.bin.Ab9xYz"));
  EXPECT_TRUE(is_variant_component("multi-r8"));
  EXPECT_FALSE(is_variant_component("multi-r9"));
  EXPECT_FALSE(is_variant_component("direct-r10"));
  EXPECT_TRUE(is_entry_path("cpu/x86_64-pc-linux-gnu_znver3_1c2d/spread-r4/" + hex + ".bin"));
  EXPECT_FALSE(is_entry_path("cpu/../spread-r4/" + hex + ".bin"));
  EXPECT_FALSE(is_entry_path("cpu/t/spread-r4/x/" + hex + ".bin"));
  EXPECT_EQ(normalize_root("/a/b/"), "/a/b");
  EXPECT_EQ(normalize_root("/a/./b//"), "/a/b");
  EXPECT_EQ(normalize_root("/"), "/");
  EXPECT_EQ(normalize_root(""), "");
}

// --- the root and its tag --------------------------------------------------------------

TEST(CacheRoot, TaggedWhenNewOrEmptyRefusedWhenItHoldsOtherThings) {
  TempDir dir;
  EXPECT_EQ(inspect_cache_root(dir / "new").kind, RootKind::missing);
  EXPECT_EQ(inspect_cache_root(dir.path()).kind, RootKind::claimable);  // empty
  write_file(dir / "notes.txt", "mine");
  EXPECT_EQ(inspect_cache_root(dir.path()).kind, RootKind::foreign);
  // What an older stubjit left before roots were tagged is taken over.
  TempDir legacy;
  ASSERT_EQ(make_private_directory(legacy / "cpu/t/direct-r1", true), "");
  write_file(legacy / ".evict.lock", "");
  EXPECT_EQ(inspect_cache_root(legacy.path()).kind, RootKind::claimable);
  ASSERT_EQ(write_cache_tag(legacy.path()), "");
  EXPECT_EQ(inspect_cache_root(legacy.path()).kind, RootKind::tagged);
  // A root whose tag was removed by hand is taken over again, compile locks and all.
  TempDir untagged;
  ASSERT_EQ(make_private_directory(untagged / "cuda/sm_90/direct-r1", true), "");
  write_file(untagged / ".evict.lock", "");
  write_file(untagged / ".build.lock", "");
  EXPECT_EQ(inspect_cache_root(untagged.path()).kind, RootKind::claimable);
  // Another program's tag is not stubjit's.
  TempDir other;
  write_file(other / "CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# cargo\n");
  EXPECT_EQ(inspect_cache_root(other.path()).kind, RootKind::foreign);
}

// --- DiskCache ----------------------------------------------------------------------

DiskCacheSettings settings_for(const std::string& root) {
  DiskCacheSettings settings;
  settings.root = root;
  return settings;
}

TEST(DiskCache, StoreThenLoad) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir / "root"));
  ASSERT_TRUE(cache);
  EXPECT_EQ(mode_of(dir / "root"), 0700u);
  const DiskKey key = fake_key("k");
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::miss);
  ASSERT_TRUE(cache->store(key, fake_binary(64, 'a')));
  EXPECT_EQ(cache->entry_path(key), dir / ("root/cpu/target/direct-r1/" + key.name + ".bin"));
  EXPECT_EQ(mode_of(dir / "root/cpu/target/direct-r1"), 0700u);
  const DiskCache::Lookup lookup = cache->load(key);
  ASSERT_EQ(lookup.found, DiskCache::Found::hit);
  EXPECT_EQ(lookup.binary.bytes, std::vector<char>(64, 'a'));
}

// A key's compile lock is a byte of <root>/.build.lock: taking it creates no file
// beside the entry, and it excludes another cache on the same root (another process,
// or another runtime of this one) for that key only.
TEST(DiskCache, CompileLockIsAByteOfOneFile) {
  TempDir dir;
  DiskCacheSettings settings = settings_for(dir.path());
  settings.lock_timeout = std::chrono::milliseconds(50);
  auto cache = DiskCache::open(settings);
  auto other = DiskCache::open(settings);
  ASSERT_TRUE(cache && other);
  const DiskKey key = fake_key("k"), second = fake_key("second");
  const FileLock held = cache->lock(key);
  ASSERT_TRUE(held.held()) << held.problem();
  const FileLock waited = other->lock(key);
  EXPECT_FALSE(waited.held());
  EXPECT_TRUE(waited.timed_out());
  EXPECT_TRUE(other->lock(second).held());
  // The byte, computed here from the name: its first 15 hex digits.
  const int fd = ::open((dir / ".build.lock").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const off_t byte = static_cast<off_t>(std::stoull(key.name.substr(0, 15), nullptr, 16));
  const auto holder_of = [fd](off_t at) {
    struct flock range {};  // F_OFD_GETLK wants l_pid 0
    range.l_type = F_WRLCK;
    range.l_whence = SEEK_SET;
    range.l_start = at;
    range.l_len = 1;
    EXPECT_EQ(::fcntl(fd, F_OFD_GETLK, &range), 0);
    return range.l_type;
  };
  EXPECT_EQ(holder_of(byte), F_WRLCK);      // someone holds exactly that byte
  EXPECT_EQ(holder_of(byte + 1), F_UNLCK);  // and not the next
  EXPECT_EQ(holder_of(byte - 1), F_UNLCK);
  ::close(fd);
  ASSERT_TRUE(cache->store(key, fake_binary(8, 'a')));
  std::vector<std::string> names;
  for (const auto& item : std::filesystem::directory_iterator(dir / "cpu/target/direct-r1"))
    names.push_back(item.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{key.name + ".bin"});
}

TEST(DiskCache, AnEntryUnderAnotherKeysNameIsRejected) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir.path()));
  ASSERT_TRUE(cache);
  const DiskKey key = fake_key("k");
  DiskKey impostor = fake_key("other");
  impostor.name = key.name;  // as if the hashes collided
  ASSERT_TRUE(cache->store(impostor, fake_binary(8, 'b')));
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::rejected);
  ASSERT_TRUE(cache->store(key, fake_binary(8, 'c')));  // replaced
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::hit);
}

TEST(DiskCache, UnusableRootsGiveNoCache) {
  TempDir dir;
  write_file(dir / "file", "");
  EXPECT_FALSE(DiskCache::open(settings_for(dir / "file")));
  ASSERT_EQ(::mkdir((dir / "open").c_str(), 0777), 0);
  ASSERT_EQ(::chmod((dir / "open").c_str(), 0777), 0);
  EXPECT_FALSE(DiskCache::open(settings_for(dir / "open")));
  DiskCacheSettings off = settings_for(dir / "fine");
  off.enabled = false;
  EXPECT_FALSE(DiskCache::open(off));
  EXPECT_FALSE(std::filesystem::exists(dir / "fine"));
}

TEST(DiskCache, SharedSubdirectoryIsNotUsed) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir.path()));
  ASSERT_TRUE(cache);
  ASSERT_EQ(make_private_directory(dir / "cpu", true), "");
  ASSERT_EQ(::chmod((dir / "cpu").c_str(), 0777), 0);
  const DiskKey key = fake_key("k");
  EXPECT_FALSE(cache->store(key, fake_binary(8, 'a')));
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::miss);
  EXPECT_FALSE(cache->lock(key).held());
}

TEST(DiskCache, StoreEvictsBeyondTheCap) {
  TempDir dir;
  DiskCacheSettings settings = settings_for(dir.path());
  const std::size_t entry_size = encode_entry(fake_key("k0").text, fake_binary(1000, 'x')).size();
  settings.max_bytes = 3 * entry_size + entry_size / 2;
  auto cache = DiskCache::open(settings);
  ASSERT_TRUE(cache);
  for (int i = 0; i < 6; ++i) {
    const DiskKey key = fake_key("k" + std::to_string(i));
    ASSERT_TRUE(cache->store(key, fake_binary(1000, 'x')));
    set_age(cache->entry_path(key), 100 - i);  // later keys are more recent
    if (i == 2) {  // k0 is used again (before any eviction): it becomes recent
      ASSERT_EQ(cache->load(fake_key("k0")).found, DiskCache::Found::hit);
    }
  }
  std::uint64_t total = 0;
  for (const StoredEntry& entry : scan_entries(dir.path()).entries) total += entry.bytes;
  EXPECT_LE(total, settings.max_bytes);
  EXPECT_EQ(cache->load(fake_key("k0")).found, DiskCache::Found::hit);   // recently used
  EXPECT_EQ(cache->load(fake_key("k5")).found, DiskCache::Found::hit);   // just written
  EXPECT_EQ(cache->load(fake_key("k1")).found, DiskCache::Found::miss);  // least recent
}

TEST(DiskCache, ANonEmptyDirectoryItDidNotCreateIsNotUsed) {
  TempDir dir;
  write_file(dir / "notes.txt", "mine");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(DiskCache::open(settings_for(dir.path())));
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("already holds 'notes.txt'"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir / "CACHEDIR.TAG"));
  // A new root, or an empty one, is tagged and used.
  ASSERT_TRUE(DiskCache::open(settings_for(dir / "new")));
  EXPECT_EQ(inspect_cache_root(dir / "new").kind, RootKind::tagged);
  TempDir empty;
  ASSERT_TRUE(DiskCache::open(settings_for(empty.path())));
  EXPECT_EQ(inspect_cache_root(empty.path()).kind, RootKind::tagged);
}

TEST(DiskCache, ARootSpeltWithATrailingSlashIsNormalised) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir.path() + "/./"));
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->root(), dir.path());
  const DiskKey key = fake_key("k");
  ASSERT_TRUE(cache->store(key, fake_binary(8, 'a')));
  EXPECT_EQ(cache->entry_path(key), dir / ("cpu/target/direct-r1/" + key.name + ".bin"));
}

// A sparse file of a terabyte under an entry's name: rejected (not std::bad_alloc),
// then replaced by the next store.
TEST(DiskCache, AHugeEntryIsRejectedNotRead) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir.path()));
  ASSERT_TRUE(cache);
  const DiskKey key = fake_key("k");
  ASSERT_TRUE(cache->store(key, fake_binary(8, 'a')));
  std::error_code error;
  std::filesystem::resize_file(cache->entry_path(key), std::uint64_t(1) << 40, error);
  if (error) GTEST_SKIP() << "this file system has no sparse 1 TiB files: " << error.message();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::rejected);
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::rejected);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("bytes long, more than the"), std::string::npos) << log;
  EXPECT_EQ(log.find("[warning]"), log.rfind("[warning]")) << "reported once: " << log;
  ASSERT_TRUE(cache->store(key, fake_binary(8, 'b')));
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::hit);
}

TEST(DiskCache, AnEntryBeyondTheLimitsIsNotStored) {
  TempDir dir;
  auto cache = DiskCache::open(settings_for(dir.path()));
  ASSERT_TRUE(cache);
  DiskKey key = fake_key("k");
  key.text += std::string(max_entry_key_bytes, 'k');
  key.name = hash128_hex(key.text);
  EXPECT_FALSE(cache->store(key, fake_binary(8, 'a')));
  EXPECT_FALSE(std::filesystem::exists(cache->entry_path(key)));
  EXPECT_EQ(cache->load(key).found, DiskCache::Found::miss);
}

}  // namespace
}  // namespace stubjit::detail
