// Read-only cache layers inside the chain (settings, the layer store, the order of the
// stores), and the lock-free path on a file system that cannot lock.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cache/binary_store.hpp"
#include "cache/cache_entry.hpp"
#include "cache/cache_index.hpp"
#include "cache/cache_layer.hpp"
#include "cache/cache_settings.hpp"
#include "cache/disk_cache.hpp"
#include "cache/disk_store.hpp"
#include "cache/file_lock.hpp"
#include "common/cache_fixtures.hpp"
#include "common/temp_dir.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

namespace fs = std::filesystem;
using test::NeutralCacheEnv;
using test::ScopedEnv;
using test::TempDir;

DiskCacheSettings settings_for(const std::string& root) {
  DiskCacheSettings settings;
  settings.root = root;
  return settings;
}

// A layer filled the way a runtime fills its own root.
void fill(const std::string& layer, const DiskKey& key, const Binary& binary) {
  auto cache = DiskCache::open(settings_for(layer));
  ASSERT_TRUE(cache);
  ASSERT_TRUE(cache->store(key, binary));
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

// --- settings -----------------------------------------------------------------------

TEST(CacheLayerSettings, TheEnvironmentListIsSplitNormalisedAndDeduplicated) {
  EXPECT_TRUE(parse_cache_layers("").empty());
  EXPECT_TRUE(parse_cache_layers(":::").empty());
  EXPECT_EQ(parse_cache_layers("/site/stubjit::/proj/./cache/:/site/stubjit/"),
            (std::vector<std::string>{"/site/stubjit", "/proj/cache"}));
  EXPECT_EQ(parse_cache_layers("relative"),
            std::vector<std::string>{(fs::current_path() / "relative").string()});
}

TEST(CacheLayerSettings, OptionThenEnvironmentAndOffMeansNone) {
  NeutralCacheEnv neutral;
  ScopedEnv layers("STUBJIT_CACHE_LAYERS", "/env/a:/env/b");
  RuntimeOptions options;
  options.cache_dir = "/mine";
  EXPECT_EQ(resolve_cache_settings(options).layers, (std::vector<std::string>{"/env/a", "/env/b"}));
  options.cache_layers = {"/opt/x/", "/mine", "/opt/x", "/opt/y"};  // the root is no layer
  EXPECT_EQ(resolve_cache_settings(options).layers, (std::vector<std::string>{"/opt/x", "/opt/y"}));
  options.disk_cache = false;
  EXPECT_TRUE(resolve_cache_settings(options).layers.empty());
  options.disk_cache = true;
  ScopedEnv off("STUBJIT_CACHE", "off");
  EXPECT_TRUE(resolve_cache_settings(options).layers.empty());
}

// --- the layer store ----------------------------------------------------------------

TEST(CacheLayerStore, FindsVerifiedEntriesAndWritesNothing) {
  TempDir dir;
  const std::string layer = dir / "layer";
  const DiskKey key = fake_key("k");
  fill(layer, key, fake_binary(64, 'a'));
  const std::string entry = layer + "/" + key.directory + "/" + key.name + entry_suffix;
  set_age(entry, 7200);
  struct stat before {};
  ASSERT_EQ(::stat(entry.c_str(), &before), 0);
  LayerStore store(layer);
  const BinaryStore::Lookup hit = store.find(key);
  ASSERT_EQ(hit.found, BinaryStore::Found::hit);
  EXPECT_EQ(hit.binary->bytes, std::vector<char>(64, 'a'));
  EXPECT_EQ(store.find(fake_key("other")).found, BinaryStore::Found::miss);
  EXPECT_FALSE(
      store.put(fake_key("new"), std::make_shared<const Binary>(fake_binary(8, 'n')), nullptr));
  EXPECT_EQ(store.lock_for_build(key), nullptr);
  struct stat after {};
  ASSERT_EQ(::stat(entry.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);  // not marked as used
  EXPECT_EQ(scan_entries(layer).entries.size(), 1u);       // nothing put
}

// A link is never followed below the layer's root: an entry that is a link to a valid
// entry is rejected, a directory that is a link is not entered.
TEST(CacheLayerStore, LinksInsideALayerAreNotFollowed) {
  TempDir dir;
  const std::string real = dir / "real", layer = dir / "layer";
  const DiskKey key = fake_key("k"), second = fake_key("second");
  fill(real, key, fake_binary(16, 'r'));
  fill(real, second, fake_binary(16, 's'));
  fill(layer, second, fake_binary(16, 's'));
  const std::string leaf = "/" + key.directory + "/";
  ASSERT_EQ(::symlink((real + leaf + key.name + entry_suffix).c_str(),
                      (layer + leaf + key.name + entry_suffix).c_str()),
            0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(LayerStore(layer).find(key).found, BinaryStore::Found::rejected);
  fs::remove_all(layer + "/cpu/target");
  ASSERT_EQ(::symlink((real + "/cpu/target").c_str(), (layer + "/cpu/target").c_str()), 0);
  EXPECT_EQ(LayerStore(layer).find(second).found, BinaryStore::Found::miss);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("is a symbolic link"), std::string::npos) << log;
  EXPECT_NE(log.find(layer + "/cpu/target not read (a symbolic link or not a directory)"),
            std::string::npos)
      << log;
  // The root itself may be a link, as a per-user root may.
  ASSERT_EQ(::symlink(real.c_str(), (dir / "current").c_str()), 0);
  EXPECT_EQ(LayerStore(dir / "current").find(second).found, BinaryStore::Found::hit);
}

// Stores are searched in order: with two layers holding the same key, the first
// serves it, and its hit is copied into memory (not into the disk store, persistent as
// the layer is).
TEST(CacheLayerStore, LayersAreSearchedInOrderAndHitsStayInMemory) {
  TempDir dir;
  const DiskKey key = fake_key("k");
  fill(dir / "first", key, fake_binary(8, '1'));
  fill(dir / "second", key, fake_binary(8, '2'));
  fill(dir / "second", fake_key("only-second"), fake_binary(8, '3'));
  BinaryChain chain;
  chain.add(make_memory_store(8));
  auto disk = std::make_unique<DiskStore>(settings_for(dir / "mine"));
  DiskStore* mine = disk.get();
  chain.add(std::move(disk));
  chain.add(std::make_unique<LayerStore>(dir / "first"));
  chain.add(std::make_unique<LayerStore>(dir / "second"));
  BinaryChain::Found found = chain.find(key);
  ASSERT_TRUE(found.binary);
  EXPECT_EQ(found.store, 2u);
  EXPECT_EQ(found.binary->bytes, std::vector<char>(8, '1'));
  found = chain.find(fake_key("only-second"));
  EXPECT_EQ(found.store, 3u);
  found = chain.find(key);  // now from memory
  EXPECT_EQ(found.store, 0u);
  mine->flush();
  EXPECT_TRUE(scan_entries(dir / "mine").entries.empty());
}

// A damaged entry: rejected with one warning (however often it is asked for), its
// file left as it was.
TEST(CacheLayerStore, ADamagedEntryIsRejectedOnceAndLeftAlone) {
  TempDir dir;
  const std::string layer = dir / "layer";
  const DiskKey key = fake_key("k");
  fill(layer, key, fake_binary(32, 'a'));
  const std::string entry = layer + "/" + key.directory + "/" + key.name + entry_suffix;
  fs::resize_file(entry, fs::file_size(entry) - 1);
  const auto size = fs::file_size(entry);
  LayerStore store(layer);
  testing::internal::CaptureStderr();
  EXPECT_EQ(store.find(key).found, BinaryStore::Found::rejected);
  EXPECT_EQ(store.find(key).found, BinaryStore::Found::rejected);
  store.reject(key, "the device refused it");  // already reported
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
  EXPECT_NE(log.find("rejected (truncated)"), std::string::npos) << log;
  EXPECT_EQ(fs::file_size(entry), size);
}

TEST(CacheLayerStore, OwnerRule) {
  struct stat info {};
  info.st_mode = S_IFREG | 0644;
  info.st_uid = ::geteuid();
  EXPECT_EQ(layer_owner_problem(info, 4242), "");
  info.st_uid = 0;
  EXPECT_EQ(layer_owner_problem(info, 4242), "");
  info.st_uid = 4242;
  EXPECT_EQ(layer_owner_problem(info, 4242), "");
  info.st_mode = S_IFREG | 0664;
  EXPECT_EQ(layer_owner_problem(info, 4242), "is writable by group or others");
  info.st_mode = S_IFREG | 0444;
  info.st_uid = 4343;
  if (::geteuid() != 4343) {
    EXPECT_NE(layer_owner_problem(info, 4242).find("is owned by user 4343"), std::string::npos);
  }
}

// --- the lock-free path -------------------------------------------------------------

// Restores real locks and the log level when it goes.
class SimulatedLockFailure {
 public:
  explicit SimulatedLockFailure(int error) : level_(logger().level()) {
    simulate_lock_failure_for_tests(error);
  }
  SimulatedLockFailure(const SimulatedLockFailure&) = delete;
  SimulatedLockFailure& operator=(const SimulatedLockFailure&) = delete;
  ~SimulatedLockFailure() {
    simulate_lock_failure_for_tests(0);
    logger().set_level(level_);
  }

 private:
  LogLevel level_;
};

// No file system here refuses locks (tmpfs, ext4, overlayfs all lock), so the refusal
// is simulated where fcntl is called: each error a file system without locks gives.
TEST(LockFreePath, AnUnsupportedLockIsNotHeldAndNotWaitedFor) {
  TempDir dir;
  for (const int error : {ENOLCK, EOPNOTSUPP, ENOSYS, EINVAL}) {
    const SimulatedLockFailure unsupported(error);
    const auto start = std::chrono::steady_clock::now();
    const FileLock whole(dir / ".evict.lock", std::chrono::milliseconds(5000));
    const FileLock byte =
        FileLock::on_byte(dir / ".build.lock", 7, std::chrono::milliseconds(5000));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2500));
    for (const FileLock* lock : {&whole, &byte}) {
      EXPECT_FALSE(lock->held());
      EXPECT_TRUE(lock->unsupported());
      EXPECT_FALSE(lock->timed_out());
      EXPECT_GE(lock->descriptor(), 0);  // open for a lock-free holder
      EXPECT_NE(lock->problem().find(std::strerror(error)), std::string::npos) << lock->problem();
    }
  }
  const FileLock real(dir / ".evict.lock", std::chrono::milliseconds(0));
  EXPECT_TRUE(real.held());
  EXPECT_FALSE(real.unsupported());
}

// A disk cache on such a file system: compile locks are not held (the process compiles
// without waiting), eviction still keeps the cap, and it is said once, at info level.
TEST(LockFreePath, TheDiskCacheGoesOnWithoutLocksAndSaysSoOnce) {
  TempDir dir;
  const SimulatedLockFailure unsupported(ENOLCK);
  logger().set_level(LogLevel::info);
  const Binary binary = fake_binary(64, 'x');
  DiskCacheSettings settings = settings_for(dir.path());
  // Room for three entries and a half (every key has the same length).
  settings.max_bytes = encode_entry(fake_key("k0").text, binary).size() * 7 / 2;
  auto cache = DiskCache::open(settings);
  ASSERT_TRUE(cache);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 6; ++i) {
    const DiskKey key = fake_key("k" + std::to_string(i));
    EXPECT_FALSE(cache->lock(key).held());
    ASSERT_TRUE(cache->store(key, binary));
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "goes on without file locks"), 1u) << log;
  EXPECT_EQ(count_of(log, "[warning]"), 0u) << log;
  std::uint64_t total = 0;
  for (const StoredEntry& entry : scan_entries(dir.path()).entries) total += entry.bytes;
  EXPECT_LE(total, settings.max_bytes);
  EXPECT_EQ(cache->load(fake_key("k5")).found, DiskCache::Found::hit);
}

}  // namespace
}  // namespace stubjit::detail
