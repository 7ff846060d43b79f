#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

namespace fs = std::filesystem;

TEST(Runtime, BackendFromOptionsAndEnvironment) {
  RuntimeOptions named;
  named.backend = "cpu";
  EXPECT_EQ(Runtime(named).backend_name(), "cpu");
  // ctest sets STUBJIT_BACKEND=cpu for this suite; automatic selection also lands on
  // the CPU on a machine without GPUs.
  EXPECT_EQ(Runtime().backend_name(), "cpu");
  {
    test::ScopedEnv unknown("STUBJIT_BACKEND", "nosuch");
    EXPECT_THROW(Runtime(), BackendError);
  }
  RuntimeOptions unknown;
  unknown.backend = "nosuch";
  try {
    Runtime r(unknown);
    FAIL();
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown backend 'nosuch' (known: "),
              std::string::npos);
  }
}

TEST(Runtime, ProbeListsTheCpuBackend) {
  bool cpu = false;
  for (const BackendStatus& status : Runtime::probe_backends()) {
    if (status.name == "cpu") {
      cpu = status.available;
      EXPECT_NE(status.detail.find("clang"), std::string::npos) << status.detail;
    }
  }
  EXPECT_TRUE(cpu);
}

// Under a sanitizer that aborts dlopen with RTLD_DEEPBIND, probing must not load
// comgr: the HIP backend says why it is unavailable, and the process lives on.
TEST(Runtime, UnderASanitizerHipIsUnavailableWithTheReason) {
  const char* sanitizer = ::dlsym(RTLD_DEFAULT, "__asan_init")   ? "AddressSanitizer"
                          : ::dlsym(RTLD_DEFAULT, "__tsan_init") ? "ThreadSanitizer"
                                                                 : nullptr;
  if (!sanitizer) GTEST_SKIP() << "runs in the AddressSanitizer and ThreadSanitizer passes";
  bool listed = false;
  for (const BackendStatus& status : Runtime::probe_backends()) {
    if (status.name != "hip") continue;
    listed = true;
    EXPECT_FALSE(status.available);
    EXPECT_NE(status.detail.find(std::string("not available under ") + sanitizer),
              std::string::npos)
        << status.detail;
  }
  EXPECT_TRUE(listed);
  RuntimeOptions options;
  options.backend = "hip";
  try {
    Runtime runtime(options);
    ADD_FAILURE() << "a HIP runtime was made under " << sanitizer;
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find(sanitizer), std::string::npos) << error.what();
  }
}

TEST(Runtime, IdentifiesTargetAndCompiler) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  EXPECT_NE(runtime.target_id().find("x86_64"), std::string::npos);
  EXPECT_EQ(runtime.compiler_id().rfind("clang ", 0), 0u);
}

TEST(Runtime, DumpDirReceivesEveryGeneratedStub) {
  const fs::path dir = fs::temp_directory_path() / ("stubjit-dump-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  RuntimeOptions options;
  options.backend = "cpu";
  options.dump_dir = dir.string();
  Runtime runtime(options);
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({8});
  Field y = runtime.allocate<float>({8});
  x.copy_from(std::vector<float>(8, 1.0f));
  y.copy_from(std::vector<float>(8, 1.0f));
  saxpy.launch(Domain{8}, 1.0f, x, y);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string().rfind("stubjit_saxpy_direct_r1-", 0), 0u);
  std::stringstream text;
  text << std::ifstream(files[0]).rdbuf();
  EXPECT_NE(text.str().find("y = a * x + y;"), std::string::npos);
  EXPECT_NE(text.str().find("extern \"C\" void stubjit_saxpy_direct_r1("), std::string::npos);
  fs::remove_all(dir);
}

TEST(Runtime, StubSourceShowsWhatALaunchWouldCompile) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({8, 8});
  Field y = runtime.allocate<float>({8, 8});
  // Dense 8 x 8 fields: the launch runs fused, as one dimension of 64.
  const std::string source = saxpy.stub_source(Domain{8, 8}, {1.0f, x, y}, Mode::spread);
  EXPECT_NE(source.find("stubjit_saxpy_spread_r1"), std::string::npos);
  const Domain three_columns({Dim{0, 8, 1}, Dim{0, 3, 1}});
  EXPECT_NE(
      saxpy.stub_source(three_columns, {1.0f, x, y}, Mode::spread).find("stubjit_saxpy_spread_r2"),
      std::string::npos);
  EXPECT_EQ(runtime.counters().compiles, 0u);
}

TEST(Runtime, StreamsBelongToTheirRuntime) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Runtime other(options);
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({8});
  Field y = runtime.allocate<float>({8});
  x.copy_from(std::vector<float>(8, 1.0f));
  y.copy_from(std::vector<float>(8, 0.0f));
  Stream stream = runtime.create_stream();
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  saxpy.launch(on_stream, Domain{8}, 3.0f, x, y);
  stream.synchronize();
  EXPECT_EQ(y.to_vector<float>()[7], 3.0f);
  Stream foreign = other.create_stream();
  on_stream.stream = &foreign;
  EXPECT_THROW(saxpy.launch(on_stream, Domain{8}, 3.0f, x, y), Error);
  EXPECT_THROW(Stream{}.synchronize(), Error);
}

TEST(Runtime, StreamsKeepTheirRuntimeAlive) {
  // A stream outliving its Runtime handle still works, and can never be mistaken for a
  // stream of a later runtime that happens to sit at the same address.
  Stream survivor;
  Field data;
  {
    RuntimeOptions options;
    options.backend = "cpu";
    Runtime runtime(options);
    survivor = runtime.create_stream();
    data = runtime.allocate<std::int32_t>({2});
  }
  data.copy_from_async(std::vector<std::int32_t>{4, 5}.data(), 2, survivor);
  survivor.synchronize();
  EXPECT_EQ(data.to_vector<std::int32_t>()[1], 5);
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime later(options);
  EXPECT_EQ(survivor.owner(), data.owner());
  EXPECT_NE(survivor.owner(), later.create_stream().owner());
  Field other = later.allocate<std::int32_t>({2});
  EXPECT_THROW(other.copy_from_async(std::vector<std::int32_t>{1, 2}.data(), 2, survivor), Error);
}

TEST(Runtime, FieldsKeepTheirRuntimeAlive) {
  Field survivor;
  {
    RuntimeOptions options;
    options.backend = "cpu";
    Runtime runtime(options);
    survivor = runtime.allocate<std::int32_t>({3});
  }
  survivor.copy_from(std::vector<std::int32_t>{1, 2, 3});
  EXPECT_EQ(survivor.to_vector<std::int32_t>()[2], 3);
}

}  // namespace
}  // namespace stubjit
