// Read-only cache layers as an application sees them through Runtime: a layer that
// another runtime filled serves a run with an empty per-user root, and is never
// written, re-dated, evicted or trusted when it is damaged or writable by others.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/error.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;
using test::NeutralCacheEnv;
using test::ScopedEnv;
using test::TempDir;

RuntimeOptions with_layers(const std::string& root, std::vector<std::string> layers) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.cache_dir = root;
  options.cache_layers = std::move(layers);
  return options;
}

// y = 2x + y + j over 16 elements, checked against the arithmetic done here.
void launch_numbered(Runtime& runtime, int j) {
  Field x = runtime.allocate<float>({16});
  Field y = runtime.allocate<float>({16});
  std::vector<float> xs(16), want(16);
  for (int i = 0; i < 16; ++i) {
    xs[i] = static_cast<float>(i);
    want[i] = 2.0f * xs[i] + 1.0f + static_cast<float>(j);
  }
  x.copy_from(xs);
  y.copy_from(std::vector<float>(16, 1.0f));
  runtime.kernel(test::numbered_kernel(j)).launch(Domain{16}, 2.0f, x, y);
  EXPECT_EQ(y.to_vector<float>(), want) << "kernel " << j;
}

// A layer as a site fills it: a runtime of its own compiles kernels `from` to `to`
// into `layer`, whose entries are then dated an hour back (so that a hit that marked
// one as used would show) and made read-only.
void fill_layer(const std::string& layer, int from, int to) {
  {
    Runtime filler(with_layers(layer, {}));
    for (int j = from; j <= to; ++j) launch_numbered(filler, j);
    ASSERT_EQ(filler.counters().disk_writes, static_cast<std::uint64_t>(to - from + 1));
  }
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const DiskCacheEntry& entry : list_disk_cache(layer, false))
    fs::last_write_time(entry.path, an_hour_ago);
}

// chmod -R a-w (what a site does to a layer it publishes); TempDir restores the
// directories' modes for its cleanup.
void make_read_only(const std::string& root) {
  constexpr fs::perms write_bits =
      fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    if (!item.is_symlink()) fs::permissions(item.path(), write_bits, fs::perm_options::remove);
  }
  fs::permissions(root, write_bits, fs::perm_options::remove);
}

// Everything under a directory, as lstat sees it, and each file's bytes: what a run
// must leave as it found. (Root ignores permission bits: a read-only mode alone would
// not show a write by a test that runs as root.)
using Snapshot = std::map<std::string, std::tuple<mode_t, std::int64_t, std::string>>;

Snapshot snapshot(const std::string& root) {
  Snapshot files;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    struct stat info {};
    EXPECT_EQ(::lstat(item.path().c_str(), &info), 0);
    std::string bytes;
    if (S_ISREG(info.st_mode)) {
      std::ifstream in(item.path(), std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::int64_t mtime_ns =
        std::int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    files[fs::relative(item.path(), root).string()] = {info.st_mode, mtime_ns, bytes};
  }
  return files;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

class CacheLayers : public ::testing::Test {
 protected:
  NeutralCacheEnv neutral_;
  TempDir dir_;
};

// The scenario: an empty per-user root, a layer another runtime filled and made
// read-only. The run compiles nothing, its results are right, and afterwards the layer
// is byte for byte and date for date as it was, and the per-user root holds no copy.
TEST_F(CacheLayers, AFilledLayerServesARunWithAnEmptyRoot) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 2);
  make_read_only(layer);
  const Snapshot before = snapshot(layer);
  {
    Runtime runtime(with_layers(dir_ / "mine", {layer}));
    for (int j = 0; j <= 2; ++j) launch_numbered(runtime, j);
    launch_numbered(runtime, 1);  // from memory now
    const CacheCounters c = runtime.counters();
    EXPECT_EQ(c.compiles, 0u);
    EXPECT_EQ(c.layer_hits, 3u);
    EXPECT_EQ(c.disk_hits, 3u);  // layer hits count as disk hits too
    EXPECT_EQ(c.memory_hits, 1u);
    EXPECT_EQ(c.disk_writes, 0u);
    EXPECT_EQ(c.disk_rejected, 0u);
  }
  EXPECT_EQ(snapshot(layer), before);
  EXPECT_TRUE(list_disk_cache(dir_ / "mine", false).empty());
}

// A stub the layer lacks is compiled and written to the per-user root; with a cap so
// small that every store evicts, only the root's entries go, never the layer's.
TEST_F(CacheLayers, EvictionNeverTouchesALayer) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 1);
  make_read_only(layer);
  const Snapshot before = snapshot(layer);
  RuntimeOptions options = with_layers(dir_ / "mine", {layer});
  options.cache_max_bytes = 1;  // every store evicts all the others
  {
    Runtime runtime(options);
    for (int j : {2, 3, 0, 4, 1}) launch_numbered(runtime, j);
    const CacheCounters c = runtime.counters();
    EXPECT_EQ(c.compiles, 3u);
    EXPECT_EQ(c.layer_hits, 2u);
    EXPECT_EQ(c.disk_writes, 3u);
  }
  EXPECT_EQ(snapshot(layer), before);
  EXPECT_LE(list_disk_cache(dir_ / "mine", false).size(), 1u);  // the last written at most
  EXPECT_EQ(list_disk_cache(layer, true).size(), 2u);
}

// A damaged entry in a layer is rejected with one warning, compiled instead (right
// result), and the layer's file stays as it is; the compiled entry goes to the per-user
// root, where the next run finds it first.
TEST_F(CacheLayers, ADamagedLayerEntryIsCompiledInsteadAndLeftAlone) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 0);
  const std::string entry = list_disk_cache(layer, false).at(0).path;
  {
    std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('\x5a');  // the payload's last byte: the checksum no longer matches
  }
  make_read_only(layer);
  const Snapshot before = snapshot(layer);
  {
    testing::internal::CaptureStderr();
    Runtime runtime(with_layers(dir_ / "mine", {layer}));
    launch_numbered(runtime, 0);
    const CacheCounters c = runtime.counters();
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(c.compiles, 1u);
    EXPECT_EQ(c.layer_hits, 0u);
    EXPECT_EQ(c.disk_rejected, 1u);
    EXPECT_EQ(c.disk_writes, 1u);
    EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
    EXPECT_NE(log.find("cache layer entry " + entry + " rejected (checksum mismatch)"),
              std::string::npos)
        << log;
  }
  EXPECT_EQ(snapshot(layer), before);
  Runtime next(with_layers(dir_ / "mine", {layer}));
  launch_numbered(next, 0);
  EXPECT_EQ(next.counters().compiles, 0u);
  EXPECT_EQ(next.counters().disk_rejected, 0u);  // the root's entry, found first
  EXPECT_EQ(next.counters().layer_hits, 0u);
}

// A damaged entry in the per-user root, while a layer holds the same stub: the layer's
// binary runs (nothing compiled) and replaces the damaged entry, so the next run
// finds a good one in the root and warns no more.
TEST_F(CacheLayers, ADamagedEntryOfTheRootIsRepairedFromALayer) {
  const std::string layer = dir_ / "site", mine = dir_ / "mine";
  fill_layer(layer, 0, 0);
  make_read_only(layer);
  fill_layer(mine, 0, 0);  // the same stub in the user's own root, then damaged
  const std::string entry = list_disk_cache(mine, false).at(0).path;
  fs::resize_file(entry, fs::file_size(entry) - 3);
  {
    Runtime runtime(with_layers(mine, {layer}));
    launch_numbered(runtime, 0);
    const CacheCounters c = runtime.counters();
    EXPECT_EQ(c.compiles, 0u);
    EXPECT_EQ(c.layer_hits, 1u);
    EXPECT_EQ(c.disk_rejected, 1u);
    EXPECT_EQ(c.disk_writes, 1u);  // the layer's binary, into the root
  }
  const std::vector<DiskCacheEntry> entries = list_disk_cache(mine, true);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].valid) << entries[0].problem;
  Runtime next(with_layers(mine, {layer}));
  launch_numbered(next, 0);
  EXPECT_EQ(next.counters().compiles, 0u);
  EXPECT_EQ(next.counters().disk_rejected, 0u);
  EXPECT_EQ(next.counters().layer_hits, 0u);  // the root's repaired entry, found first
}

// Whoever can write a layer could swap an entry for code that runs in this process: a
// layer root, or a directory inside it, that group or others can write is refused
// with one warning, and its stubs are compiled.
TEST_F(CacheLayers, ALayerOthersCanWriteIsRefused) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 0);
  int round = 0;
  for (const std::string& where : {layer, layer + "/cpu"}) {
    for (mode_t mode : {mode_t(0777), mode_t(0775), mode_t(0757)}) {
      ASSERT_EQ(::chmod(where.c_str(), mode), 0);
      testing::internal::CaptureStderr();
      Runtime runtime(with_layers(dir_ / ("mine" + std::to_string(++round)), {layer}));
      launch_numbered(runtime, 0);
      launch_numbered(runtime, 0);
      const std::string log = testing::internal::GetCapturedStderr();
      EXPECT_EQ(runtime.counters().compiles, 1u) << where << " " << mode;
      EXPECT_EQ(runtime.counters().layer_hits, 0u);
      EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
      EXPECT_NE(log.find(where + " is writable by group or others"), std::string::npos) << log;
      ASSERT_EQ(::chmod(where.c_str(), 0755), 0);
    }
  }
  // 0755: writable by its owner only, readable by all, as a site publishes it.
  Runtime runtime(with_layers(dir_ / "mine", {layer}));
  launch_numbered(runtime, 0);
  EXPECT_EQ(runtime.counters().layer_hits, 1u);
}

// An entry another user owns (not root, not the layer's owner, not the current user)
// is refused; entries of the layer root's owner are trusted. Only root can give files
// away; the mode checks above run for every user.
TEST_F(CacheLayers, OwnersALayerTrusts) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 1);
  const std::vector<DiskCacheEntry> entries = list_disk_cache(layer, false);
  const std::string stranger = entries.at(0).path;
  // Root in a user namespace may lack the uid to give: nothing to test then.
  if (::chown(stranger.c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "cannot give a file to user 65534 here: " << std::strerror(errno);
  {
    testing::internal::CaptureStderr();
    Runtime runtime(with_layers(dir_ / "mine", {layer}));
    launch_numbered(runtime, 0);
    launch_numbered(runtime, 1);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(runtime.counters().compiles, 1u);
    EXPECT_EQ(runtime.counters().layer_hits, 1u);
    EXPECT_EQ(runtime.counters().disk_rejected, 1u);
    EXPECT_NE(log.find("is owned by user 65534"), std::string::npos) << log;
  }
  // The layer's owner is user 65534 now: everything of theirs is trusted.
  for (const auto& item : fs::recursive_directory_iterator(layer))
    ASSERT_EQ(::lchown(item.path().c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown(layer.c_str(), 65534, 65534), 0);
  Runtime runtime(with_layers(dir_ / "mine2", {layer}));
  launch_numbered(runtime, 0);
  launch_numbered(runtime, 1);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().layer_hits, 2u);
}

// $STUBJIT_CACHE_LAYERS: a missing layer is skipped with one warning and the run goes
// on with the others, each searched (CacheLayerStore.LayersAreSearchedInOrder checks
// the order itself); disk_cache_info lists them as given.
TEST_F(CacheLayers, TheEnvironmentNamesLayersAndAMissingOneIsSkipped) {
  const std::string first = dir_ / "first", second = dir_ / "second";
  fill_layer(first, 0, 0);
  fill_layer(second, 1, 1);
  const std::string missing = dir_ / "missing";
  ScopedEnv layers("STUBJIT_CACHE_LAYERS", missing + "::" + first + ":" + second + "/");
  testing::internal::CaptureStderr();
  Runtime runtime(with_layers(dir_ / "mine", {}));
  launch_numbered(runtime, 0);
  launch_numbered(runtime, 1);
  launch_numbered(runtime, 2);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(runtime.counters().layer_hits, 2u);
  EXPECT_EQ(count_of(log, "[warning]"), 1u) << log;
  EXPECT_NE(log.find("cache layer skipped: " + missing + " cannot be opened"), std::string::npos)
      << log;
  const DiskCacheInfo info = disk_cache_info();
  ASSERT_EQ(info.layers.size(), 3u);
  EXPECT_EQ(info.layers[0].path, missing);
  EXPECT_FALSE(info.layers[0].usable);
  EXPECT_EQ(info.layers[1].path, first);
  EXPECT_EQ(info.layers[2].path, second);  // without its trailing slash
  EXPECT_TRUE(info.layers[2].usable) << info.layers[2].problem;
}

// STUBJIT_CACHE=off turns the layers off too; the option replaces the environment.
TEST_F(CacheLayers, OffMeansNoLayerAndTheOptionWins) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 0);
  {
    ScopedEnv off("STUBJIT_CACHE", "off");
    ScopedEnv layers("STUBJIT_CACHE_LAYERS", layer);
    Runtime runtime(with_layers(dir_ / "mine", {layer}));
    launch_numbered(runtime, 0);
    EXPECT_EQ(runtime.counters().compiles, 1u);
    EXPECT_EQ(runtime.counters().layer_hits, 0u);
    EXPECT_TRUE(disk_cache_info().layers.empty());
  }
  ScopedEnv elsewhere("STUBJIT_CACHE_LAYERS", dir_ / "nothing-here");
  Runtime runtime(with_layers(dir_ / "mine", {layer}));
  launch_numbered(runtime, 0);
  EXPECT_EQ(runtime.counters().layer_hits, 1u);
}

// Cleanup refuses a directory named as a layer, even when the user owns it.
TEST_F(CacheLayers, CleanupRefusesALayer) {
  const std::string layer = dir_ / "site";
  fill_layer(layer, 0, 0);
  const Snapshot before = snapshot(layer);
  ScopedEnv layers("STUBJIT_CACHE_LAYERS", layer);
  EXPECT_THROW(clear_disk_cache(layer), Error);
  EXPECT_THROW(remove_disk_cache_entries(layer, list_disk_cache(layer, false)), Error);
  // The same directory under another name (a link to it) is the layer too.
  const std::string alias = dir_ / "current";
  fs::create_directory_symlink(layer, alias);
  EXPECT_THROW(clear_disk_cache(alias), Error);
  EXPECT_EQ(snapshot(layer), before);
}

}  // namespace
}  // namespace stubjit
