// The stubjit command: info, cache ls/stats/verify/clear and dump-stub, with text
// and --json output, exit statuses and error messages.
#include <gtest/gtest.h>

#include <unistd.h>

#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/child_process.hpp"
#include "common/temp_dir.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::Child;
using test::ChildReport;
using test::ScopedEnv;
using test::TempDir;

class Cli : public ::testing::Test {
 protected:
  // Runs `stubjit args...` with the cache under cache_ (not created beforehand).
  ChildReport stubjit(const std::vector<std::string>& args) {
    std::vector<std::string> argv{STUBJIT_TOOL};
    argv.insert(argv.end(), args.begin(), args.end());
    return Child(argv, env(), scratch_ / ("out" + std::to_string(runs_++))).wait();
  }
  json stubjit_json(const std::vector<std::string>& args, int expected_status = 0) {
    std::vector<std::string> with_json = args;
    with_json.push_back("--json");
    const ChildReport report = stubjit(with_json);
    EXPECT_EQ(report.exit_code, expected_status) << report.output << report.errors;
    return json::parse(report.output);
  }
  // Fills the cache the way an application does: the test helper's kernel suite.
  std::uint64_t fill_cache() {
    const ChildReport report =
        Child({STUBJIT_CACHE_CHILD, "suite"}, env(), scratch_ / "child.txt").wait();
    EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
    return report.number("disk_writes");
  }
  std::vector<std::string> env() const {
    std::vector<std::string> entries{"STUBJIT_CACHE_DIR=" + cache_root(), "STUBJIT_CACHE=on",
                                     "STUBJIT_BACKEND=cpu", "STUBJIT_CACHE_MAX_BYTES=1G",
                                     "STUBJIT_CACHE_LAYERS=" + layers_};
    return entries;
  }
  std::string cache_root() const { return dir_ / "cache"; }

  TempDir dir_, scratch_;
  int runs_ = 0;
  std::string layers_;  // $STUBJIT_CACHE_LAYERS of the commands (empty: none)
};

TEST_F(Cli, InfoListsBackendsToolchainsAndTheCache) {
  const json info = stubjit_json({"info"});
  EXPECT_EQ(info["version"], STUBJIT_TEST_PROJECT_VERSION);
  std::set<std::string> names;
  for (const json& backend : info["backends"]) {
    names.insert(backend["name"].get<std::string>());
    if (backend["available"].get<bool>()) {
      EXPECT_FALSE(backend["target"].get<std::string>().empty());
      EXPECT_FALSE(backend["compiler"].get<std::string>().empty());
      EXPECT_GT(backend["limits"]["max_threads_per_block"].get<unsigned>(), 0u);
    } else {
      EXPECT_FALSE(backend["reason"].get<std::string>().empty()) << backend.dump();
    }
    if (backend["name"] == "cpu") {
      EXPECT_TRUE(backend["available"].get<bool>());
      EXPECT_EQ(backend["compiler"].get<std::string>().rfind("clang ", 0), 0u);
    }
  }
  std::set<std::string> known;  // every backend the library knows, available or not
  for (const BackendStatus& status : Runtime::probe_backends()) known.insert(status.name);
  EXPECT_EQ(names, known);
  EXPECT_TRUE(names.count("cpu") && names.count("cuda"));
  EXPECT_EQ(info["cache"]["root"], cache_root());
  EXPECT_TRUE(info["cache"]["enabled"].get<bool>());
  EXPECT_EQ(info["cache"]["max_bytes"], 1u << 30);
  EXPECT_FALSE(fs::exists(cache_root()));  // looking creates nothing

  const ChildReport text = stubjit({"info"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.output.find("cpu   available"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("root      " + cache_root()), std::string::npos) << text.output;
}

TEST_F(Cli, CacheLsAndStatsDescribeTheEntries) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GT(stubs, 0u);
  const json ls = stubjit_json({"cache", "ls"});
  ASSERT_EQ(ls["entries"].size(), stubs);
  std::set<std::string> kernels;
  for (const json& entry : ls["entries"]) {
    kernels.insert(entry["kernel"].get<std::string>());
    EXPECT_TRUE(entry["valid"].get<bool>());
    EXPECT_EQ(entry["format"], "elf-shared-object");
    EXPECT_EQ(entry["directory"].get<std::string>().rfind("cpu/", 0), 0u);
    EXPECT_EQ(entry["bytes"].get<std::uint64_t>(), fs::file_size(entry["path"].get<std::string>()));
  }
  EXPECT_TRUE(kernels.count("saxpy"));
  EXPECT_TRUE(kernels.count("write_index"));

  const json stats = stubjit_json({"cache", "stats"});
  EXPECT_EQ(stats["entries"], stubs);
  std::uint64_t bytes = 0;
  for (const json& entry : ls["entries"]) bytes += entry["bytes"].get<std::uint64_t>();
  EXPECT_EQ(stats["bytes"], bytes);
  EXPECT_EQ(stats["backends"]["cpu"]["entries"], stubs);

  const ChildReport text = stubjit({"cache", "ls"});
  EXPECT_NE(text.output.find(std::to_string(stubs) + " entries"), std::string::npos);
  EXPECT_NE(text.output.find("saxpy"), std::string::npos);
}

TEST_F(Cli, VerifyFindsAndRemovesBadEntries) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GE(stubs, 3u);
  json ok = stubjit_json({"cache", "verify"});
  EXPECT_EQ(ok["entries"], stubs);
  EXPECT_TRUE(ok["bad"].empty());

  const json ls = stubjit_json({"cache", "ls"});
  const std::string truncated = ls["entries"][0]["path"];
  const std::string renamed = ls["entries"][1]["path"];
  const std::string moved = ls["entries"][2]["path"];
  fs::resize_file(truncated, fs::file_size(truncated) - 1);
  // An intact entry under another key's name, and one in another variant's directory.
  fs::rename(renamed, fs::path(renamed).parent_path() / "0123456789abcdef0123456789abcdef.bin");
  const fs::path elsewhere = fs::path(cache_root()) / "cpu" / "other-target" / "direct-r1";
  fs::create_directories(elsewhere);
  fs::permissions(elsewhere.parent_path(), fs::perms::owner_all);
  fs::permissions(elsewhere, fs::perms::owner_all);
  fs::rename(moved, elsewhere / fs::path(moved).filename());

  const json bad = stubjit_json({"cache", "verify"}, 1);
  ASSERT_EQ(bad["bad"].size(), 3u) << bad.dump(2);
  std::map<std::string, std::string> problems;
  for (const json& entry : bad["bad"]) problems[entry["path"]] = entry["problem"];
  EXPECT_EQ(problems[truncated], "truncated");
  EXPECT_EQ(
      problems[(fs::path(renamed).parent_path() / "0123456789abcdef0123456789abcdef.bin").string()],
      "its key does not match its file name");
  EXPECT_EQ(problems[(elsewhere / fs::path(moved).filename()).string()],
            "it is not in the directory its key names");

  const ChildReport text = stubjit({"cache", "verify"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.output.find("BAD " + truncated + ": truncated"), std::string::npos);

  const json removed = stubjit_json({"cache", "verify", "--remove"});
  EXPECT_EQ(removed["removed"], 3u);
  EXPECT_FALSE(fs::exists(truncated));
  EXPECT_EQ(stubjit_json({"cache", "verify"})["entries"], stubs - 3);
}

TEST_F(Cli, ClearRemovesByAge) {
  const std::uint64_t stubs = fill_cache();
  const std::string some_entry = stubjit_json({"cache", "ls"})["entries"][0]["path"];
  const auto two_days_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(some_entry, two_days_ago);
  EXPECT_EQ(stubjit_json({"cache", "clear", "--older-than", "1d"})["removed"], 1u);
  EXPECT_FALSE(fs::exists(some_entry));
  EXPECT_EQ(stubjit_json({"cache", "stats"})["entries"], stubs - 1);
  // What a writer that crashed between create and rename leaves, and one writing now.
  const fs::path directory = fs::path(some_entry).parent_path();
  // Named as publish_file names them: .tmp-<entry name>.<6 characters>.
  const fs::path stale = directory / ".tmp-00112233445566778899aabbccddeeff.bin.AbCdEf";
  const fs::path fresh = directory / ".tmp-ffeeddccbbaa99887766554433221100.bin.GhIjKl";
  std::ofstream(stale) << "partial";
  std::ofstream(fresh) << "partial";
  fs::last_write_time(stale, two_days_ago);
  const ChildReport all = stubjit({"cache", "clear"});
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_NE(all.output.find("removed " + std::to_string(stubs - 1) + " entries"),
            std::string::npos);
  EXPECT_EQ(stubjit_json({"cache", "stats"})["entries"], 0u);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));

  const ChildReport bad = stubjit({"cache", "clear", "--older-than", "soon"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.errors.find("expected a duration"), std::string::npos) << bad.errors;
}

TEST_F(Cli, CacheCommandsOnAMissingOrUnsafeRoot) {
  EXPECT_EQ(stubjit_json({"cache", "ls"})["entries"].size(), 0u);
  EXPECT_EQ(stubjit_json({"cache", "clear"})["removed"], 0u);
  EXPECT_FALSE(fs::exists(cache_root()));
  const std::string shared = dir_ / "shared";
  fs::create_directories(shared);
  fs::permissions(shared, fs::perms::all);
  const ChildReport refused = stubjit({"cache", "clear", "--cache-dir", shared});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.errors.find("writable by group or others"), std::string::npos)
      << refused.errors;
}

// Read-only layers: info and cache stats list them (a missing one as skipped, with
// why), and cache clear refuses a directory named as one, removing nothing.
TEST_F(Cli, LayersAreListedAndNeverCleared) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GT(stubs, 0u);
  const std::string layer = dir_ / "site", missing = dir_ / "missing";
  fs::rename(cache_root(), layer);  // a layer is never the writable root too
  layers_ = layer + ":" + missing;
  const json info = stubjit_json({"info"});
  ASSERT_EQ(info["cache"]["layers"].size(), 2u) << info.dump();
  EXPECT_EQ(info["cache"]["layers"][0]["path"], layer);
  EXPECT_TRUE(info["cache"]["layers"][0]["usable"].get<bool>());
  EXPECT_EQ(info["cache"]["layers"][1]["path"], missing);
  EXPECT_FALSE(info["cache"]["layers"][1]["usable"].get<bool>());
  const json stats = stubjit_json({"cache", "stats"});
  EXPECT_EQ(stats["layers"], info["cache"]["layers"]);
  const ChildReport text = stubjit({"cache", "stats"});
  EXPECT_NE(text.output.find("layer     " + layer + " (read-only)"), std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("layer     " + missing + ": skipped, " + missing +
                             " cannot be opened: No such file or directory"),
            std::string::npos)
      << text.output;
  const ChildReport refused = stubjit({"cache", "clear", "--cache-dir", layer});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.errors.find("is a read-only cache layer"), std::string::npos) << refused.errors;
  EXPECT_EQ(stubjit_json({"cache", "ls", "--cache-dir", layer})["entries"].size(), stubs);
}

// A root spelt with a trailing slash names the same cache: paths print whole, and
// verify --remove removes inside it.
TEST_F(Cli, ARootWithATrailingSlashIsTheSameRoot) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GT(stubs, 0u);
  const std::string spelt = cache_root() + "/";
  const json ls = stubjit_json({"cache", "ls", "--cache-dir", spelt});
  EXPECT_EQ(ls["root"], cache_root());
  const std::string first = ls["entries"][0]["path"];
  EXPECT_EQ(first.rfind(cache_root() + "/cpu/", 0), 0u) << first;
  const ChildReport text = stubjit({"cache", "ls", "--cache-dir", spelt});
  EXPECT_NE(text.output.find(fs::path(first).lexically_relative(cache_root()).string()),
            std::string::npos)
      << text.output;
  EXPECT_EQ(text.output.find(" pu/"), std::string::npos) << text.output;  // not cut short
  fs::resize_file(first, 10);
  const json removed = stubjit_json({"cache", "verify", "--remove", "--cache-dir", spelt});
  EXPECT_EQ(removed["removed"], 1u) << removed.dump(2);
  EXPECT_FALSE(fs::exists(first));
}

// Files that are not stubjit's: beside the entries, above and below them, with names
// like theirs. Returns their paths.
std::vector<fs::path> plant_foreign_files(const fs::path& root, const fs::path& entry) {
  const fs::path variant = entry.parent_path();
  const std::string stem = entry.stem().string();
  fs::create_directories(root / "mydata");
  fs::create_directories(variant / "nested");
  const std::vector<fs::path> foreign = {root / "mydata/firmware.bin",
                                         root / "notes.lock",
                                         root / (stem + ".bin"),
                                         variant.parent_path() / (stem + ".bin"),
                                         variant / "nested" / (stem + ".bin"),
                                         variant / "firmware.bin",
                                         variant / "notes.lock",
                                         variant / (stem + ".bin.orig"),
                                         variant / ".tmp-download"};
  const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(24 * 30);
  for (const fs::path& path : foreign) {
    std::ofstream(path) << "not stubjit's";
    fs::last_write_time(path, long_ago);
  }
  return foreign;
}

TEST_F(Cli, ClearAndVerifyRemoveOnlyStubjitsFiles) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GE(stubs, 2u);
  const json ls = stubjit_json({"cache", "ls"});
  const fs::path damaged = ls["entries"][0]["path"].get<std::string>();
  const std::vector<fs::path> foreign = plant_foreign_files(cache_root(), damaged);
  fs::resize_file(damaged, 10);
  const json verified = stubjit_json({"cache", "verify", "--remove"});
  EXPECT_EQ(verified["entries"], stubs);  // the foreign files are not listed
  EXPECT_EQ(verified["removed"], 1u);
  const json cleared = stubjit_json({"cache", "clear"});
  EXPECT_EQ(cleared["removed"], stubs - 1);
  EXPECT_EQ(stubjit_json({"cache", "stats"})["entries"], 0u);
  for (const fs::path& path : foreign) EXPECT_TRUE(fs::exists(path)) << path;
}

// A directory with other things in it and no tag of stubjit's is not a cache: a
// runtime does not use it, `cache clear` refuses it, and nothing in it is touched.
TEST_F(Cli, ADirectoryOfOtherFilesIsNoCache) {
  fs::create_directories(fs::path(cache_root()) / "cpu/t/direct-r1");
  fs::permissions(cache_root(), fs::perms::owner_all);
  const fs::path notes = fs::path(cache_root()) / "notes.txt";
  const fs::path lookalike =
      fs::path(cache_root()) / "cpu/t/direct-r1/0123456789abcdef0123456789abcdef.bin";
  std::ofstream(notes) << "mine";
  std::ofstream(lookalike) << "mine too";
  const json info = stubjit_json({"info"});
  EXPECT_FALSE(info["cache"]["enabled"].get<bool>());
  EXPECT_NE(info["cache"]["reason"].get<std::string>().find("already holds 'notes.txt'"),
            std::string::npos)
      << info.dump(2);
  EXPECT_EQ(fill_cache(), 0u);  // the application ran in memory only
  const ChildReport refused = stubjit({"cache", "clear"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.errors.find("refusing to remove anything"), std::string::npos)
      << refused.errors;
  EXPECT_TRUE(fs::exists(notes));
  EXPECT_TRUE(fs::exists(lookalike));
  EXPECT_FALSE(fs::exists(fs::path(cache_root()) / "CACHEDIR.TAG"));
}

// A directory of the layout that cannot be read is reported by verify, which still
// checks every other entry. Root reads any directory, so as root the command runs as
// user nobody over a cache that nobody owns.
TEST_F(Cli, VerifyReportsDirectoriesItCannotRead) {
  const std::uint64_t stubs = fill_cache();
  const json ls = stubjit_json({"cache", "ls"});
  const fs::path hidden = fs::path(ls["entries"][0]["path"].get<std::string>()).parent_path();
  std::uint64_t inside = 0;
  for (const json& entry : ls["entries"])
    inside += fs::path(entry["path"].get<std::string>()).parent_path() == hidden;
  ASSERT_LT(inside, stubs);  // entries elsewhere are still to be checked
  std::vector<std::string> command{"cache", "verify", "--json"};
  std::vector<std::string> environment = env();
  if (::geteuid() == 0) {
    const std::string setpriv = "/usr/bin/setpriv";
    if (::access(setpriv.c_str(), X_OK) != 0) GTEST_SKIP() << "running as root without setpriv";
    const auto everyone_enters =
        fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec;
    fs::permissions(dir_.path(), everyone_enters);
    for (const auto& item : fs::recursive_directory_iterator(cache_root()))
      ASSERT_EQ(::lchown(item.path().c_str(), 65534, 65534), 0) << item.path();
    ASSERT_EQ(::chown(cache_root().c_str(), 65534, 65534), 0);
    // The build tree may lie where nobody cannot enter (a checkout under /root): run a
    // copy of the command and its library from this test's own directory.
    const fs::path bin = fs::path(dir_.path()) / "bin";
    fs::create_directories(bin);
    fs::copy_file(STUBJIT_TOOL, bin / "stubjit");
    fs::copy_file(STUBJIT_LIBRARY, bin / STUBJIT_LIBRARY_SONAME);
    for (const fs::path& item : {bin, bin / "stubjit", bin / STUBJIT_LIBRARY_SONAME})
      fs::permissions(item, everyone_enters);
    environment.push_back("LD_LIBRARY_PATH=" + bin.string());
    command.insert(command.begin(), {setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                                     (bin / "stubjit").string()});
  } else {
    command.insert(command.begin(), STUBJIT_TOOL);
  }
  fs::permissions(hidden, fs::perms::none);
  const ChildReport report = Child(command, environment, scratch_ / "verify.txt").wait();
  fs::permissions(hidden, fs::perms::owner_all);
  EXPECT_EQ(report.exit_code, 1) << report.output << report.errors;
  const json verified = json::parse(report.output);
  EXPECT_EQ(verified["entries"], stubs - inside);
  EXPECT_TRUE(verified["bad"].empty());
  ASSERT_EQ(verified["skipped"].size(), 1u) << verified.dump(2);
  EXPECT_EQ(verified["skipped"][0]["path"], hidden.string());
  EXPECT_EQ(verified["skipped"][0]["problem"], "cannot be read: Permission denied");
}

std::string sample(const std::string& name) { return std::string(STUBJIT_SAMPLES) + "/" + name; }

TEST_F(Cli, DumpStubPrintsWhatALaunchCompiles) {
  const ChildReport dumped = stubjit(
      {"dump-stub", sample("saxpy.json"), "--mode", "spread", "--rank", "2", "--rows", "3"});
  ASSERT_EQ(dumped.exit_code, 0) << dumped.errors;
  // The same bytes the CPU runtime generates for a real launch of that kernel.
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  Runtime runtime(options);
  Kernel saxpy = runtime.kernel(
      {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"});
  Field x = runtime.allocate<float>({4, 4});
  Field y = runtime.allocate<float>({4, 4});
  // Three columns of four: a launch that stays rank 2 (whole rows would fuse into one),
  // with rows of 3 compiled in.
  const Domain three_columns({Dim{0, 4, 1}, Dim{0, 3, 1}});
  EXPECT_EQ(dumped.output, saxpy.stub_source(three_columns, {1.0f, x, y}, Mode::spread));
  // Without --rows: the stub of a launch whose rows are longer than 16.
  const ChildReport general =
      stubjit({"dump-stub", sample("saxpy.json"), "--mode", "spread", "--rank", "2"});
  Field wide_x = runtime.allocate<float>({4, 24});
  Field wide_y = runtime.allocate<float>({4, 24});
  const Domain twenty_columns({Dim{0, 4, 1}, Dim{0, 20, 1}});
  EXPECT_EQ(general.output,
            saxpy.stub_source(twenty_columns, {1.0f, wide_x, wide_y}, Mode::spread));

  // With --view-stride: the stub of a launch with rows of 3 whose stencil field has
  // stride 2 along them; --json says so.
  const std::string smooth_file = dir_ / "smooth.json";
  std::ofstream(smooth_file)
      << R"({"name": "smooth", "params": [{"name": "i", "kind": "index"},)"
      << R"( {"name": "u", "kind": "in", "type": "float", "rank": 2, "binding": "broadcast"},)"
      << R"( {"name": "out", "kind": "inout", "type": "float"}],)"
      << R"( "body": "out = u(i[0], i[1] - 1) + u(i[0], i[1] + 1);"})";
  const ChildReport strided =
      stubjit({"dump-stub", smooth_file, "--rank", "2", "--rows", "3", "--view-stride", "2"});
  ASSERT_EQ(strided.exit_code, 0) << strided.errors;
  Kernel smooth = runtime.kernel({"smooth",
                                  {index("i"), in<float>("u", 2), inout<float>("out")},
                                  "out = u(i[0], i[1] - 1) + u(i[0], i[1] + 1);"});
  std::vector<float> every_other(4 * 5 * 2);
  Field u = runtime.wrap(static_cast<const float*>(every_other.data()), {4, 5}, {10, 2});
  Field out = runtime.allocate<float>({4, 5});
  const std::string launched = smooth.stub_source(three_columns, {u, out});
  EXPECT_NE(launched.find("rows of 3, views' stride 2"), std::string::npos);
  EXPECT_EQ(strided.output, launched);
  const json described =
      stubjit_json({"dump-stub", smooth_file, "--rank", "2", "--rows", "3", "--view-stride", "2"});
  EXPECT_EQ(described["view_stride"], 2);
  EXPECT_EQ(described["rows"], 3);
  // Without --rows: the stub of a launch whose rows are longer, the stride compiled in
  // all the same.
  const ChildReport long_rows =
      stubjit({"dump-stub", smooth_file, "--rank", "2", "--view-stride", "2"});
  ASSERT_EQ(long_rows.exit_code, 0) << long_rows.errors;
  std::vector<float> wide_every_other(4 * 24 * 2);
  Field wide_u = runtime.wrap(static_cast<const float*>(wide_every_other.data()), {4, 24}, {48, 2});
  const std::string launched_long = smooth.stub_source(twenty_columns, {wide_u, wide_y});
  EXPECT_NE(launched_long.find(", views' stride 2"), std::string::npos);
  EXPECT_EQ(launched_long.find("rows of"), std::string::npos);
  EXPECT_EQ(long_rows.output, launched_long);

  const ChildReport stub_only = stubjit({"dump-stub", sample("saxpy.json"), "--stub-only"});
  EXPECT_EQ(stub_only.output.rfind("#line 1 \"stubjit_saxpy_direct_r1.cpp\"", 0), 0u)
      << stub_only.output.substr(0, 200);
}

// A kernel file's result and scan parameters: dump-stub prints the stubs a CPU
// runtime's reduce and scan launches compile (--dimension, --scan-partials).
TEST_F(Cli, DumpStubOfReduceAndScanKernelsIsTheLaunchsStub) {
  const std::string rows_file = dir_ / "rows.json";
  std::ofstream(rows_file) << R"({"name": "rows", "params": [{"name": "x", "kind": "in",)"
                           << R"( "type": "double"}, {"name": "v", "kind": "result",)"
                           << R"( "type": "double", "combiner": "max", "rank": 1}],)"
                           << R"( "body": "v = x;"})";
  const std::string prefix_file = dir_ / "prefix.json";
  std::ofstream(prefix_file) << R"({"name": "prefix", "params": [{"name": "x", "kind": "in",)"
                             << R"( "type": "int64"}, {"name": "y", "kind": "scan",)"
                             << R"( "type": "int64", "combiner": "custom", "combine": "a + b",)"
                             << R"( "identity": "0", "scan": "exclusive"}], "body": "y = x;"})";
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  Runtime runtime(options);
  Field x = runtime.allocate<double>({6, 5});
  Field v = runtime.allocate<double>({5});
  Kernel rows =
      runtime.kernel({"rows", {in<double>("x"), result<double>("v", Combiner::max, 1)}, "v = x;"});
  LaunchOptions down;
  down.reduce_dimension = 0;
  const ChildReport reduce = stubjit({"dump-stub", rows_file, "--rank", "2", "--dimension", "0"});
  ASSERT_EQ(reduce.exit_code, 0) << reduce.errors;
  EXPECT_EQ(reduce.output, rows.stub_source(Domain{6, 5}, {x, v}, down));
  EXPECT_NE(reduce.output.find(", reduce along dimension 0, rank 2"), std::string::npos);

  Field xi = runtime.allocate<std::int64_t>({6, 5});
  Field yi = runtime.allocate<std::int64_t>({6, 5});
  Kernel prefix = runtime.kernel(
      {"prefix",
       {in<std::int64_t>("x"), scan<std::int64_t>("y", "a + b", "0", ScanKind::exclusive)},
       "y = x;"});
  const ChildReport scanned = stubjit({"dump-stub", prefix_file, "--rank", "2"});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.errors;
  EXPECT_EQ(scanned.output, prefix.stub_source(Domain{6, 5}, {xi, yi}));
  const ChildReport partials =
      stubjit({"dump-stub", prefix_file, "--rank", "2", "--scan-partials"});
  ASSERT_EQ(partials.exit_code, 0) << partials.errors;
  EXPECT_NE(partials.output.find("dialect cpp, scan_partials along dimension 1, rank 2"),
            std::string::npos)
      << partials.output.substr(0, 2000);
  // A GPU scan runs in one pass: no partials stage to print.
  const ChildReport gpu_partials =
      stubjit({"dump-stub", prefix_file, "--rank", "2", "--scan-partials", "--dialect", "cuda"});
  EXPECT_NE(gpu_partials.exit_code, 0);
  EXPECT_EQ(gpu_partials.output, "");
  EXPECT_NE(gpu_partials.errors.find("runs in one pass: it has no partials stage"),
            std::string::npos)
      << gpu_partials.errors;
  const json described = stubjit_json({"dump-stub", prefix_file, "--scan-partials"});
  EXPECT_EQ(described["entry"], "stubjit_prefix_scan_partials_r1");
  EXPECT_EQ(described["scan_partials"], true);
}

// A kernel file's sort and payload parameters: dump-stub prints the stubs a CPU
// runtime's sort launches compile (--dimension, --sort-merge); a bad order is refused.
TEST_F(Cli, DumpStubOfASortKernelIsTheLaunchsStub) {
  const std::string file = dir_ / "order.json";
  std::ofstream(file) << R"({"name": "order", "params": [{"name": "x", "kind": "sort",)"
                      << R"( "type": "float", "less": "b < a"}, {"name": "p", "kind": "payload",)"
                      << R"( "type": "int64"}, {"name": "i", "kind": "index"}],)"
                      << R"( "body": "p = i[0];"})";
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  Runtime runtime(options);
  Kernel order = runtime.kernel(
      {"order", {sort<float>("x", "b < a"), payload<std::int64_t>("p"), index("i")}, "p = i[0];"});
  Field x = runtime.allocate<float>({6, 5});
  Field p = runtime.allocate<std::int64_t>({6, 5});
  LaunchOptions down;
  down.reduce_dimension = 0;
  const ChildReport runs = stubjit({"dump-stub", file, "--rank", "2", "--dimension", "0"});
  ASSERT_EQ(runs.exit_code, 0) << runs.errors;
  EXPECT_EQ(runs.output, order.stub_source(Domain{6, 5}, {x, p}, down));
  EXPECT_NE(runs.output.find(", sort_runs along dimension 0, rank 2"), std::string::npos);
  const ChildReport merge =
      stubjit({"dump-stub", file, "--rank", "2", "--sort-merge", "--dialect", "cuda"});
  ASSERT_EQ(merge.exit_code, 0) << merge.errors;
  EXPECT_NE(merge.output.find("dialect cuda, sort_merge along dimension 1, rank 2"),
            std::string::npos)
      << merge.output.substr(0, 2000);
  const json described = stubjit_json({"dump-stub", file, "--sort-merge"});
  EXPECT_EQ(described["entry"], "stubjit_order_sort_merge_r1");
  EXPECT_EQ(described["sort_merge"], true);
  EXPECT_EQ(described["mode"], "spread");

  const std::string both = dir_ / "both.json";
  std::ofstream(both)
      << R"({"name": "both", "params": [{"name": "x", "kind": "sort",)"
      << R"( "type": "float", "less": "a < b", "order": "descending"}], "body": ""})";
  const ChildReport refused = stubjit({"dump-stub", both});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.errors.find("an 'order' or a 'less' expression, not both"), std::string::npos)
      << refused.errors;
  const ChildReport not_sort = stubjit({"dump-stub", sample("row_sum.json"), "--sort-merge"});
  EXPECT_EQ(not_sort.exit_code, 2);
  EXPECT_NE(not_sort.errors.find("is no sort kernel"), std::string::npos) << not_sort.errors;
}

// A kernel file's filter and mask reach the stub as KernelSource::filter and mask<T> do.
TEST_F(Cli, DumpStubOfAFilteredKernelIsTheLaunchsStub) {
  const std::string file = dir_ / "lower.json";
  std::ofstream(file) << R"({"name": "lower", "params": [{"name": "keep", "kind": "mask",)"
                      << R"( "type": "int32"}, {"name": "y", "kind": "inout", "type": "double"}],)"
                      << R"( "body": "y = 1;", "filter": "i[1] <= i[0]"})";
  const ChildReport dumped = stubjit({"dump-stub", file, "--rank", "2", "--mode", "spread"});
  ASSERT_EQ(dumped.exit_code, 0) << dumped.errors;
  EXPECT_NE(dumped.output.find("bool stubjit_filter(stubjit::Index<2, stubjit::i64> i)"),
            std::string::npos)
      << dumped.output;
  EXPECT_NE(dumped.output.find("if (stubjit_user::stubjit_filter(stubjit_index) && ("),
            std::string::npos)
      << dumped.output;
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  options.fuse_dimensions = false;  // as dump-stub: the stub of the rank asked for
  Runtime runtime(options);
  KernelSource source{"lower", {mask<std::int32_t>("keep"), inout<double>("y")}, "y = 1;"};
  source.filter = "i[1] <= i[0]";
  Kernel lower = runtime.kernel(source);
  // Rows longer than the CPU's short rows: the stub of any row length, as dumped.
  Field keep = runtime.allocate<std::int32_t>({3, 40});
  Field y = runtime.allocate<double>({3, 40});
  EXPECT_EQ(dumped.output, lower.stub_source(Domain{3, 40}, {keep, y}, Mode::spread));
}

TEST_F(Cli, DumpStubWritesGpuDialectsWithoutADevice) {
  const json cuda = stubjit_json({"dump-stub", sample("row_sum.json"), "--mode", "spread", "--rank",
                                  "4", "--dialect", "cuda", "--index-bits", "32"});
  EXPECT_EQ(cuda["entry"], "stubjit_row_sum_spread_r4");
  EXPECT_EQ(cuda["file_name"], "stubjit_row_sum_spread_r4.cu");
  const std::string source = cuda["source"];
  EXPECT_NE(source.find("#define STUBJIT_MAX_GROUP_THREADS 256"), std::string::npos);
  EXPECT_NE(source.find("extern \"C\" __global__ void __launch_bounds__(STUBJIT_MAX_GROUP_THREADS) "
                        "stubjit_row_sum_spread_r4("),
            std::string::npos);
  // A forall entry takes what it reads one by one: the broadcast table's pointer,
  // extent and stride; of the projected row (rank 1 + 4), its pointer and strides, then
  // the extent and stride of its own dimension.
  EXPECT_NE(source.find("const stubjit::i32* STUBJIT_RESTRICT stubjit_a5_table, stubjit::i64 "
                        "stubjit_a5_table_e0, "
                        "stubjit::i64 stubjit_a5_table_t0"),
            std::string::npos);
  EXPECT_NE(
      source.find("const double* STUBJIT_RESTRICT stubjit_a3_row, stubjit::i64 stubjit_a3_row_t0, "
                  "stubjit::i64 stubjit_a3_row_t1, stubjit::i64 stubjit_a3_row_t2, "
                  "stubjit::i64 stubjit_a3_row_t3, stubjit::i64 stubjit_a3_row_e4, "
                  "stubjit::i64 stubjit_a3_row_t4"),
      std::string::npos);
  EXPECT_NE(source.find("index i32"), std::string::npos);
  EXPECT_NE(source.find("#define STUBJIT_WARP_SIZE 32\n"), std::string::npos);
  EXPECT_EQ(cuda["warp_size"], 32);
  const json hip = stubjit_json({"dump-stub", sample("row_sum.json"), "--mode", "multi", "--rank",
                                 "2", "--dialect", "hip", "--launch-bounds", "64"});
  EXPECT_EQ(hip["file_name"], "stubjit_row_sum_multi_r2.hip");
  EXPECT_NE(hip["source"].get<std::string>().find("#define STUBJIT_MAX_GROUP_THREADS 64"),
            std::string::npos);
  EXPECT_NE(hip["source"].get<std::string>().find("#define STUBJIT_WARP_SIZE 64\n"),
            std::string::npos);
  const json rdna = stubjit_json({"dump-stub", sample("row_sum.json"), "--dialect", "hip",
                                  "--warp-size", "32", "--stub-only"});
  EXPECT_NE(rdna["source"].get<std::string>().find("#define STUBJIT_WARP_SIZE 32\n"),
            std::string::npos);
  // The CPU stub has no warp.
  const json cpu = stubjit_json({"dump-stub", sample("row_sum.json")});
  EXPECT_EQ(cpu["source"].get<std::string>().find("STUBJIT_WARP_SIZE "), std::string::npos);
}

// The GPU dialects: dump-stub prints what a runtime of that backend generates, byte
// for byte, warp size and launch bounds included. A compile-only runtime (no GPU)
// generates it; without NVRTC or hipRTC there is none, and the test says so.
struct GpuDialect {
  const char* backend;
  const char* arch_variable;
  const char* arch;
  std::vector<std::string> extra_flags;  // what dump-stub needs for this target
};

class DumpStubGpu : public Cli, public ::testing::WithParamInterface<GpuDialect> {};

// Arguments of the sample kernels for a domain, on host memory the compile-only
// runtime only looks at.
struct SampleArgs {
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<std::int32_t> ints;
  std::vector<Field> fields;
  std::vector<Arg> args;
};

void fill_args(Runtime& runtime, const std::string& kernel, const std::vector<std::int64_t>& domain,
               SampleArgs& out) {
  std::int64_t size = 1;
  for (std::int64_t extent : domain) size *= extent;
  out.fields.reserve(3);
  if (kernel == "saxpy") {
    out.floats.assign(static_cast<std::size_t>(2 * size), 1.0f);
    out.fields.push_back(runtime.wrap(static_cast<const float*>(out.floats.data()), domain));
    out.fields.push_back(runtime.wrap(out.floats.data() + size, domain));
    out.args = {2.0f, out.fields[0], out.fields[1]};
    return;
  }
  std::vector<std::int64_t> rows = domain;
  rows.push_back(3);
  out.doubles.assign(static_cast<std::size_t>(4 * size), 1.0);
  out.ints.assign(5, 1);
  out.fields.push_back(runtime.wrap(static_cast<const double*>(out.doubles.data()), rows));
  out.fields.push_back(runtime.wrap(static_cast<const std::int32_t*>(out.ints.data()), {5}));
  out.fields.push_back(runtime.wrap(out.doubles.data() + 3 * size, domain));
  out.args = {out.fields[0], out.fields[1], out.fields[2]};
}

TEST_P(DumpStubGpu, PrintsWhatACompileOnlyRuntimeGenerates) {
  const GpuDialect& gpu = GetParam();
  ScopedEnv arch(gpu.arch_variable, gpu.arch);
  ScopedEnv no_driver("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-test/libcuda.so.1");
  RuntimeOptions options;
  options.backend = gpu.backend;
  options.disk_cache = false;
  options.fuse_dimensions = false;  // dump-stub writes the stub of the rank it is given
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(options);
  } catch (const BackendError& error) {
    GTEST_SKIP() << "no " << gpu.backend << " compile-only runtime here: " << error.what();
  }
  // dense: the launch is dense (every domain starts at 0 with step 1; saxpy's fields
  // are contiguous, row_sum's rows are 3 elements apart along the innermost dimension).
  struct Case {
    const char* kernel;
    Mode mode;
    std::vector<std::int64_t> domain;
    bool dense;
  };
  const std::vector<Case> cases = {{"saxpy", Mode::direct, {64}, true},
                                   {"saxpy", Mode::spread, {8, 8}, true},
                                   {"saxpy", Mode::multi, {4, 4, 4}, true},
                                   {"row_sum", Mode::multi, {6, 6}, false},
                                   {"row_sum", Mode::spread, {2, 2, 2, 2}, false}};
  for (const Case& c : cases) {
    SampleArgs args;
    fill_args(*runtime, c.kernel, c.domain, args);
    const KernelSource source =
        c.kernel == std::string("saxpy")
            ? KernelSource{"saxpy",
                           {scalar<float>("a"), in<float>("x"), inout<float>("y")},
                           "y = a * x + y;"}
            : KernelSource{"row_sum",
                           {in<double>("row", 1), in<std::int32_t>("table", 1),
                            inout<double>("total"), index("i")},
                           "double s = 0;\n"
                           "for (stubjit::i64 j = 0; j < row.extent(0); ++j) s += row(j) * "
                           "table(j % table.extent(0));\n"
                           "total = twice(s) + i[0];\n",
                           "static inline double twice(double v) { return 2 * v; }",
                           BlockConstraints{256, {0, 0, 0}}};
    std::vector<Dim> dims;
    for (std::int64_t count : c.domain) dims.push_back(Dim{0, count, 1});
    const Domain domain(dims);
    const std::string expected = runtime->kernel(source).stub_source(domain, args.args, c.mode);
    std::vector<std::string> command{"dump-stub",    sample(std::string(c.kernel) + ".json"),
                                     "--mode",       name_of(c.mode),
                                     "--rank",       std::to_string(c.domain.size()),
                                     "--dialect",    gpu.backend,
                                     "--index-bits", "32"};
    command.insert(command.end(), gpu.extra_flags.begin(), gpu.extra_flags.end());
    if (c.dense) command.push_back("--dense");
    const ChildReport dumped = stubjit(command);
    ASSERT_EQ(dumped.exit_code, 0) << dumped.errors;
    EXPECT_NE(expected.find("#define STUBJIT_WARP_SIZE"), std::string::npos);
    EXPECT_EQ(dumped.output, expected)
        << c.kernel << " " << name_of(c.mode) << " rank " << c.domain.size();
  }
}

// Reduce and scan kernels: dump-stub's GPU stubs are a compile-only runtime's, launch
// bounds (the largest group) and warp width included.
TEST_P(DumpStubGpu, ReduceAndScanStubsAreWhatACompileOnlyRuntimeGenerates) {
  const GpuDialect& gpu = GetParam();
  ScopedEnv arch(gpu.arch_variable, gpu.arch);
  ScopedEnv no_driver("STUBJIT_CUDA_DRIVER_PATH", "/nonexistent/stubjit-test/libcuda.so.1");
  RuntimeOptions options;
  options.backend = gpu.backend;
  options.disk_cache = false;
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(options);
  } catch (const BackendError& error) {
    GTEST_SKIP() << "no " << gpu.backend << " compile-only runtime here: " << error.what();
  }
  const std::string rows_file = dir_ / "rows.json";
  std::ofstream(rows_file) << R"({"name": "rows", "params": [{"name": "x", "kind": "in",)"
                           << R"( "type": "float"}, {"name": "v", "kind": "result",)"
                           << R"( "type": "float", "combiner": "sum", "rank": 1}],)"
                           << R"( "body": "v = x;"})";
  const std::string prefix_file = dir_ / "prefix.json";
  std::ofstream(prefix_file) << R"({"name": "prefix", "params": [{"name": "x", "kind": "in",)"
                             << R"( "type": "int32"}, {"name": "y", "kind": "scan",)"
                             << R"( "type": "int32", "combiner": "max"}], "body": "y = x;"})";
  // Placeholders, each its own memory (a launch refuses a read-write field that
  // overlaps another); nothing reads them.
  std::vector<float> floats(6 * 5), sums(6);
  std::vector<std::int32_t> ints(6 * 5), prefixes(6 * 5);
  Field x = runtime->wrap(static_cast<const float*>(floats.data()), {6, 5});
  Field v = runtime->wrap(sums.data(), {6});
  Field xi = runtime->wrap(static_cast<const std::int32_t*>(ints.data()), {6, 5});
  Field yi = runtime->wrap(prefixes.data(), {6, 5});
  Kernel rows =
      runtime->kernel({"rows", {in<float>("x"), result<float>("v", Combiner::sum, 1)}, "v = x;"});
  Kernel prefix = runtime->kernel(
      {"prefix", {in<std::int32_t>("x"), scan<std::int32_t>("y", Combiner::max)}, "y = x;"});
  std::vector<std::string> common{"--rank", "2", "--dialect", gpu.backend, "--index-bits", "32"};
  common.insert(common.end(), gpu.extra_flags.begin(), gpu.extra_flags.end());
  std::vector<std::string> reduce{"dump-stub", rows_file};
  reduce.insert(reduce.end(), common.begin(), common.end());
  const ChildReport reduced = stubjit(reduce);
  ASSERT_EQ(reduced.exit_code, 0) << reduced.errors;
  EXPECT_EQ(reduced.output, rows.stub_source(Domain{6, 5}, {x, v}));
  std::vector<std::string> scan_args{"dump-stub", prefix_file, "--dimension", "0"};
  scan_args.insert(scan_args.end(), common.begin(), common.end());
  const ChildReport scanned = stubjit(scan_args);
  ASSERT_EQ(scanned.exit_code, 0) << scanned.errors;
  LaunchOptions down;
  down.reduce_dimension = 0;
  const std::string expected = prefix.stub_source(Domain{6, 5}, {xi, yi}, down);
  EXPECT_NE(expected.find("__launch_bounds__"), std::string::npos);
  EXPECT_EQ(scanned.output, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, DumpStubGpu,
    ::testing::Values(GpuDialect{"cuda", "STUBJIT_CUDA_ARCH", "sm_90", {}},
                      GpuDialect{"hip", "STUBJIT_HIP_ARCH", "gfx90a", {}},
                      GpuDialect{"hip", "STUBJIT_HIP_ARCH", "gfx1030", {"--warp-size", "32"}}),
    [](const auto& info) { return std::string(info.param.backend) + "_" + info.param.arch; });

TEST_F(Cli, DumpStubRejectsBadInputWithAReason) {
  const std::string file = dir_ / "kernel.json";
  struct Case {
    std::string json_text;
    std::vector<std::string> args;
    std::string message;
  };
  const std::string good =
      R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float"}], "body": "y = 1;"})";
  const std::vector<Case> cases = {
      {good, {"--mode", "direct", "--rank", "4"}, "mode direct covers rank 1 to 3"},
      {"{not json", {}, "not JSON"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float128"}], "body": ""})",
       {},
       "unknown type 'float128'"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "out", "type": "float"}], "body": ""})",
       {},
       "kind must be scalar, in, inout, mask, index, result, scan, sort or payload"},
      {R"({"name": "k", "params": [{"name": "v", "kind": "result", "type": "float"}], "body": ""})",
       {},
       "'combiner' must be a string"},
      {R"({"name": "k", "params": [{"name": "v", "kind": "result", "type": "float",
           "combiner": "mean"}], "body": ""})",
       {},
       "combiner must be sum, product, min, max"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "scan", "type": "float",
           "combiner": "sum", "rank": 1}], "body": ""})",
       {},
       "a scan has rank 0 and is a projection"},
      {R"({"name": "k", "params": [{"name": "v", "kind": "result", "type": "float",
           "combiner": "sum", "identity": "0"}], "body": ""})",
       {},
       "'combine' and 'identity' are for a custom combiner"},
      {good, {"--dimension", "0"}, "is no reduce, scan or sort kernel"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "scan", "type": "float",
           "combiner": "sum", "scan": "both"}], "body": ""})",
       {},
       "scan must be inclusive or exclusive, not 'both'"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "scan", "type": "float",
           "combiner": "sum"}], "body": ""})",
       {"--rank", "2", "--dimension", "2"},
       "a scan stub along dimension 2 of a rank-2 domain"},
      {good, {"--scan-partials"}, "is no scan kernel: it has no partials stage"},
      {R"({"name": "k", "params": [{"name": "m", "kind": "mask", "type": "int32", "rank": 1}],
           "body": ""})",
       {},
       "a mask has rank 0"},
      {R"({"name": "k", "params": [{"name": "m", "kind": "mask", "type": "int32",
           "binding": "broadcast"}], "body": ""})",
       {},
       "a mask is always a projection"},
      {R"({"name": "9k", "params": [], "body": ""})", {}, "9k"},
      {R"({"name": "k", "params": [], "body": 5})", {}, "body"},
      {R"({"params": [], "body": ""})", {}, "'name' must be a string"},
      // Numbers nlohmann would overflow, cast out of range or wrap.
      {R"({"name": "k", "params": [], "body": "", "note": 1e999})", {}, "not JSON"},
      {R"({"name": "k", "params": [], "body": "", "block": {"max_threads": 1e300}})",
       {},
       "block: max_threads: expected a whole number from 0 to 4294967295"},
      {R"({"name": "k", "params": [], "body": "", "block": {"max_threads": 4294967296}})",
       {},
       "4294967296 is more than 4294967295"},
      {R"({"name": "k", "params": [], "body": "", "block": {"shape": [-1, 1, 1]}})",
       {},
       "block.shape[0]: expected a whole number"},
      {R"({"name": "k", "params": [], "body": "", "block": [1, 1, 1]})",
       {},
       "'block' must be an object"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "in", "type": "float", "rank": -1}], "body": ""})",
       {},
       "params[0]: rank: expected a whole number"},
      {R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float", "rank": 7}], "body": ""})",
       {"--mode", "spread", "--rank", "2"},
       "needs a field of rank 9"},
      // Rows are the C++ dialect's, from rank 2, 1 to 16 long; dense is the GPU dialects'.
      {good,
       {"--dialect", "cuda", "--rows", "3"},
       "rows of a given length are for the cpp dialect, not cuda"},
      {good, {"--rows", "3"}, "need a domain of rank 2 or more (this one: 1)"},
      {good,
       {"--rank", "2", "--rows", "17"},
       "rows of 17: a CPU runtime compiles in lengths 1 to 16"},
      {good, {"--dense"}, "the dense variant is for the GPU dialects, not cpp"},
      // A view stride, 2 to 16, with rows or without, for the cpp dialect and a kernel
      // with a broadcast view.
      {good,
       {"--rank", "2", "--view-stride", "2"},
       "a view stride is compiled in for broadcast views of rank 1 or more; kernel 'k' has "
       "none"},
      {good,
       {"--rank", "2", "--rows", "3", "--view-stride", "2"},
       "a view stride is compiled in for broadcast views of rank 1 or more; kernel 'k' has "
       "none"},
      {good,
       {"--dialect", "cuda", "--view-stride", "2"},
       "a view stride is compiled in by the cpp dialect, not cuda"},
      {good,
       {"--rank", "2", "--rows", "3", "--view-stride", "17"},
       "view stride 17: a CPU runtime compiles in strides 2 to 16 (1: none)"},
  };
  for (const Case& c : cases) {
    std::ofstream(file, std::ios::trunc) << c.json_text;
    std::vector<std::string> args{"dump-stub", file};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ChildReport report = stubjit(args);
    EXPECT_EQ(report.exit_code, 2) << c.json_text;
    EXPECT_NE(report.errors.find(c.message), std::string::npos) << c.json_text << "\n"
                                                                << report.errors;
  }
  EXPECT_EQ(stubjit({"dump-stub", file, "--rank", "9"}).exit_code, 2);
  EXPECT_EQ(stubjit({"dump-stub", file, "--dialect", "cuda", "--warp-size", "48"}).exit_code, 2);
  const ChildReport cpu_warp = stubjit({"dump-stub", file, "--warp-size", "32"});
  EXPECT_EQ(cpu_warp.exit_code, 2);
  EXPECT_NE(cpu_warp.errors.find("for the GPU dialects"), std::string::npos) << cpu_warp.errors;
  EXPECT_EQ(stubjit({"dump-stub", file, "--mode", "diagonal"}).exit_code, 2);
  const ChildReport missing = stubjit({"dump-stub", dir_ / "absent.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.errors.find("cannot be read"), std::string::npos);
  EXPECT_EQ(stubjit({}).exit_code, 2);  // a subcommand is required
  EXPECT_EQ(stubjit({"--version"}).output,
            std::string("stubjit ") + STUBJIT_TEST_PROJECT_VERSION + "\n");
}

// Kernel files for `cache prewarm`: saxpy (as tests/common/kernels.hpp writes it) with
// three launches, one of them over an empty domain, and row_sum with explicit extents.
const char* const prewarm_file = R"({"kernels": [
  {"name": "saxpy",
   "params": [{"name": "a", "kind": "scalar", "type": "float"},
              {"name": "x", "kind": "in", "type": "float"},
              {"name": "y", "kind": "inout", "type": "float"}],
   "body": "y = a * x + y;",
   "launches": [{"domain": [1000]},
                {"domain": [64, {"first": 1, "count": 8, "step": 2}], "mode": "spread"},
                {"domain": [0]}]},
  {"name": "row_sum",
   "params": [{"name": "row", "kind": "in", "type": "double", "rank": 1},
              {"name": "table", "kind": "in", "type": "int32", "rank": 1, "binding": "broadcast"},
              {"name": "total", "kind": "inout", "type": "double"},
              {"name": "i", "kind": "index"}],
   "body": "total = row(0) + table(0) + i[0];",
   "launches": [{"domain": [10], "extents": {"row": [10, 5], "table": [7]}}]}
]})";

class Prewarm : public Cli {
 protected:
  std::string write_file(const std::string& text) {
    const std::string path = scratch_ / ("kernels" + std::to_string(files_++) + ".json");
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }
  // A CPU runtime on the test's root, as an application would open it.
  RuntimeOptions cpu_on_root() {
    RuntimeOptions options;
    options.backend = "cpu";
    options.cache_dir = cache_root();
    return options;
  }
  // The entries `cache ls` finds under the test's root.
  std::size_t entries() {
    const json ls = stubjit_json({"cache", "ls", "--cache-dir", cache_root()});
    return ls["entries"].size();
  }
  int files_ = 0;
};

std::vector<std::string> statuses(const json& report) {
  std::vector<std::string> out;
  for (const json& stub : report["stubs"]) out.push_back(stub["status"]);
  return out;
}

TEST_F(Prewarm, HostTargetFillsTheCacheSoThatAnotherProcessCompilesNothing) {
  const std::string file = write_file(prewarm_file);
  const json first =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(first["backend"], "cpu");
  EXPECT_EQ(first["cache_dir"], cache_root());
  EXPECT_EQ(statuses(first),
            (std::vector<std::string>{"compiled", "compiled", "empty", "compiled"}));
  EXPECT_EQ(first["stubs"][1]["mode"], "spread");
  EXPECT_EQ(first["stubs"][1]["rank"], 1);  // the file's fields are dense: fused
  EXPECT_EQ(first["compiled"], 3u);
  EXPECT_EQ(entries(), 3u);

  // Another process with the same root: everything found on disk.
  const json second =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(second), (std::vector<std::string>{"cached", "cached", "empty", "cached"}));
  EXPECT_EQ(second["compiled"], 0u);
  EXPECT_EQ(entries(), 3u);

  // An application's runtime on that root launches saxpy without compiling.
  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel saxpy = runtime.kernel(
      {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"});
  Field x = runtime.allocate<float>({1000});
  Field y = runtime.allocate<float>({1000});
  x.copy_from(std::vector<float>(1000, 2.0f));
  y.copy_from(std::vector<float>(1000, 1.0f));
  EXPECT_FALSE(saxpy.launch(Domain{1000}, 3.0f, x, y).compiled);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().disk_hits, 1u);
  std::vector<float> result(1000);
  y.copy_to(result.data(), result.size());
  EXPECT_EQ(result, std::vector<float>(1000, 7.0f));

  // Text: one line per launch and a total naming the root.
  const ChildReport text =
      stubjit({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(text.exit_code, 0) << text.errors;
  EXPECT_NE(text.output.find("cached   saxpy [0:1000:1] "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("0 compiled, 3 already cached, 1 empty"), std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find(cache_root()), std::string::npos) << text.output;
}

// A specialized scalar's stubs are prepared for the values the launches give; an
// application launching with one of them compiles nothing, with another it compiles.
TEST_F(Prewarm, SpecializedScalarsArePreparedForTheGivenValues) {
  const std::string file = write_file(R"({"name": "times",
   "params": [{"name": "k", "kind": "scalar", "type": "int32", "specialized": true},
              {"name": "y", "kind": "inout", "type": "int32"}],
   "body": "y = y * k;",
   "launches": [{"domain": [16], "values": {"k": 3}}, {"domain": [16], "values": {"k": -5}},
                {"domain": [16], "values": {"k": 3}}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), (std::vector<std::string>{"compiled", "compiled", "cached"}))
      << report.dump();
  EXPECT_EQ(entries(), 2u);

  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel times = runtime.kernel(
      {"times", {specialized<std::int32_t>("k"), inout<std::int32_t>("y")}, "y = y * k;"});
  Field y = runtime.allocate<std::int32_t>({16});
  y.copy_from(std::vector<std::int32_t>(16, 2));
  EXPECT_FALSE(times.launch(Domain{16}, std::int32_t(-5), y).compiled);
  EXPECT_EQ(y.to_vector<std::int32_t>(), std::vector<std::int32_t>(16, -10));
  EXPECT_EQ(runtime.counters().disk_hits, 1u);
  EXPECT_TRUE(times.launch(Domain{16}, std::int32_t(4), y).compiled);  // not prepared
  EXPECT_EQ(y.to_vector<std::int32_t>(), std::vector<std::int32_t>(16, -40));
}

// A specialized bool takes true and false from the file, the stub of each prepared.
TEST_F(Prewarm, SpecializedBoolsArePreparedForTrueAndFalse) {
  const std::string file = write_file(R"({"name": "maybe_negate",
   "params": [{"name": "on", "kind": "scalar", "type": "bool", "specialized": true},
              {"name": "y", "kind": "inout", "type": "int8"}],
   "body": "if (on) y = -y;",
   "launches": [{"domain": [16], "values": {"on": true}}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), std::vector<std::string>{"compiled"}) << report.dump();
  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel negate = runtime.kernel(
      {"maybe_negate", {specialized<bool>("on"), inout<std::int8_t>("y")}, "if (on) y = -y;"});
  Field y = runtime.allocate<std::int8_t>({16});
  y.copy_from(std::vector<std::int8_t>(16, 5));
  EXPECT_FALSE(negate.launch(Domain{16}, true, y).compiled);  // prepared for true
  EXPECT_EQ(y.to_vector<std::int8_t>(), std::vector<std::int8_t>(16, -5));
  EXPECT_TRUE(negate.launch(Domain{16}, false, y).compiled);
}

// Complex values come as [real, imaginary], float16 ones as numbers rounded to the
// nearest float16: the stubs of those values are the ones an application finds.
TEST_F(Prewarm, SpecializedComplexAndFloat16ValuesArePrepared) {
  const std::string file = write_file(R"({"name": "rotate",
   "params": [{"name": "k", "kind": "scalar", "type": "complex<double>", "specialized": true},
              {"name": "h", "kind": "scalar", "type": "float16", "specialized": true},
              {"name": "y", "kind": "inout", "type": "complex128"}],
   "body": "y = y * k * double(h);",
   "launches": [{"domain": [8], "values": {"k": [0, 1], "h": 0.1}},
                {"domain": [8], "values": {"k": 2, "h": 0.1}}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), (std::vector<std::string>{"compiled", "compiled"})) << report.dump();
  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  using Z = std::complex<double>;
  Kernel rotate = runtime.kernel({"rotate",
                                  {specialized<Z>("k"), specialized<float16>("h"), inout<Z>("y")},
                                  "y = y * k * double(h);"});
  Field y = runtime.allocate<Z>({8});
  y.copy_from(std::vector<Z>(8, Z(1, 0)));
  // 0.1 rounds to the float16 0x2e66; [0, 1] is i, and 2 is 2 + 0i.
  EXPECT_FALSE(rotate.launch(Domain{8}, Z(0, 1), float16::from_bits(0x2e66), y).compiled);
  EXPECT_FALSE(rotate.launch(Domain{8}, Z(2, 0), float16::from_bits(0x2e66), y).compiled);
  EXPECT_TRUE(rotate.launch(Domain{8}, Z(0, -1), float16::from_bits(0x2e66), y).compiled);
  const double h = 0.0999755859375;  // 0x2e66
  for (const Z& v : y.to_vector<Z>()) {
    EXPECT_NEAR(v.real(), 2 * h * h * h, 1e-15);
    EXPECT_NEAR(v.imag(), 0, 1e-15);
  }
}

// A Fortran-order launch is prepared over column-major fields, as a Fortran program
// has them: an application launching the nest that way compiles nothing.
TEST_F(Prewarm, FortranOrderLaunchesArePreparedOverColumnMajorFields) {
  const std::string file = write_file(R"({"name": "collapse",
   "params": [{"name": "p", "kind": "index"}, {"name": "a", "kind": "inout", "type": "double"}],
   "body": "a = 1000.0 * p[0] + p[1];",
   "launches": [{"domain": [53, 37], "order": "fortran"}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), std::vector<std::string>{"compiled"}) << report.dump();
  EXPECT_EQ(report["stubs"][0]["domain"], "[0:53:1, 0:37:1] fortran");

  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel collapse =
      runtime.kernel({"collapse", {index("p"), inout<double>("a")}, "a = 1000.0 * p[0] + p[1];"});
  Field a = runtime.allocate<double>({53, 37}, Layout::column_major);
  EXPECT_FALSE(collapse.launch(Domain::loops({{0, 36}, {0, 52}}, Order::fortran), a).compiled);
  EXPECT_EQ(runtime.counters().disk_hits, 1u);
  const std::vector<double> values = a.to_vector<double>();
  EXPECT_EQ(values[std::size_t(52 + 36 * 53)], 1000.0 * 52 + 36);  // a(52, 36)
  EXPECT_EQ(values[std::size_t(1 + 2 * 53)], 1000.0 * 1 + 2);      // a(1, 2)
}

TEST_F(Prewarm, Sm90CompilesCubinsWithoutADeviceAndEmitsThem) {
  {
    RuntimeOptions probe;
    probe.backend = "cuda";
    probe.target = "sm_90";
    probe.disk_cache = false;
    try {
      Runtime runtime(probe);
    } catch (const BackendError& error) {
      GTEST_SKIP() << "NVRTC cannot compile for sm_90 here: " << error.what();
    }
  }
  const std::string file = write_file(prewarm_file);
  const std::string emit = scratch_ / "emitted";
  const json first = stubjit_json(
      {"cache", "prewarm", file, "--target", "sm_90", "--cache-dir", cache_root(), "--emit", emit});
  EXPECT_EQ(first["backend"], "cuda");
  EXPECT_EQ(first["target"], "sm_90");
  EXPECT_EQ(first["compiled"], 3u);
  EXPECT_EQ(entries(), 3u);
  const json second =
      stubjit_json({"cache", "prewarm", file, "--target", "sm_90", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(second), (std::vector<std::string>{"cached", "cached", "empty", "cached"}));

  const std::string cubin = first["stubs"][0]["binary"];
  EXPECT_EQ(fs::path(cubin).extension(), ".cubin");
  std::ifstream in(cubin, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GE(bytes.size(), 20u);
  EXPECT_EQ(std::string(bytes.data(), 4),
            "\x7f"
            "ELF");
  std::uint16_t machine = 0;
  std::memcpy(&machine, bytes.data() + 18, 2);
  EXPECT_EQ(machine, 190);  // EM_CUDA

  const std::string cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  if (!fs::exists(cuobjdump)) GTEST_SKIP() << cuobjdump << " is not installed: not run on it";
  const ChildReport dumped = Child({cuobjdump, "-elf", cubin}, {}, scratch_ / "cuobjdump").wait();
  EXPECT_EQ(dumped.exit_code, 0) << dumped.output << dumped.errors;
  EXPECT_NE(dumped.output.find("stubjit_saxpy"), std::string::npos) << dumped.output;
}

// Reduce and scan kernels: prewarm prepares every stage their launches would run (a
// split scan's two), so an application launching them compiles nothing.
TEST_F(Prewarm, ReduceAndScanLaunchesArePreparedStageByStage) {
  const std::string file = write_file(R"({"kernels": [
    {"name": "rows", "params": [{"name": "x", "kind": "in", "type": "double"},
       {"name": "v", "kind": "result", "type": "double", "combiner": "sum", "rank": 1}],
     "body": "v = x;", "launches": [{"domain": [40, 3], "dimension": 0}]},
    {"name": "prefix", "params": [{"name": "x", "kind": "in", "type": "int64"},
       {"name": "y", "kind": "scan", "type": "int64", "combiner": "sum"}],
     "body": "y = x;", "launches": [{"domain": [100000]}]}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), (std::vector<std::string>{"compiled", "compiled"}));
  EXPECT_EQ(entries(), 3u);  // the reduce stub, the scan's partials and scan stages

  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel rows =
      runtime.kernel({"rows", {in<double>("x"), result<double>("v", Combiner::sum, 1)}, "v = x;"});
  Kernel prefix = runtime.kernel(
      {"prefix", {in<std::int64_t>("x"), scan<std::int64_t>("y", Combiner::sum)}, "y = x;"});
  Field x = runtime.allocate<double>({40, 3});
  x.copy_from(std::vector<double>(120, 0.5));
  Field v = runtime.allocate<double>({3});
  v.copy_from(std::vector<double>(3, 1.0));
  LaunchOptions down;
  down.reduce_dimension = 0;
  EXPECT_FALSE(rows.launch(down, Domain{40, 3}, x, v).compiled);
  EXPECT_EQ(v.to_vector<double>(), std::vector<double>(3, 21.0));
  Field xi = runtime.allocate<std::int64_t>({100000});
  Field yi = runtime.allocate<std::int64_t>({100000});
  xi.copy_from(std::vector<std::int64_t>(100000, 3));
  const LaunchSummary scanned = prefix.launch(Domain{100000}, xi, yi);
  EXPECT_FALSE(scanned.compiled);
  EXPECT_GT(scanned.reduce_parts, 1u);
  const std::vector<std::int64_t> y = yi.to_vector<std::int64_t>();
  EXPECT_EQ(y.front(), 3);
  EXPECT_EQ(y.back(), 300000);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().disk_hits, 3u);
}

// Sort kernels: prewarm prepares both stages, so a launch compiles nothing.
TEST_F(Prewarm, SortLaunchesArePreparedStageByStage) {
  const std::string file = write_file(R"({"kernels": [
    {"name": "down", "params": [{"name": "x", "kind": "sort", "type": "int32",
       "order": "descending"}, {"name": "w", "kind": "payload", "type": "double"}],
     "body": "", "launches": [{"domain": [100000]}]}]})");
  const json report =
      stubjit_json({"cache", "prewarm", file, "--target", "host", "--cache-dir", cache_root()});
  EXPECT_EQ(statuses(report), (std::vector<std::string>{"compiled"}));
  EXPECT_EQ(entries(), 2u);  // sort_runs and sort_merge

  const ScopedEnv no_env_root("STUBJIT_CACHE_DIR", std::nullopt);
  Runtime runtime(cpu_on_root());
  Kernel down = runtime.kernel(
      {"down", {sort<std::int32_t>("x", SortOrder::descending), payload<double>("w")}, ""});
  std::vector<std::int32_t> keys(100000);
  std::vector<double> w(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    keys[k] = std::int32_t(k % 1000);
    w[k] = double(k);
  }
  Field x = runtime.allocate<std::int32_t>({100000});
  Field wf = runtime.allocate<double>({100000});
  x.copy_from(keys);
  wf.copy_from(w);
  const LaunchSummary sorted = down.launch(Domain{100000}, x, wf);
  EXPECT_FALSE(sorted.compiled);
  EXPECT_GT(sorted.reduce_parts, 1u);
  const std::vector<std::int32_t> got = x.to_vector<std::int32_t>();
  const std::vector<double> moved = wf.to_vector<double>();
  EXPECT_EQ(got.front(), 999);
  EXPECT_EQ(got.back(), 0);
  EXPECT_EQ(moved.front(), 999.0);   // the first 999, stably
  EXPECT_EQ(moved.back(), 99000.0);  // the last 0
  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().disk_hits, 2u);
}

TEST_F(Prewarm, RejectsBadInputWithAReasonAndCompilesNothing) {
  const std::string good = write_file(prewarm_file);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{scratch_ / "missing.json"}, "cannot be read"},
      {{good, "--target", "vax"}, "unknown target 'vax'"},
      {{write_file(R"({"name": "k", "params": [], "body": ""})")}, "has no \"launches\""},
      {{write_file(R"({"kernels": []})")}, "'kernels' must be a non-empty array"},
      {{write_file(R"({"name": "k", "params": [], "body": "", "launches": [{"domain": []}]})")},
       "'domain' must be a non-empty array"},
      {{write_file(
           R"({"name": "k", "params": [], "body": "", "launches": [{"domain": [{"cnt": 3}]}]})")},
       "unknown key 'cnt'"},
      {{write_file(
           R"({"name": "k", "params": [], "body": "", "launches": [{"domain": [4], "mode": "fast"}]})")},
       "mode must be direct, spread or multi"},
      {{write_file(
           R"({"name": "k", "params": [], "body": "", "launches": [{"domain": [4], "dimension": 1}]})")},
       "dimension 1 of a rank-1 domain"},
      // A field too small for the domain: refused as a launch refuses it.
      {{write_file(R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float"}],
                       "body": "y = 1;", "launches": [{"domain": [8], "extents": {"y": [4]}}]})")},
       "k launch 0: parameter 'y'"},
      // Extents for a parameter that does not exist (a misspelt name).
      {{write_file(R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float"}],
                       "body": "y = 1;", "launches": [{"domain": [8], "extents": {"why": [8]}}]})")},
       "extents.why: the kernel has no field parameter 'why'"},
      // Specialized: scalars only, a boolean; values for scalars, numbers that fit.
      {{write_file(R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float",
                       "specialized": true}], "body": "y = 1;", "launches": [{"domain": [8]}]})")},
       "only a scalar can be specialized"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "float",
                       "specialized": "yes"}], "body": "", "launches": [{"domain": [8]}]})")},
       "'specialized' must be true or false"},
      {{write_file(R"({"name": "k", "params": [{"name": "y", "kind": "inout", "type": "float"}],
                       "body": "y = 1;", "launches": [{"domain": [8], "values": {"y": 2}}]})")},
       "values.y: the kernel has no scalar parameter 'y'"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "int32"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": 2147483648}}]})")},
       "values.s: out of range for scalar<int32> s"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "uint32"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": -1}}]})")},
       "values.s: out of range for scalar<uint32> s"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "int64"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": 1.5}}]})")},
       "values.s: a whole number is expected"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "bool"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": 2}}]})")},
       "values.s: out of range for scalar<bool> s"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "float"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": true}}]})")},
       "values.s: true or false is for bool"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "int8"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": 128}}]})")},
       "values.s: out of range for scalar<int8> s"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "float"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": [1, 2]}}]})")},
       "values.s: [real, imaginary] is for a complex; scalar<float> s takes a number"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar",
                       "type": "complex<float>"}], "body": "",
                       "launches": [{"domain": [8], "values": {"s": [1, 2, 3]}}]})")},
       "values.s: expected a number (or [real, imaginary] for a complex)"},
      {{write_file(R"({"name": "k", "params": [{"name": "s", "kind": "scalar", "type": "int64"}],
                       "body": "", "launches": [{"domain": [8], "values": {"s": "7"}}]})")},
       "values.s: expected a number"},
      {{write_file(R"({"name": "k", "params": [], "body": "",
                       "launches": [{"domain": [8], "values": [1]}]})")},
       "'values' must be an object"},
      {{write_file(R"({"name": "k", "params": [], "body": "",
                       "launches": [{"domain": [8, 2], "order": "F"}]})")},
       "order must be c or fortran, not 'F'"},
      // Direct cannot cover rank 4.
      {{write_file(R"({"name": "k", "params": [], "body": "",
                       "launches": [{"domain": [2, 2, 2, 2], "mode": "direct"}]})")},
       "k launch 0:"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"cache", "prewarm"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--cache-dir", cache_root()});
    const ChildReport report = stubjit(args);
    EXPECT_EQ(report.exit_code, 2) << c.message << "\n" << report.output;
    EXPECT_NE(report.errors.find(c.message), std::string::npos)
        << "expected '" << c.message << "' in: " << report.errors;
  }
  EXPECT_FALSE(fs::exists(cache_root()) && entries() > 0) << "a refused prewarm compiled";
}

// `cache export`, `bundle-info` and `import`: the CI-prewarm workflow, from a filled
// cache to another root whose process compiles nothing.
TEST_F(Cli, CacheExportImportAndBundleInfo) {
  const std::uint64_t stubs = fill_cache();
  ASSERT_GE(stubs, 7u);
  const std::string bundle = scratch_ / "cluster.stjb";
  const json exported = stubjit_json({"cache", "export", bundle});
  EXPECT_EQ(exported["root"], cache_root());
  EXPECT_EQ(exported["bundle"], bundle);
  EXPECT_EQ(exported["entries"].size(), stubs);
  EXPECT_TRUE(exported["bad"].empty());
  EXPECT_EQ(exported["bytes"].get<std::uint64_t>(), fs::file_size(bundle));

  const json info = stubjit_json({"cache", "bundle-info", bundle});
  ASSERT_EQ(info["entries"].size(), stubs);
  std::set<std::string> kernels;
  for (const json& entry : info["entries"]) kernels.insert(entry["kernel"].get<std::string>());
  EXPECT_TRUE(kernels.count("saxpy") && kernels.count("write_index"));
  ASSERT_EQ(info["toolchains"].size(), 1u);
  EXPECT_EQ(info["toolchains"][0]["backend"], "cpu");
  EXPECT_EQ(info["toolchains"][0]["compiler"].get<std::string>().rfind("clang ", 0), 0u);
  const json cache_info = stubjit_json({"info"})["cache"];
  EXPECT_EQ(info["format_version"], cache_info["format_version"]);
  EXPECT_EQ(info["stubjit_version"], STUBJIT_TEST_PROJECT_VERSION);

  const std::string node = dir_ / "node-cache";
  const json imported = stubjit_json({"cache", "import", bundle, "--into", node});
  EXPECT_EQ(imported["root"], node);
  EXPECT_EQ(imported["added"], stubs);
  // A process on the node: every stub found on disk, nothing compiled.
  const auto run_on = [&](const std::string& root, const std::string& layers) {
    std::vector<std::string> node_env = env();
    for (std::string& entry : node_env) {
      if (entry.rfind("STUBJIT_CACHE_DIR=", 0) == 0) entry = "STUBJIT_CACHE_DIR=" + root;
      if (entry.rfind("STUBJIT_CACHE_LAYERS=", 0) == 0) entry = "STUBJIT_CACHE_LAYERS=" + layers;
    }
    return Child({STUBJIT_CACHE_CHILD, "suite"}, node_env,
                 scratch_ / ("run" + std::to_string(runs_++)))
        .wait();
  };
  const ChildReport warm = run_on(node, "");
  ASSERT_EQ(warm.exit_code, 0) << warm.output << warm.errors;
  EXPECT_EQ(warm.fields.at("results"), "ok");
  EXPECT_EQ(warm.number("compiles"), 0u);
  EXPECT_EQ(warm.number("disk_hits"), stubs);
  // Or into a read-only layer that the node's processes search after their own root.
  const std::string layer = dir_ / "site-layer";
  EXPECT_EQ(stubjit_json({"cache", "import", bundle, "--into", layer, "--shared"})["added"], stubs);
  const ChildReport layered = run_on(dir_ / "own-cache", layer);
  ASSERT_EQ(layered.exit_code, 0) << layered.output << layered.errors;
  EXPECT_EQ(layered.fields.at("results"), "ok");
  EXPECT_EQ(layered.number("compiles"), 0u);
  EXPECT_EQ(layered.number("disk_hits"), stubs);
  EXPECT_EQ(stubjit_json({"cache", "import", bundle, "--into", node})["identical"], stubs);
  // Without --into: the root the other cache commands use, which holds them already.
  EXPECT_EQ(stubjit_json({"cache", "import", bundle})["identical"], stubs);

  // Text, a filter, and a dry run.
  std::size_t saxpy = 0;
  const json listed = stubjit_json({"cache", "ls"});
  for (const json& entry : listed["entries"]) saxpy += entry["kernel"] == "saxpy";
  ASSERT_GE(saxpy, 2u);  // the suite launches saxpy in two modes
  const std::string saxpy_bundle = scratch_ / "saxpy.stjb";
  const ChildReport text = stubjit({"cache", "export", saxpy_bundle, "--kernel", "saxpy"});
  EXPECT_EQ(text.exit_code, 0) << text.errors;
  EXPECT_NE(text.output.find("exported " + std::to_string(saxpy) + " entries (1 toolchains) from " +
                             cache_root() + " to " + saxpy_bundle),
            std::string::npos)
      << text.output;
  const ChildReport dry =
      stubjit({"cache", "import", saxpy_bundle, "--into", dir_ / "dry", "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.errors;
  EXPECT_NE(dry.output.find("added     saxpy"), std::string::npos) << dry.output;
  EXPECT_NE(dry.output.find("would import " + saxpy_bundle + " into " + (dir_ / "dry") + ": " +
                            std::to_string(saxpy) + " added, 0 identical, 0 kept, 0 replaced"),
            std::string::npos)
      << dry.output;
  EXPECT_FALSE(fs::exists(dir_ / "dry"));
  const ChildReport shown = stubjit({"cache", "bundle-info", saxpy_bundle});
  EXPECT_EQ(shown.exit_code, 0) << shown.errors;
  EXPECT_NE(shown.output.find(saxpy_bundle + " (verified)"), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("toolchain  cpu "), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("entries    " + std::to_string(saxpy) + ","), std::string::npos)
      << shown.output;
}

TEST_F(Cli, BundleCommandsRefuseBadInputAndSaySo) {
  ASSERT_GE(fill_cache(), 2u);
  const std::string bundle = scratch_ / "good.stjb";
  ASSERT_EQ(stubjit({"cache", "export", bundle}).exit_code, 0);

  const std::string nothing = scratch_ / "nothing.stjb";
  const ChildReport empty = stubjit({"cache", "export", nothing, "--kernel", "no_such_kernel"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.errors.find("nothing to export: no valid entry of kernel no_such_kernel"),
            std::string::npos)
      << empty.errors;
  EXPECT_FALSE(fs::exists(nothing));

  // One flipped byte in the middle: refused by import and bundle-info, nothing written.
  std::ifstream in(bundle, std::ios::binary);
  std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x20);
  const std::string damaged = scratch_ / "damaged.stjb";
  std::ofstream(damaged, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  const std::string node = dir_ / "node-cache";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cache", "import", damaged, "--into", node},
        std::vector<std::string>{"cache", "bundle-info", damaged}}) {
    const ChildReport refused = stubjit(args);
    EXPECT_EQ(refused.exit_code, 2) << args[1];
    EXPECT_NE(refused.errors.find("stubjit: cache bundle " + damaged +
                                  " is damaged: its checksum does not match its bytes"),
              std::string::npos)
        << refused.errors;
  }
  EXPECT_FALSE(fs::exists(node));

  // A damaged entry in the cache: left out, said, exit status 1.
  const json ls = stubjit_json({"cache", "ls"});
  const std::string truncated = ls["entries"][0]["path"];
  fs::resize_file(truncated, fs::file_size(truncated) - 1);
  const ChildReport partial = stubjit({"cache", "export", bundle});
  EXPECT_EQ(partial.exit_code, 1) << partial.errors;
  EXPECT_NE(partial.output.find("BAD " + truncated + ": truncated (not exported)"),
            std::string::npos)
      << partial.output;
  const json partial_json = stubjit_json({"cache", "export", bundle}, 1);
  ASSERT_EQ(partial_json["bad"].size(), 1u);
  EXPECT_EQ(partial_json["bad"][0]["path"], truncated);
  EXPECT_EQ(partial_json["entries"].size(), ls["entries"].size() - 1);

  // A directory of other files is no cache to import into.
  const std::string notes = dir_ / "notes";
  fs::create_directories(notes);
  std::ofstream(notes + "/notes.txt") << "mine";
  const ChildReport foreign = stubjit({"cache", "import", bundle, "--into", notes});
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_NE(foreign.errors.find("cannot import into " + notes + ": it already holds 'notes.txt'"),
            std::string::npos)
      << foreign.errors;
  EXPECT_EQ(std::distance(fs::directory_iterator(notes), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace stubjit
