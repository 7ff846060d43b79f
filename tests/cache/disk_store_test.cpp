// The pieces under the disk cache: settings, private files, the cross-process lock,
// LRU eviction, and DiskCache itself on fake binaries.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_cache.hpp"
#include "cache/file_lock.hpp"
#include "cache/private_files.hpp"
#include "common/temp_dir.hpp"

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

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

DiskKey fake_key(const std::string& kernel) {
  DiskKey key;
  key.directory = "cpu/target/direct-r1";
  key.text = "stubjit-disk-key 1\nkernel " + kernel + " 0\nlayout " + key.directory + "\n";
  key.name = hash128_hex(key.text);
  return key;
}

Binary fake_binary(std::size_t size, char fill) {
  return Binary{"elf-object", std::vector<char>(size, fill)};
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
  EXPECT_EQ(read_private_file(dir / "entry-link").status, ReadResult::Status::refused);
}

TEST(PrivateFiles, PublishReplacesAtomicallyAndPrivately) {
  TempDir dir;
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'o', 'l', 'd'}), "");
  ReadResult before = read_private_file(dir / "entry.bin");
  ASSERT_EQ(before.status, ReadResult::Status::ok);
  EXPECT_EQ(std::string(before.bytes.begin(), before.bytes.end()), "old");
  EXPECT_EQ(mode_of(dir / "entry.bin"), 0600u);
  ASSERT_EQ(publish_file(dir.path(), "entry.bin", {'n', 'e', 'w', '!'}), "");
  ReadResult after = read_private_file(dir / "entry.bin");
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
  const ReadResult read = read_private_file(dir / "entry.bin");
  EXPECT_EQ(read.status, ReadResult::Status::refused);
  EXPECT_NE(read.problem.find("writable by group or others"), std::string::npos);
  EXPECT_EQ(read_private_file(dir / "absent.bin").status, ReadResult::Status::missing);
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
  first = FileLock();  // released
  FileLock third(path, std::chrono::milliseconds(0));
  EXPECT_TRUE(third.held());
}

TEST(FileLock, UnopenableLockIsNoError) {
  FileLock lock("/nonexistent-dir/for/a.lock", std::chrono::milliseconds(10));
  EXPECT_FALSE(lock.held());
  EXPECT_NE(lock.problem().find("cannot open"), std::string::npos);
}

// --- eviction -----------------------------------------------------------------------

void set_age(const std::string& path, int seconds_ago) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const timespec when{
      static_cast<time_t>(std::chrono::duration_cast<std::chrono::seconds>(now).count() -
                          seconds_ago),
      0};
  const timespec times[2] = {when, when};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(Eviction, RemovesLeastRecentlyUsedUntilUnderNinetyPercent) {
  TempDir dir;
  const std::string sub = dir / "cpu/t/direct-r1";
  ASSERT_EQ(make_private_directory(sub, true), "");
  for (int i = 0; i < 10; ++i) {
    const std::string path = sub + "/e" + std::to_string(i) + entry_suffix;
    write_file(path, std::string(100, 'x'));
    set_age(path, 1000 - i * 10);  // e0 oldest, e9 newest
  }
  write_file(sub + "/e3.lock", "");  // not an entry: neither counted nor removed
  const std::chrono::milliseconds no_wait(0);
  EXPECT_FALSE(evict_least_recently_used(dir.path(), 1000, "", no_wait).ran);  // at the cap
  const EvictionResult result =
      evict_least_recently_used(dir.path(), 500, sub + "/e1.bin", no_wait);
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.bytes_before, 1000u);
  EXPECT_EQ(result.bytes_after, 400u);  // <= 450
  std::vector<std::string> left;
  for (const StoredEntry& entry : scan_entries(dir.path())) left.push_back(entry.name);
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"e1", "e7", "e8", "e9"}));  // e1 kept as asked
  EXPECT_TRUE(std::filesystem::exists(sub + "/e3.lock"));
}

TEST(Eviction, OneProcessEvictsAtATimeTheOthersWait) {
  TempDir dir;
  write_file(dir / "big.bin", std::string(100, 'x'));
  FileLock other_evictor(dir / ".evict.lock", std::chrono::milliseconds(0));
  ASSERT_TRUE(other_evictor.held());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(50)).ran);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));  // waited
  EXPECT_TRUE(std::filesystem::exists(dir / "big.bin"));
  other_evictor = FileLock();  // the other one is done
  EXPECT_TRUE(evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(50)).ran);
  EXPECT_FALSE(std::filesystem::exists(dir / "big.bin"));
}

TEST(Eviction, StaleTemporariesAreRemovedFreshOnesKept) {
  TempDir dir;
  write_file(dir / "big.bin", std::string(100, 'x'));
  const std::string stale = dir / (std::string(temporary_prefix) + "a.bin.123456");
  const std::string fresh = dir / (std::string(temporary_prefix) + "b.bin.654321");
  write_file(stale, "partial");
  write_file(fresh, "partial");
  set_age(stale, 2 * 3600);
  evict_least_recently_used(dir.path(), 10, "", std::chrono::milliseconds(0));
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(fresh));  // may be another process writing now
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
  for (const StoredEntry& entry : scan_entries(dir.path())) total += entry.bytes;
  EXPECT_LE(total, settings.max_bytes);
  EXPECT_EQ(cache->load(fake_key("k0")).found, DiskCache::Found::hit);   // recently used
  EXPECT_EQ(cache->load(fake_key("k5")).found, DiskCache::Found::hit);   // just written
  EXPECT_EQ(cache->load(fake_key("k1")).found, DiskCache::Found::miss);  // least recent
}

}  // namespace
}  // namespace stubjit::detail
