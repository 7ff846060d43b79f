// Cache cleanup never acts through a link and never on another user's file: the size
// record, entries reached through a linked directory at any level of the layout, a
// directory swapped for a link between the scan and the removal, files of another
// user. Implausible files (sparse, from the future) are evicted first, not last.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cache/cache_index.hpp"
#include "cache/cache_layout.hpp"
#include "common/cache_fixtures.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache.hpp"

namespace stubjit::detail {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

DiskCacheEntry entry_at(const std::string& path) {
  DiskCacheEntry entry;
  entry.path = path;
  return entry;
}

// With `victim` planted at <dir>/.evict.lock (a link of some kind): verify --remove and
// clear reset no size record through it, and eviction refuses it and says why (so
// that a runtime can warn that the cap is not enforced), the problem naming `why`.
void expect_size_record_not_written_through(const TempDir& dir, const std::string& sub,
                                            const std::string& victim, const std::string& why) {
  write_file(sub + "/" + hex_name(1) + entry_suffix, "entry");
  write_file(sub + "/" + hex_name(2) + entry_suffix, "entry");
  EXPECT_EQ(remove_disk_cache_entries(dir.path(), {entry_at(sub + "/" + hex_name(1) + ".bin")}),
            1u);
  EXPECT_EQ(clear_disk_cache(dir.path()), 1u);
  write_file(sub + "/" + hex_name(3) + entry_suffix, "entry");
  const EvictionResult evicted =
      evict_least_recently_used(dir.path(), 1, "", std::chrono::milliseconds(0));
  EXPECT_FALSE(evicted.ran);
  EXPECT_NE(evicted.lock_problem.find(why), std::string::npos) << evicted.lock_problem;
  EXPECT_EQ(contents(victim), "must stay");
}

TEST(CleanupSafety, TheSizeRecordIsNeverTruncatedThroughALink) {
  TempDir dir, outside;
  const std::string sub = tagged_root(dir);
  const std::string victim = outside / "victim.txt";
  write_file(victim, "must stay");
  ASSERT_EQ(::symlink(victim.c_str(), (dir / ".evict.lock").c_str()), 0);
  expect_size_record_not_written_through(dir, sub, victim, ".evict.lock");
  EXPECT_TRUE(fs::is_symlink(dir / ".evict.lock"));
}

// A hard link to another of the user's files is refused as well.
TEST(CleanupSafety, TheSizeRecordIsNeverTruncatedThroughAHardLink) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string victim = dir / "victim.txt";  // a link needs the same file system
  write_file(victim, "must stay");
  ASSERT_EQ(::link(victim.c_str(), (dir / ".evict.lock").c_str()), 0);
  expect_size_record_not_written_through(dir, sub, victim, "one name");
}

// <root>/cpu, <root>/cpu/t or <root>/cpu/t/direct-r1 a link elsewhere: an entry path
// through it is not removed, by remove_disk_cache_entries or by clear.
TEST(CleanupSafety, NothingIsRemovedThroughALinkedLayoutDirectory) {
  const std::string hex = hex_name(7);
  for (int level = 0; level < 3; ++level) {
    SCOPED_TRACE(level);
    TempDir dir, outside;
    EXPECT_EQ(write_cache_tag(dir.path()), "");
    const std::vector<std::string> parts = {"cpu", "t", "direct-r1"};
    // The real directories down to the linked level, then the link, then the rest
    // outside.
    std::string real = dir.path();
    for (int i = 0; i < level; ++i) {
      real += "/" + parts[static_cast<std::size_t>(i)];
      ASSERT_EQ(make_private_directory(real, true), "");
    }
    std::string elsewhere = outside.path();
    for (int i = level + 1; i < 3; ++i) elsewhere += "/" + parts[static_cast<std::size_t>(i)];
    fs::create_directories(elsewhere);
    const std::string precious = elsewhere + "/" + hex + entry_suffix;
    write_file(precious, "precious");
    set_age(precious, 30 * 86400);
    ASSERT_EQ(::symlink(outside.path().c_str(),
                        (real + "/" + parts[static_cast<std::size_t>(level)]).c_str()),
              0);
    const std::string through = dir / ("cpu/t/direct-r1/" + hex + ".bin");
    ASSERT_TRUE(fs::exists(through));  // the path does reach it
    EXPECT_EQ(remove_disk_cache_entries(dir.path(), {entry_at(through)}), 0u);
    EXPECT_EQ(clear_disk_cache(dir.path()), 0u);
    EXPECT_EQ(contents(precious), "precious");
  }
}

// The gap between a scan and the removal: the directory the scan saw is swapped for a
// link to one with the same names; removing what the scan found touches nothing there.
TEST(CleanupSafety, ADirectorySwappedForALinkAfterTheScanIsNotRemovedThrough) {
  TempDir dir, outside;
  const std::string sub = tagged_root(dir);
  const std::string stem = hex_name(3);
  write_file(sub + "/" + stem + entry_suffix, "ours");
  const LayoutScan scan = scan_layout(dir.path());
  ASSERT_EQ(scan.files.size(), 1u);
  fs::create_directories(outside / "direct-r1");
  const std::string precious = outside / ("direct-r1/" + stem + ".bin");
  write_file(precious, "precious");
  fs::rename(sub, dir / "cpu/t/moved-away");
  ASSERT_EQ(::symlink((outside / "direct-r1").c_str(), sub.c_str()), 0);
  EXPECT_FALSE(remove_entry(dir.path(), scan.files[0].directory, stem));
  EXPECT_EQ(contents(precious), "precious");
}

// The rule: stubjit removes only its own files, those of the effective user. An entry
// of another user in the layout (only root can put one there) stays, through clear,
// verify --remove and eviction alike.
TEST(CleanupSafety, AnotherUsersEntryIsNeverRemoved) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string theirs = sub + "/" + hex_name(4) + entry_suffix;
  const std::string ours = sub + "/" + hex_name(5) + entry_suffix;
  write_file(theirs, std::string(100, 't'));
  write_file(ours, std::string(100, 'o'));
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);  // nobody
  set_age(theirs, 30 * 86400);
  set_age(ours, 30 * 86400);
  EXPECT_EQ(remove_disk_cache_entries(dir.path(), {entry_at(theirs)}), 0u);
  const EvictionResult evicted =
      evict_least_recently_used(dir.path(), 1, "", std::chrono::milliseconds(0));
  EXPECT_TRUE(evicted.ran);
  EXPECT_EQ(evicted.bytes_before, 100u);  // theirs is not counted either
  EXPECT_EQ(evicted.removed, 1u);         // ours
  EXPECT_EQ(clear_disk_cache(dir.path()), 0u);
  EXPECT_TRUE(fs::exists(theirs));
  EXPECT_FALSE(fs::exists(ours));
  // Listed as skipped, with whose it is, so that `stubjit cache verify` reports it.
  std::vector<SkippedCacheDirectory> skipped;
  EXPECT_TRUE(list_disk_cache(dir.path(), true, &skipped).empty());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].path, theirs);
  EXPECT_NE(skipped[0].problem.find("owned by user 65534"), std::string::npos)
      << skipped[0].problem;
}

// A 1 TiB sparse file dated in the future, named like an entry: it counts the blocks
// it takes (none), and goes first, so the healthy entries that are most recent stay.
TEST(CleanupSafety, ASparseFileFromTheFutureIsEvictedFirst) {
  TempDir dir;
  const std::string sub = tagged_root(dir);
  const std::string planted = sub + "/" + hex_name(50) + entry_suffix;
  {
    const int fd = ::open(planted.c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t(1) << 40), 0);
    ::close(fd);
  }
  set_age(planted, -86400);  // tomorrow
  std::vector<std::string> healthy;
  for (int i = 0; i < 5; ++i) {
    healthy.push_back(sub + "/" + hex_name(i) + entry_suffix);
    write_file(healthy.back(), std::string(100, 'h'));
    set_age(healthy.back(), 100 - i * 10);  // 0 oldest, 4 newest
  }
  const EvictionResult result =
      evict_least_recently_used(dir.path(), 450, "", std::chrono::milliseconds(0));
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.bytes_before, 500u);  // the sparse file takes no block
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_FALSE(fs::exists(healthy[0]));  // the least recent, to get under 90 % of 450
  for (std::size_t i = 1; i < healthy.size(); ++i) EXPECT_TRUE(fs::exists(healthy[i])) << i;
}

}  // namespace
}  // namespace stubjit::detail
