// Bad input: each case checks the error, the parameter it names, and that nothing
// ran (no launch counted, output untouched).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

class Errors : public ::testing::Test {
 protected:
  Errors() : runtime_(test::cpu_options()) {
    saxpy_ = runtime_.kernel(test::saxpy_kernel());
    x_ = runtime_.allocate<float>({16});
    y_ = runtime_.allocate<float>({16});
    x_.copy_from(std::vector<float>(16, 1.0f));
    y_.copy_from(std::vector<float>(16, 5.0f));
  }
  // Nothing ran: no launch counted and y still holds its initial values.
  void expect_nothing_ran() {
    EXPECT_EQ(runtime_.counters().launches, 0u);
    for (float v : y_.to_vector<float>()) ASSERT_EQ(v, 5.0f);
  }
  template <class... A>
  ArgumentError expect_argument_error(const std::string& parameter, const std::string& fragment,
                                      A&&... args) {
    try {
      saxpy_.launch(Domain{16}, std::forward<A>(args)...);
    } catch (const AliasError&) {
      throw;
    } catch (const ArgumentError& error) {
      EXPECT_EQ(error.parameter(), parameter);
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
      expect_nothing_ran();
      return error;
    }
    ADD_FAILURE() << "expected ArgumentError for " << parameter;
    return ArgumentError("", "");
  }

  Runtime runtime_;
  Kernel saxpy_;
  Field x_;
  Field y_;
};

TEST_F(Errors, WrongArgumentCount) {
  expect_argument_error("", "takes 3 arguments (a, x, y), got 2", 2.0f, x_);
}

TEST_F(Errors, ScalarOfTheWrongType) {
  expect_argument_error("a", "scalar<float> a; got a scalar double", 2.0, x_, y_);
}

TEST_F(Errors, FieldWhereAScalarIsExpectedAndViceVersa) {
  expect_argument_error("a", "got a field<float, rank 1>", x_, x_, y_);
  expect_argument_error("x", "got a scalar float", 2.0f, 1.0f, y_);
}

TEST_F(Errors, FieldOfTheWrongElementType) {
  Field d = runtime_.allocate<double>({16});
  expect_argument_error("x", "got a field<double, rank 1>", 2.0f, d, y_);
}

TEST_F(Errors, FieldOfTheWrongRank) {
  Field square = runtime_.allocate<float>({4, 4});
  expect_argument_error("x", "rank 0 (broadcast) or rank 1 (projection)", 2.0f, square, y_);
}

TEST_F(Errors, ReadOnlyFieldBoundReadWrite) {
  std::vector<float> host(16, 5.0f);
  const Field read_only = runtime_.wrap(static_cast<const float*>(host.data()), {16});
  EXPECT_FALSE(read_only.writable());
  expect_argument_error("y", "read-write; got a read-only field", 2.0f, x_, read_only);
}

TEST_F(Errors, ProjectionOutsideTheField) {
  try {
    saxpy_.launch(Domain::loops({{4, 16}}), 2.0f, x_, y_);  // 16 is past the end
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_EQ(error.parameter(), "x");
    EXPECT_NE(std::string(error.what()).find("reaches logical index 16"), std::string::npos)
        << error.what();
  }
  try {
    saxpy_.launch(Domain::loops({{-1, 3}}), 2.0f, x_, y_);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("reaches logical index -1"), std::string::npos)
        << error.what();
  }
  expect_nothing_ran();
}

TEST_F(Errors, NullFieldAndFieldOfAnotherRuntime) {
  expect_argument_error("y", "null field", 2.0f, x_, Field{});
  Runtime other(test::cpu_options());
  Field foreign = other.allocate<float>({16});
  expect_argument_error("x", "belongs to another runtime", 2.0f, foreign, y_);
}

TEST_F(Errors, ReadWriteFieldBoundTwiceIsAnAliasError) {
  try {
    saxpy_.launch(Domain{16}, 2.0f, y_, y_);
    FAIL() << "expected AliasError";
  } catch (const AliasError& error) {
    EXPECT_EQ(error.parameter(), "y");
    EXPECT_EQ(error.other_parameter(), "x");
    EXPECT_NE(std::string(error.what())
                  .find("the field bound to read-write parameter 'y' is "
                        "also bound to parameter 'x'"),
              std::string::npos)
        << error.what();
  }
  // Overlapping windows of one allocation alias too; disjoint ones do not.
  std::vector<float> host(32, 5.0f);
  Field first = runtime_.wrap(host.data(), {16});
  Field overlapping = runtime_.wrap(host.data() + 8, {16});
  Field disjoint = runtime_.wrap(host.data() + 16, {16});
  try {
    saxpy_.launch(Domain{16}, 2.0f, first, overlapping);
    FAIL() << "expected AliasError";
  } catch (const AliasError& error) {
    // Two fields, one memory: said as such, with the bytes of each.
    const std::string what = error.what();
    EXPECT_NE(what.find("the memory of the field bound to read-write parameter 'y', bytes [0x"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("overlaps that of the field bound to parameter 'x'"), std::string::npos)
        << what;
    EXPECT_EQ(what.find("is also bound"), std::string::npos) << what;
  }
  expect_nothing_ran();
  for (float v : host) ASSERT_EQ(v, 5.0f);
  saxpy_.launch(Domain{16}, 2.0f, first, disjoint);
  EXPECT_EQ(host[16], 2.0f * 5.0f + 5.0f);
}

TEST_F(Errors, OneFieldBoundToTwoReadOnlyParametersIsFine) {
  Kernel add = runtime_.kernel(
      {"add", {in<float>("p"), in<float>("q"), inout<float>("r")}, "r = p + q;", "", {}});
  add.launch(Domain{16}, x_, x_, y_);
  EXPECT_EQ(y_.to_vector<float>()[3], 2.0f);
}

TEST_F(Errors, CompileErrorCarriesTheLogWithBodyLines) {
  Kernel broken = runtime_.kernel({"broken",
                                   {scalar<float>("a"), in<float>("x"), inout<float>("y")},
                                   "float t = a * x;\ny = t + undefined_name;",
                                   "",
                                   {}});
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure is not cached as success
    try {
      broken.launch(Domain{16}, 2.0f, x_, y_);
      FAIL() << "expected CompileError";
    } catch (const CompileError& error) {
      EXPECT_EQ(error.kernel(), "broken");
      EXPECT_NE(
          error.log().find("broken.body:2:9: error: use of undeclared identifier 'undefined_name'"),
          std::string::npos)
          << error.log();
      EXPECT_NE(error.source().find("y = t + undefined_name;"), std::string::npos);
    }
  }
  EXPECT_EQ(runtime_.counters().compiles, 0u);
  expect_nothing_ran();
}

TEST_F(Errors, CompileErrorInHelpersIsMappedToHelperLines) {
  Kernel broken = runtime_.kernel({"helped",
                                   {inout<float>("y")},
                                   "y = twice(y);",
                                   "static float twice(float v) {\n  return v * 2\n}",
                                   {}});
  try {
    broken.launch(Domain{16}, y_);
    FAIL() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("helped.helpers:2:15: error: expected ';'"), std::string::npos)
        << error.log();
  }
  expect_nothing_ran();
}

TEST_F(Errors, ForcedModeThatCannotCoverIsAPlanError) {
  Kernel count = runtime_.kernel(test::visit_counter_kernel());
  Field visits = runtime_.allocate<std::int32_t>({2, 2, 2, 2});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  try {
    count.launch(direct, Domain{2, 2, 2, 2}, visits);
    FAIL() << "expected PlanError";
  } catch (const PlanError& error) {
    EXPECT_EQ(error.limit(), "rank");
  }
  expect_nothing_ran();
}

TEST_F(Errors, InvalidKernelDescriptionsAreSignatureErrors) {
  EXPECT_THROW(runtime_.kernel({"bad name", {}, "", "", {}}), SignatureError);
  EXPECT_THROW(runtime_.kernel({"k", {in<float>("for")}, "", "", {}}), SignatureError);
  EXPECT_THROW(runtime_.kernel({"k", {in<float>("x"), inout<float>("x")}, "", "", {}}),
               SignatureError);
  EXPECT_THROW(runtime_.kernel({"k", {in<float>("x", 9)}, "", "", {}}), SignatureError);
}

// Enum values cast from integers are refused where they enter: an unknown access must
// not pass binding's checks yet make the parameter writable, an unknown mode must not
// run in automatic mode, an unknown kind must not reach the compiler.
TEST_F(Errors, EnumValuesThatAreNoEnumeratorAreRefused) {
  const auto with = [](Param p) { return KernelSource{"k", {std::move(p)}, "", "", {}}; };
  Param access = in<float>("x");
  access.access = static_cast<Access>(5);
  Param kind = in<float>("x");
  kind.kind = static_cast<ParamKind>(7);
  Param type = in<float>("x");
  type.type = static_cast<ElementType>(42);
  for (const Param& bad : {access, kind, type}) {
    try {
      runtime_.kernel(with(bad));
      ADD_FAILURE() << "accepted " << static_cast<int>(bad.kind) << "/"
                    << static_cast<int>(bad.access) << "/" << static_cast<int>(bad.type);
    } catch (const SignatureError& error) {
      EXPECT_NE(std::string(error.what()).find("which is no"), std::string::npos) << error.what();
    }
  }
  LaunchOptions nine;
  nine.mode = static_cast<Mode>(9);
  try {
    saxpy_.launch(nine, Domain{16}, 2.0f, x_, y_);
    ADD_FAILURE() << "launched with mode 9";
  } catch (const ArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("9, which is no Mode"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(saxpy_.plan(Domain{16}, static_cast<Mode>(9)), ArgumentError);
  expect_nothing_ran();
  EXPECT_EQ(runtime_.counters().compiles, 0u);
  EXPECT_THROW(runtime_.allocate<float>({4}, static_cast<Layout>(3)), FieldError);
  EXPECT_THROW(runtime_.allocate(static_cast<ElementType>(42), {4}), FieldError);
  float element = 0;
  EXPECT_THROW(runtime_.wrap_memory(&element, static_cast<ElementType>(42), {1}, {}, true),
               FieldError);
  StubOptions stub;
  stub.mode = static_cast<Mode>(9);
  stub.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  EXPECT_THROW(generate_stub_source(test::saxpy_kernel(), stub), Error);
  stub.mode = Mode::direct;
  stub.bindings[1] = static_cast<Binding>(6);
  EXPECT_THROW(generate_stub_source(test::saxpy_kernel(), stub), Error);
}

// The three ways a body or helpers could make a launch look like a success while
// running something else: each is a CompileError now, and nothing runs.
TEST_F(Errors, UserCodeCannotReplaceTheStubsOwnCode) {
  const auto expect_refused = [&](const KernelSource& source, const char* fragment) {
    Kernel kernel = runtime_.kernel(source);
    try {
      kernel.launch(Domain{16}, y_);
      ADD_FAILURE() << "launched: " << source.body << " / " << source.helpers;
    } catch (const CompileError& error) {
      EXPECT_NE(error.log().find(fragment), std::string::npos) << error.log();
    }
  };
  // 1. Leaving the kernel's function to define more at file scope.
  expect_refused({"escape", {inout<float>("y")}, "y = 1; } void evil() { float y = 0; y = 2;"},
                 "escape.body:1:8: error: '}' closes what it did not open");
  // 2. Defining the stub's entry and renaming the real one away: the entry comes before
  //    the user's code, so this is a redefinition (the compiler's own error).
  expect_refused({"fake",
                  {inout<float>("y")},
                  "y = 1;",
                  "extern \"C\" void stubjit_fake_direct_r1(const void*, const "
                  "stubjit::LaunchParams*, stubjit::u64, stubjit::u64) {}\n"
                  "#define stubjit_fake_direct_r1 stubjit_renamed_away\n"},
                 "fake.helpers:1");
  // 3. Specializing a prelude template the stub uses, to change what it computes: the
  //    stub has used it already, so this is a specialization after instantiation.
  expect_refused({"bend",
                  {inout<float>("y")},
                  "y = 1;",
                  "namespace stubjit {\ntemplate <> inline i64 min_of<i64>(i64 a, i64) "
                  "{ return a + 4096; }\n}\n"},
                 "bend.helpers:2");
  // An include of an arbitrary file is refused before the compiler reads it: the
  // error cannot carry the file's contents.
  expect_refused({"peek", {inout<float>("y")}, "#include \"/etc/passwd\"\ny = 1;"},
                 "peek.body:1:1: error: #include of \"/etc/passwd\" is refused");
  expect_nothing_ran();
}

TEST_F(Errors, SmallMisusesAreStubjitErrorsSayingWhat) {
  const Domain domain{4, 5};
  try {
    (void)domain[2];
    ADD_FAILURE() << "read dimension 2 of a rank-2 domain";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 2);
    EXPECT_NE(std::string(error.what()).find("dimensions are 0..1"), std::string::npos);
  }
  EXPECT_THROW((void)domain[-1], DomainError);
  const Stream null_stream;
  LaunchOptions options;
  options.stream = &null_stream;
  try {
    saxpy_.launch(options, Domain{16}, 2.0f, x_, y_);
    ADD_FAILURE() << "launched on a null stream";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("null Stream"), std::string::npos) << error.what();
  }
  expect_nothing_ran();
}

// Everything the compiler says goes into the CompileError (and the logger, quiet by
// default): nothing is written to the application's stderr, "N errors generated."
// included.
// In this process (no time limit, so Clang runs here) and in the compile worker, whose
// stderr goes nowhere: Clang's own "N errors generated." must reach the log only.
TEST_F(Errors, CompileErrorsWriteNothingToStderr) {
  for (const auto limit : {std::chrono::milliseconds(0), std::chrono::milliseconds(120000)}) {
    SCOPED_TRACE(limit.count() == 0 ? "in process" : "in the compile worker");
    RuntimeOptions options = test::cpu_options();
    options.compile_timeout = limit;
    Runtime runtime(options);
    Field y = runtime.allocate<float>({16});
    std::FILE* captured = std::tmpfile();
    ASSERT_TRUE(captured);
    std::fflush(stderr);
    const int saved = ::dup(2);
    ASSERT_GE(saved, 0);
    ASSERT_GE(::dup2(::fileno(captured), 2), 0);
    std::string log;
    try {
      runtime.kernel({"noisy", {inout<float>("y")}, "y = undeclared_name;"}).launch(Domain{16}, y);
    } catch (const CompileError& error) {
      log = error.log();
    }
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(captured);
    std::string written;
    for (int c = std::fgetc(captured); c != EOF; c = std::fgetc(captured)) written += char(c);
    std::fclose(captured);
    EXPECT_EQ(written, "");
    EXPECT_NE(log.find("noisy.body:1"), std::string::npos) << log;
    EXPECT_NE(log.find("1 error generated"), std::string::npos) << log;
  }
}

TEST_F(Errors, AllocationFailureIsAStubjitError) {
  // 1 PiB: beyond the 47-bit user address space of x86-64, whatever the overcommit
  // policy, so the allocation cannot succeed.
  try {
    runtime_.allocate<float>({std::int64_t(1) << 48});
    FAIL() << "expected BackendError";
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot allocate"), std::string::npos) << error.what();
  }
}

TEST_F(Errors, FieldMisuse) {
  EXPECT_THROW(runtime_.allocate<float>({-1}), FieldError);
  EXPECT_THROW(runtime_.allocate<double>({std::int64_t(1) << 40, std::int64_t(1) << 30}),
               FieldError);
  EXPECT_THROW(runtime_.allocate<float>(std::vector<std::int64_t>(9, 1)), FieldError);
  float element = 0;
  EXPECT_THROW(runtime_.wrap(&element, {2, 2}, {1}), FieldError);
  EXPECT_THROW(runtime_.wrap(&element, {4, 4}, {std::int64_t(1) << 62, 1}), FieldError);
  EXPECT_THROW(runtime_.wrap(static_cast<float*>(nullptr), {1}), FieldError);
  std::vector<float> wrong_size(15);
  EXPECT_THROW(x_.copy_from(wrong_size), FieldError);
  std::vector<double> wrong_type(16);
  EXPECT_THROW(x_.copy_from(wrong_type), FieldError);
  // Gapped views cannot be copied as a block.
  std::vector<float> host(32);
  Field every_other = runtime_.wrap(host.data(), {16}, {2});
  EXPECT_FALSE(every_other.dense());
  EXPECT_THROW(every_other.copy_from(std::vector<float>(16)), FieldError);
  const Field read_only = runtime_.wrap(static_cast<const float*>(host.data()), {32});
  EXPECT_THROW(Field(read_only).copy_from(std::vector<float>(32)), FieldError);
}

}  // namespace
}  // namespace stubjit
