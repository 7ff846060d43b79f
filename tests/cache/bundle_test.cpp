// Cache bundles (stubjit/cache_bundle.hpp): a cache exported, imported into a fresh
// root and used there by another process without a compile; the manifest checked
// against the files themselves; filters; damage of every kind refused with nothing
// written; idempotent imports; what happens to entries already there; failed exports
// that leave no file. The bundle format is read and resealed here from its
// description (docs/cache.md), not with the library's code.
#include <gtest/gtest.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "common/child_process.hpp"
#include "common/kernels.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/cache_bundle.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;
using test::Child;
using test::ChildReport;
using test::TempDir;

using Bytes = std::vector<char>;

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::uint64_t get(const Bytes& bytes, std::size_t offset, int size) {
  std::uint64_t value = 0;
  for (int i = 0; i < size; ++i)
    value |= std::uint64_t(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

void put(Bytes& bytes, std::size_t offset, std::uint64_t value, int size) {
  for (int i = 0; i < size; ++i) bytes[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::string hex16(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

ChildReport run_suite(const std::string& root, const std::string& output) {
  return Child({STUBJIT_CACHE_CHILD, "suite"},
               {"STUBJIT_CACHE_DIR=" + root, "STUBJIT_CACHE=on", "STUBJIT_BACKEND=cpu",
                "STUBJIT_CACHE_MAX_BYTES=1G"},
               output)
      .wait();
}

// Every file and directory under `root` with its mode, modification time and, for a
// file, its bytes: equal snapshots mean nothing was written.
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> items;
  if (!fs::exists(root)) return items;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    struct stat info {};
    EXPECT_EQ(::lstat(item.path().c_str(), &info), 0);
    std::string what = std::to_string(info.st_mode) + " " + std::to_string(info.st_mtim.tv_sec) +
                       "." + std::to_string(info.st_mtim.tv_nsec);
    if (item.is_regular_file()) {
      const Bytes bytes = read_bytes(item.path());
      what += " " + std::string(bytes.begin(), bytes.end());
    }
    items[fs::relative(item.path(), root).string()] = what;
  }
  return items;
}

// The entry files under a root, found by walking it: relative path -> bytes.
std::map<std::string, Bytes> entry_files(const std::string& root) {
  std::map<std::string, Bytes> entries;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    if (item.is_regular_file() && item.path().extension() == ".bin")
      entries[fs::relative(item.path(), root).string()] = read_bytes(item.path());
  }
  return entries;
}

// The kernel name an entry's key records (its "kernel " line).
std::string kernel_of(const Bytes& entry) {
  const std::uint64_t key_size = get(entry, 12, 4);
  const std::string key(entry.data() + 40, key_size);
  const std::size_t line = key.find("\nkernel ");
  return key.substr(line + 8, key.find('\n', line + 1) - line - 8);
}

// One cache filled by the test helper's suite, shared by the tests (each copies or
// exports it, none changes it).
struct FilledCache {
  TempDir dir;
  std::string root = dir / "cache";
  ChildReport cold = run_suite(root, dir / "cold.txt");
};

const FilledCache& filled() {
  static const auto cache = std::make_unique<FilledCache>();
  return *cache;
}

// A bundle taken apart as docs/cache.md describes it.
struct BundleParts {
  Bytes header;   // 48 bytes
  Bytes entries;  // from 48 to the manifest
  std::string manifest;
};

BundleParts split(const Bytes& bundle) {
  const std::uint64_t offset = get(bundle, 24, 8);
  const std::uint64_t size = get(bundle, 32, 8);
  EXPECT_EQ(offset + size, bundle.size());
  return {Bytes(bundle.begin(), bundle.begin() + 48),
          Bytes(bundle.begin() + 48, bundle.begin() + long(offset)),
          std::string(bundle.begin() + long(offset), bundle.end())};
}

// The parts put together with the header's sizes and checksum made right: what a
// writer of the format would produce from them.
Bytes reseal(const BundleParts& parts) {
  Bytes header = parts.header;
  put(header, 24, 48 + parts.entries.size(), 8);
  put(header, 32, parts.manifest.size(), 8);
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, parts.entries.data(), parts.entries.size());
  XXH3_64bits_update(state, parts.manifest.data(), parts.manifest.size());
  XXH3_64bits_update(state, header.data(), 40);
  put(header, 40, XXH3_64bits_digest(state), 8);
  XXH3_freeState(state);
  Bytes bundle = header;
  bundle.insert(bundle.end(), parts.entries.begin(), parts.entries.end());
  bundle.insert(bundle.end(), parts.manifest.begin(), parts.manifest.end());
  return bundle;
}

// An entry with its checksum (offset 32: XXH3-64 of key, format name and payload)
// made right after its bytes were changed.
void reseal_entry(Bytes& entry) {
  const std::size_t covered = entry.size() - 40;
  put(entry, 32, XXH3_64bits(entry.data() + 40, covered), 8);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class CacheBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    const ChildReport& cold = filled().cold;
    ASSERT_EQ(cold.exit_code, 0) << cold.output << cold.errors;
    ASSERT_EQ(cold.fields.at("results"), "ok");
    stubs_ = cold.number("disk_writes");
    ASSERT_GE(stubs_, 7u);
  }
  // The whole filled cache as a bundle of this test's.
  std::string exported(const CacheBundleFilter& filter = {}) {
    const std::string path = dir_ / ("bundle" + std::to_string(bundles_++) + ".stjb");
    const CacheBundleExport result = export_cache_bundle(filled().root, path, filter);
    EXPECT_TRUE(result.skipped.empty());
    EXPECT_EQ(result.bytes, fs::file_size(path));
    return path;
  }
  // Expects `import_cache_bundle(bundle, root)` to throw a CacheBundleError whose
  // message holds `phrase`, having written nothing under `root`.
  void expect_refused(const std::string& bundle, const std::string& root,
                      const std::string& phrase) {
    const auto before = snapshot(root);
    const bool existed = fs::exists(root);
    try {
      import_cache_bundle(bundle, root);
      ADD_FAILURE() << "imported " << bundle << ", expected: " << phrase;
    } catch (const CacheBundleError& error) {
      EXPECT_NE(std::string(error.what()).find(phrase), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(bundle), std::string::npos) << error.what();
    }
    EXPECT_THROW(read_cache_bundle_manifest(bundle), CacheBundleError);
    EXPECT_EQ(fs::exists(root), existed);
    EXPECT_EQ(snapshot(root), before);
  }

  TempDir dir_;
  std::uint64_t stubs_ = 0;
  int bundles_ = 0;
};

TEST_F(CacheBundle, AnImportedCacheServesAnotherProcessWithoutCompiling) {
  const std::string bundle = exported();
  const std::string root = dir_ / "fresh/cache";
  const CacheBundleImport imported = import_cache_bundle(bundle, root);
  EXPECT_EQ(imported.root, root);
  EXPECT_EQ(imported.added, stubs_);
  EXPECT_EQ(imported.identical + imported.kept + imported.replaced, 0u);
  // The same files, byte for byte, at the same places.
  EXPECT_EQ(entry_files(root), entry_files(filled().root));
  EXPECT_TRUE(fs::exists(root + "/CACHEDIR.TAG"));
  EXPECT_EQ(fs::status(root).permissions(), fs::perms::owner_all);
  for (const auto& [path, bytes] : entry_files(root))
    EXPECT_EQ(fs::status(root + "/" + path).permissions(),
              fs::perms::owner_read | fs::perms::owner_write);

  const ChildReport warm = run_suite(root, dir_ / "warm.txt");
  ASSERT_EQ(warm.exit_code, 0) << warm.output << warm.errors;
  EXPECT_EQ(warm.fields.at("results"), "ok");
  EXPECT_EQ(warm.number("compiles"), 0u);
  EXPECT_EQ(warm.number("disk_hits"), stubs_);
  EXPECT_EQ(warm.number("disk_rejected"), 0u);
  EXPECT_EQ(warm.fields.at("digest"), filled().cold.fields.at("digest"));
}

TEST_F(CacheBundle, TheManifestNamesEveryEntryKernelTargetAndCompiler) {
  const std::string bundle = exported();
  const CacheBundleManifest manifest = read_cache_bundle_manifest(bundle);
  const std::map<std::string, Bytes> files = entry_files(filled().root);
  ASSERT_EQ(manifest.entries.size(), files.size());
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  const Runtime runtime(options);
  std::set<std::string> kernels;
  for (const CacheBundleEntry& entry : manifest.entries) {
    ASSERT_TRUE(files.count(entry.path)) << entry.path;
    const Bytes& bytes = files.at(entry.path);
    EXPECT_EQ(entry.bytes, bytes.size());
    EXPECT_EQ(entry.checksum, hex16(XXH3_64bits(bytes.data(), bytes.size())));
    EXPECT_EQ(entry.kernel, kernel_of(bytes));
    EXPECT_EQ(entry.backend, "cpu");
    EXPECT_EQ(entry.target, runtime.target_id());
    EXPECT_EQ(entry.format, "elf-shared-object");
    kernels.insert(entry.kernel);
  }
  const std::set<std::string> launched = {
      test::saxpy_kernel().name,        test::index_writer_kernel().name,
      test::mixed_types_kernel().name,  test::row_sum_kernel().name,
      test::lookup_kernel().name,       test::sum_kernel().name,
      test::visit_counter_kernel().name};
  EXPECT_EQ(kernels, launched);
  ASSERT_EQ(manifest.toolchains.size(), 1u);
  EXPECT_EQ(manifest.toolchains[0].backend, "cpu");
  EXPECT_EQ(manifest.toolchains[0].target, runtime.target_id());
  EXPECT_EQ(manifest.toolchains[0].compiler, runtime.compiler_id());
  EXPECT_FALSE(manifest.toolchains[0].generator.empty());
  EXPECT_EQ(manifest.bundle_version, 1u);
  EXPECT_EQ(manifest.format_version, disk_cache_info().format_version);
  EXPECT_FALSE(manifest.stubjit_version.empty());
  // Created now, in UTC.
  std::tm tm{};
  ASSERT_NE(::strptime(manifest.created.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm), nullptr)
      << manifest.created;
  const std::time_t created = ::timegm(&tm);
  EXPECT_LE(std::abs(std::difftime(std::time(nullptr), created)), 120.0) << manifest.created;
}

TEST_F(CacheBundle, FiltersTakeOnlyTheKernelsAndTargetsNamed) {
  std::size_t saxpy_files = 0, mixed_files = 0;
  for (const auto& [path, bytes] : entry_files(filled().root)) {
    saxpy_files += kernel_of(bytes) == "saxpy";
    mixed_files += kernel_of(bytes) == "mixed";
  }
  ASSERT_GE(saxpy_files, 2u);  // the suite launches saxpy in two modes

  const CacheBundleManifest saxpy = read_cache_bundle_manifest(exported({{"saxpy"}, {}}));
  EXPECT_EQ(saxpy.entries.size(), saxpy_files);
  for (const CacheBundleEntry& entry : saxpy.entries) EXPECT_EQ(entry.kernel, "saxpy");
  const CacheBundleManifest two = read_cache_bundle_manifest(exported({{"saxpy", "mixed"}, {}}));
  EXPECT_EQ(two.entries.size(), saxpy_files + mixed_files);

  // A target by its id, by its directory's name, or "host" for the CPU's: all of them.
  const std::string target = saxpy.entries.at(0).target;
  const fs::path first_path(saxpy.entries.at(0).path);  // cpu/<target>/<mode>-r<rank>/<name>
  const std::string directory = std::next(first_path.begin())->string();
  for (const std::string& spelling : {target, directory, std::string("host")}) {
    EXPECT_EQ(read_cache_bundle_manifest(exported({{}, {spelling}})).entries.size(), stubs_)
        << spelling;
  }
  // Nothing taken: an error, and no bundle.
  for (const CacheBundleFilter& nothing :
       {CacheBundleFilter{{}, {"sm_90"}}, CacheBundleFilter{{"no_such_kernel"}, {}}}) {
    const std::string path = dir_ / "empty.stjb";
    try {
      export_cache_bundle(filled().root, path, nothing);
      ADD_FAILURE() << "exported nothing";
    } catch (const CacheBundleError& error) {
      EXPECT_NE(std::string(error.what()).find("nothing to export"), std::string::npos)
          << error.what();
    }
    EXPECT_FALSE(fs::exists(path));
  }
}

TEST_F(CacheBundle, AFlippedByteAnywhereIsRefusedAndNothingIsWritten) {
  const std::string bundle = exported();
  // The destination already holds a cache: the saxpy entries.
  const std::string root = dir_ / "dest";
  import_cache_bundle(exported({{"saxpy"}, {}}), root);
  const Bytes good = read_bytes(bundle);
  const BundleParts parts = split(good);
  const std::size_t manifest = 48 + parts.entries.size();
  const std::map<std::size_t, std::string> places = {
      {0, "wrong magic"},
      {8, "bundle format"},
      {12, "cache format"},
      {16, "checksum does not match"},        // the entry count
      {41, "checksum does not match"},        // the checksum itself
      {48, "checksum does not match"},        // the first entry's magic
      {48 + 100, "checksum does not match"},  // its key
      {48 + parts.entries.size() / 2, "checksum does not match"},
      {manifest - 1, "checksum does not match"},  // the last entry's last byte
      {manifest + 5, "checksum does not match"},  // the manifest
      {good.size() - 2, "checksum does not match"}};
  for (const auto& [offset, phrase] : places) {
    SCOPED_TRACE(offset);
    Bytes damaged = good;
    damaged[offset] = static_cast<char>(damaged[offset] ^ 0x01);
    const std::string path = dir_ / "flipped.stjb";
    write_bytes(path, damaged);
    expect_refused(path, root, phrase);
    expect_refused(path, dir_ / "missing", phrase);
  }
}

TEST_F(CacheBundle, ATruncatedOrExtendedBundleIsRefused) {
  const Bytes good = read_bytes(exported());
  const std::string root = dir_ / "dest";
  const std::string path = dir_ / "cut.stjb";
  const std::map<std::size_t, std::string> lengths = {{0, "is empty"},
                                                      {7, "truncated"},
                                                      {47, "truncated"},
                                                      {48, "truncated"},
                                                      {good.size() / 2, "truncated"},
                                                      {good.size() - 1, "truncated"}};
  for (const auto& [length, phrase] : lengths) {
    SCOPED_TRACE(length);
    write_bytes(path, Bytes(good.begin(), good.begin() + long(length)));
    expect_refused(path, root, phrase);
  }
  Bytes longer = good;
  longer.push_back('x');
  write_bytes(path, longer);
  expect_refused(path, root, "longer than its header records");
}

// Bundles whose checksums are all right, but whose entries are not what a cache may
// hold: each refused by its entry's own checks. Resealed unchanged, the same bundle
// imports, so it is the change that is refused.
TEST_F(CacheBundle, AnEntryUnderAnotherKeysNameOrInAnotherDirectoryIsRefused) {
  const std::string bundle = exported();
  const BundleParts parts = split(read_bytes(bundle));
  const std::string root = dir_ / "dest";
  const CacheBundleManifest manifest = read_cache_bundle_manifest(bundle);
  const CacheBundleEntry& first = manifest.entries.at(0);
  const std::string path = dir_ / "crafted.stjb";

  BundleParts renamed = parts;
  const std::string other_name =
      fs::path(first.path).parent_path().string() + "/0123456789abcdef0123456789abcdef.bin";
  renamed.manifest = replace_once(parts.manifest, "path=" + first.path, "path=" + other_name);
  write_bytes(path, reseal(renamed));
  expect_refused(path, root, "its key does not match its file name");

  BundleParts moved = parts;
  const fs::path place(first.path);
  const std::string other_directory =
      (place.parent_path().parent_path() /
       (place.parent_path().filename() == "direct-r1" ? "direct-r2" : "direct-r1") /
       place.filename())
          .string();
  moved.manifest = replace_once(parts.manifest, "path=" + first.path, "path=" + other_directory);
  write_bytes(path, reseal(moved));
  expect_refused(path, root, "it is not in the directory its key names");

  // The first entry's payload changed, the manifest's checksum of it made to match:
  // the entry's own checksum still catches it.
  BundleParts altered = parts;
  altered.entries[first.bytes - 1] = static_cast<char>(altered.entries[first.bytes - 1] ^ 0x01);
  const Bytes entry(altered.entries.begin(), altered.entries.begin() + long(first.bytes));
  altered.manifest = replace_once(parts.manifest, "checksum=" + first.checksum,
                                  "checksum=" + hex16(XXH3_64bits(entry.data(), entry.size())));
  write_bytes(path, reseal(altered));
  expect_refused(path, root, "checksum mismatch");

  // A manifest that says another kernel.
  BundleParts misnamed = parts;
  misnamed.manifest = replace_once(parts.manifest, "kernel=" + first.kernel, "kernel=other");
  write_bytes(path, reseal(misnamed));
  expect_refused(path, root, "is not what its manifest says");

  write_bytes(path, reseal(parts));
  EXPECT_EQ(import_cache_bundle(path, root).added, stubs_);
}

TEST_F(CacheBundle, ImportIsIdempotent) {
  const std::string bundle = exported();
  const std::string root = dir_ / "dest";
  EXPECT_EQ(import_cache_bundle(bundle, root).added, stubs_);
  const auto before = snapshot(root);
  const CacheBundleImport again = import_cache_bundle(bundle, root);
  EXPECT_EQ(again.identical, stubs_);
  EXPECT_EQ(again.added + again.kept + again.replaced, 0u);
  for (const CacheBundleImportedEntry& entry : again.entries)
    EXPECT_EQ(entry.outcome, BundleEntryOutcome::identical);
  EXPECT_EQ(snapshot(root), before);  // not even rewritten
}

TEST_F(CacheBundle, AValidDifferentEntryIsKeptAndADamagedOneReplaced) {
  const std::string bundle = exported();
  const std::string root = dir_ / "dest";
  import_cache_bundle(bundle, root);
  const std::map<std::string, Bytes> files = entry_files(root);
  ASSERT_GE(files.size(), 2u);
  const std::string kept = files.begin()->first;
  const std::string damaged = std::next(files.begin())->first;
  // The same key with another payload (another compile of the same stub): valid.
  Bytes other = files.at(kept);
  other.back() = static_cast<char>(other.back() ^ 0x01);
  reseal_entry(other);
  write_bytes(root + "/" + kept, other);
  for (const DiskCacheEntry& entry : list_disk_cache(root, true))
    if (entry.path == root + "/" + kept) {
      EXPECT_TRUE(entry.valid) << entry.problem;
    }
  fs::resize_file(root + "/" + damaged, files.at(damaged).size() - 1);

  const CacheBundleImport again = import_cache_bundle(bundle, root);
  EXPECT_EQ(again.kept, 1u);
  EXPECT_EQ(again.replaced, 1u);
  EXPECT_EQ(again.identical, stubs_ - 2);
  for (const CacheBundleImportedEntry& entry : again.entries) {
    if (entry.entry.path == kept) {
      EXPECT_EQ(entry.outcome, BundleEntryOutcome::kept_existing);
    }
    if (entry.entry.path == damaged) {
      EXPECT_EQ(entry.outcome, BundleEntryOutcome::replaced_bad);
      EXPECT_EQ(entry.note, "truncated");
    }
  }
  EXPECT_EQ(read_bytes(root + "/" + kept), other);
  EXPECT_EQ(read_bytes(root + "/" + damaged), files.at(damaged));
}

TEST_F(CacheBundle, ExportSkipsADamagedEntryAndSaysSo) {
  const std::string root = dir_ / "copy";
  fs::copy(filled().root, root, fs::copy_options::recursive);
  const std::map<std::string, Bytes> files = entry_files(root);
  const std::string damaged = files.begin()->first;
  Bytes bytes = files.at(damaged);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x01);
  write_bytes(root + "/" + damaged, bytes);

  const std::string path = dir_ / "bundle.stjb";
  const CacheBundleExport result = export_cache_bundle(root, path);
  ASSERT_EQ(result.skipped.size(), 1u);
  EXPECT_EQ(result.skipped[0].path, root + "/" + damaged);
  EXPECT_EQ(result.skipped[0].problem, "checksum mismatch");
  const CacheBundleManifest manifest = read_cache_bundle_manifest(path);
  EXPECT_EQ(manifest.entries.size(), stubs_ - 1);
  for (const CacheBundleEntry& entry : manifest.entries) EXPECT_NE(entry.path, damaged);
}

TEST_F(CacheBundle, AFailedExportLeavesNoFile) {
  const auto expect_failed = [&](const std::string& root, const std::string& path,
                                 const CacheBundleFilter& filter, const std::string& phrase) {
    const std::string directory = fs::path(path).parent_path();
    const auto before = snapshot(directory);
    try {
      export_cache_bundle(root, path, filter);
      ADD_FAILURE() << "exported to " << path;
    } catch (const CacheBundleError& error) {
      EXPECT_NE(std::string(error.what()).find(phrase), std::string::npos) << error.what();
    }
    EXPECT_EQ(snapshot(directory), before);  // no temporary file left either
  };
  expect_failed(filled().root, dir_ / "no/such/dir/bundle.stjb", {}, "cannot create");
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  // An older bundle at the path stays as it was.
  const std::string out = dir_ / "out";
  fs::create_directories(out);
  const std::string older = out + "/bundle.stjb";
  write_bytes(older, Bytes{'o', 'l', 'd'});
  expect_failed(filled().root, older, {{"no_such_kernel"}, {}}, "nothing to export");
  EXPECT_EQ(read_bytes(older), (Bytes{'o', 'l', 'd'}));
  // The path is a directory: written in full, then the rename fails.
  fs::create_directories(out + "/taken");
  expect_failed(filled().root, out + "/taken", {}, "cannot rename");
  expect_failed(dir_ / "no-cache", out + "/bundle2.stjb", {}, "no cache");
}

TEST_F(CacheBundle, ADryRunWritesNothing) {
  const std::string bundle = exported();
  CacheBundleImportOptions dry;
  dry.dry_run = true;
  const CacheBundleImport missing = import_cache_bundle(bundle, dir_ / "missing", dry);
  EXPECT_EQ(missing.added, stubs_);
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
  const std::string root = dir_ / "dest";
  import_cache_bundle(exported({{"saxpy"}, {}}), root);
  const auto before = snapshot(root);
  const CacheBundleImport some = import_cache_bundle(bundle, root, dry);
  EXPECT_GE(some.identical, 2u);
  EXPECT_EQ(some.added + some.identical, stubs_);
  EXPECT_EQ(snapshot(root), before);
}

TEST_F(CacheBundle, ImportRefusesARootThatIsNoPrivateCache) {
  const std::string bundle = exported();
  const std::string notes = dir_ / "notes";
  fs::create_directories(notes);
  write_bytes(notes + "/notes.txt", Bytes{'m', 'i', 'n', 'e'});
  const auto before = snapshot(notes);
  try {
    import_cache_bundle(bundle, notes);
    ADD_FAILURE() << "imported into a directory of other files";
  } catch (const CacheBundleError& error) {
    EXPECT_NE(std::string(error.what()).find("already holds 'notes.txt'"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(snapshot(notes), before);

  const std::string open = dir_ / "open";
  fs::create_directories(open);
  fs::permissions(open, fs::perms::all);
  try {
    import_cache_bundle(bundle, open);
    ADD_FAILURE() << "imported into a directory everybody can write";
  } catch (const CacheBundleError& error) {
    EXPECT_NE(std::string(error.what()).find("writable by group or others"), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::is_empty(open));
}

// For a layer that other users read: every directory and entry readable by all,
// writable by the owner alone.
TEST_F(CacheBundle, ASharedImportIsReadableByEveryUser) {
  const std::string root = dir_ / "site/layer";
  CacheBundleImportOptions shared;
  shared.readable_by_all = true;
  EXPECT_EQ(import_cache_bundle(exported(), root, shared).added, stubs_);
  const fs::perms directory = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec;
  const fs::perms file = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                         fs::perms::others_read;
  EXPECT_EQ(fs::status(root).permissions(), directory);
  EXPECT_EQ(fs::status(root + "/CACHEDIR.TAG").permissions(), file);
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    EXPECT_EQ(item.status().permissions(), item.is_directory() ? directory : file) << item.path();
  }
}

}  // namespace
}  // namespace stubjit
