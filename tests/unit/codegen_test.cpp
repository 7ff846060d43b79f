#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/identifier.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

KernelSource saxpy() {
  return {
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}};
}

KernelSource indexed() {
  return {"mark",
          {index("i"), inout<std::int64_t>("out"), in<double>("table", 1)},
          "out = i[0] + i[1] * 10 + (stubjit::i64)table(0);",
          "// helper\n",
          {}};
}

StubRequest request(const KernelSource& kernel, Dialect dialect, Mode mode, int rank,
                    std::vector<Binding> bindings, int bits = 64) {
  StubRequest r;
  r.dialect = dialect;
  r.mode = mode;
  r.rank = rank;
  r.index_bits = bits;
  r.kernel = &kernel;
  r.bindings = std::move(bindings);
  r.max_threads_per_group = dialect == Dialect::cpp ? 0 : 256;
  r.warp_size = dialect == Dialect::cpp ? 0 : 32;
  return r;
}

std::string stub_part(const GeneratedStub& stub) { return stub.source.substr(stub.stub_offset); }

// Compares against tests/snapshots/<name>; STUBJIT_UPDATE_SNAPSHOTS=1 rewrites it.
void expect_snapshot(const std::string& name, const std::string& text) {
  const std::string path = std::string(STUBJIT_SNAPSHOT_DIR) + "/" + name;
  if (const char* update = std::getenv("STUBJIT_UPDATE_SNAPSHOTS");
      update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing snapshot " << path << " (run with STUBJIT_UPDATE_SNAPSHOTS=1)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "stub changed; if intended, update " << path;
}

TEST(Codegen, SameRequestGivesSameBytes) {
  const KernelSource k = saxpy();
  for (Dialect dialect : {Dialect::cpp, Dialect::cuda, Dialect::hip}) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      for (int rank = 1; rank <= 8; ++rank) {
        if (mode == Mode::direct && rank > 3) continue;
        const auto r = request(k, dialect, mode, rank,
                               {Binding::scalar, Binding::projection, Binding::projection});
        EXPECT_EQ(generate_stub(r).source, generate_stub(r).source);
      }
    }
  }
}

TEST(Codegen, SnapshotCppDirectRank2) {
  const KernelSource k = saxpy();
  expect_snapshot("cpp_saxpy_direct_r2.txt",
                  stub_part(generate_stub(
                      request(k, Dialect::cpp, Mode::direct, 2,
                              {Binding::scalar, Binding::projection, Binding::projection}))));
}

TEST(Codegen, SnapshotCppSpreadRank4WithIndexAndBroadcast) {
  const KernelSource k = indexed();
  expect_snapshot(
      "cpp_mark_spread_r4.txt",
      stub_part(generate_stub(request(k, Dialect::cpp, Mode::spread, 4,
                                      {Binding::index, Binding::projection, Binding::broadcast}))));
}

TEST(Codegen, SnapshotCudaMultiRank3Index32) {
  const KernelSource k = saxpy();
  expect_snapshot("cuda_saxpy_multi_r3_i32.txt",
                  stub_part(generate_stub(
                      request(k, Dialect::cuda, Mode::multi, 3,
                              {Binding::scalar, Binding::projection, Binding::projection}, 32))));
}

TEST(Codegen, SnapshotHipSpreadRank5) {
  const KernelSource k = saxpy();
  expect_snapshot("hip_saxpy_spread_r5.txt",
                  stub_part(generate_stub(
                      request(k, Dialect::hip, Mode::spread, 5,
                              {Binding::scalar, Binding::projection, Binding::projection}))));
}

TEST(Codegen, BodyAppearsOnceUnderItsOwnLineMapping) {
  KernelSource k = saxpy();
  k.body = "float t = a * x;\ny = t + y;";
  const GeneratedStub stub =
      generate_stub(request(k, Dialect::cpp, Mode::direct, 1,
                            {Binding::scalar, Binding::projection, Binding::projection}));
  const std::string& s = stub.source;
  const std::size_t body = s.find(k.body);
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(s.find(k.body, body + 1), std::string::npos);
  EXPECT_EQ(
      s.rfind("#line 1 \"saxpy.body\"\n", body) + std::string("#line 1 \"saxpy.body\"\n").size(),
      body);

  // After the body a #line directive restores the stub's own numbering, which
  // starts at 1 on the line after the prelude.
  std::istringstream lines(s.substr(stub.stub_offset));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "#line 1 \"" + stub.file_name + "\"");
  int number = 0;
  bool after_body = false;
  while (std::getline(lines, line)) {
    ++number;
    if (line == "y = t + y;") after_body = true;
    if (after_body && line.rfind("#line ", 0) == 0) {
      EXPECT_EQ(line, "#line " + std::to_string(number + 1) + " \"" + stub.file_name + "\"");
      return;
    }
  }
  FAIL() << "no #line reset after the body";
}

TEST(Codegen, ArgumentLayoutIsAssertedInTheStub) {
  const KernelSource k = saxpy();
  const std::string s =
      generate_stub(request(k, Dialect::cpp, Mode::direct, 2,
                            {Binding::scalar, Binding::projection, Binding::projection}))
          .source;
  // scalar 8 bytes; each rank-2 field slot 8 + 2*16.
  EXPECT_NE(s.find("sizeof(stubjit_args_t) == 88"), std::string::npos);
  EXPECT_NE(s.find("STUBJIT_CHECK_SLOT(stubjit_args_t, a, 0, 8);"), std::string::npos);
  EXPECT_NE(s.find("STUBJIT_CHECK_SLOT(stubjit_args_t, x, 8, 40);"), std::string::npos);
  EXPECT_NE(s.find("STUBJIT_CHECK_SLOT(stubjit_args_t, y, 48, 40);"), std::string::npos);
}

TEST(Codegen, GpuEntryHasLaunchBoundsAndReadOnlyRestrict) {
  const KernelSource k = saxpy();
  const std::string s =
      generate_stub(request(k, Dialect::cuda, Mode::direct, 1,
                            {Binding::scalar, Binding::projection, Binding::projection}))
          .source;
  // One number for the bounds and the constant the body sees.
  EXPECT_NE(s.find("\n#define STUBJIT_MAX_GROUP_THREADS 256\n"), std::string::npos);
  EXPECT_NE(s.find("\n#define STUBJIT_WARP_SIZE 32\n"), std::string::npos);
  // Before the user's code, which may use them.
  EXPECT_LT(s.find("#define STUBJIT_WARP_SIZE"), s.find("y = a * x + y;"));
  EXPECT_NE(s.find("extern \"C\" __global__ void __launch_bounds__(STUBJIT_MAX_GROUP_THREADS) "
                   "stubjit_saxpy_direct_r1("),
            std::string::npos);
  EXPECT_NE(s.find("const float* STUBJIT_RESTRICT stubjit_a1_x"), std::string::npos);
  EXPECT_NE(s.find("#define STUBJIT_RESTRICT __restrict__"), std::string::npos);
}

TEST(Codegen, EntryNameIsDeterministic) {
  EXPECT_EQ(entry_name("saxpy", Mode::multi, 3), "stubjit_saxpy_multi_r3");
}

TEST(Identifiers, AcceptsPlainIdentifiers) {
  for (const char* name : {"saxpy", "_a", "x1", "Y_2", "stub"}) {
    EXPECT_EQ(identifier_problem(name), "") << name;
  }
}

TEST(Identifiers, RefusesWhatCouldReachGeneratedCode) {
  for (const char* name : {"", "1abc", "a-b", "a b", "x;y", "for", "int", "__x", "_X", "stubjit_x",
                           "stubjitfoo", "threadIdx", "a\"b", "a\nb"}) {
    EXPECT_NE(identifier_problem(name), "") << name;
  }
  EXPECT_NE(identifier_problem(std::string(129, 'a')), "");
}

TEST(Identifiers, KernelSourceValidation) {
  KernelSource bad_name = saxpy();
  bad_name.name = "sa xpy";
  EXPECT_THROW(validate_kernel_source(bad_name), SignatureError);

  KernelSource duplicate = saxpy();
  duplicate.signature.push_back(in<float>("x"));
  try {
    validate_kernel_source(duplicate);
    FAIL();
  } catch (const SignatureError& error) {
    EXPECT_NE(std::string(error.what()).find("'x' appears twice"), std::string::npos);
  }

  KernelSource deep = saxpy();
  deep.signature[1].rank = 9;
  EXPECT_THROW(validate_kernel_source(deep), SignatureError);

  KernelSource scalar_rank = saxpy();
  scalar_rank.signature[0].rank = 1;
  EXPECT_THROW(validate_kernel_source(scalar_rank), SignatureError);

  KernelSource shadow = saxpy();
  shadow.signature[0].name = "saxpy";
  EXPECT_THROW(validate_kernel_source(shadow), SignatureError);

  EXPECT_NO_THROW(validate_kernel_source(saxpy()));
}

}  // namespace
}  // namespace stubjit::detail
