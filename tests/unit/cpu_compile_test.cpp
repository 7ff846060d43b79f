// The CPU backend's compile step on its own: the compiler plugin (Clang, then lld) to
// an x86-64 shared object that defines the stub's entry (read back with the tests' ELF
// reader, which the GPU compile tests use on cubins and AMDGPU code objects).
#include <gtest/gtest.h>

#include "backends/cpu/compiler_plugin.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "codegen/stub_request.hpp"
#include "common/elf_symbols.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

TEST(CpuCompile, BinaryIsX86SharedObjectDefiningTheEntry) {
  const std::unique_ptr<Toolchain> toolchain = make_cpu_toolchain();
  const KernelSource source{
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"};
  StubRequest request;
  request.kernel = &source;
  request.mode = Mode::spread;
  request.rank = 4;
  request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  const GeneratedStub stub = generate_stub(request);
  const std::vector<std::string> options;
  const Binary binary =
      toolchain->compile({stub.source, stub.file_name, stub.entry, source.name, options});
  EXPECT_EQ(binary.format, "elf-shared-object");
  const auto elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->machine, test::elf_machine_x86_64);
  EXPECT_EQ(elf->type, test::elf_type_shared_object);
  EXPECT_TRUE(elf->defines("stubjit_saxpy_spread_r4"));
  EXPECT_FALSE(elf->defines("stubjit_saxpy_direct_r4"));
}

TEST(CpuCompile, ElfReaderRejectsWhatIsNotAnElfImage) {
  EXPECT_FALSE(test::read_elf({}));
  EXPECT_FALSE(test::read_elf(std::vector<char>(100, 'x')));
  std::vector<char> header(64, 0);
  std::memcpy(header.data(),
              "\x7f"
              "ELF",
              4);
  header[4] = 2;
  header[5] = 1;
  header[58] = 64;  // section headers claimed beyond the image
  header[60] = 3;
  header[40] = 100;
  EXPECT_FALSE(test::read_elf(header));
}

TEST(CpuCompile, ExtraCompilerOptionsReachClang) {
  const std::unique_ptr<Toolchain> toolchain = make_cpu_toolchain();
  const KernelSource source{
      "opt", {inout<float>("y")}, "#ifndef STUBJIT_TEST_FLAG\n#error flag missing\n#endif\ny = 1;"};
  StubRequest request;
  request.kernel = &source;
  request.bindings = {Binding::projection};
  const GeneratedStub stub = generate_stub(request);
  const std::vector<std::string> none;
  EXPECT_THROW(toolchain->compile({stub.source, stub.file_name, stub.entry, source.name, none}),
               CompileError);
  const std::vector<std::string> flag = {"-DSTUBJIT_TEST_FLAG"};
  EXPECT_NO_THROW(toolchain->compile({stub.source, stub.file_name, stub.entry, source.name, flag}));
}

// The innermost run of every CPU stub must vectorize (restrict parameters, one
// stride per field): a codegen change that loses this fails here, not in a benchmark.
TEST(CpuCompile, InnermostRunVectorizesInEveryMode) {
  const KernelSource source{
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"};
  const std::vector<std::string> remarks = {"-Rpass=loop-vectorize"};
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
    for (int rank : {1, 2, 3, 5}) {
      if (mode == Mode::direct && rank > 3) continue;
      StubRequest request;
      request.kernel = &source;
      request.mode = mode;
      request.rank = rank;
      request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
      const GeneratedStub stub = generate_stub(request);
      const HostSharedObject object = compile_host_shared_object(
          {stub.source, stub.file_name, stub.entry, source.name, remarks});
      EXPECT_NE(object.diagnostics.find("remark: vectorized loop"), std::string::npos)
          << name_of(mode) << " rank " << rank << ":\n"
          << object.diagnostics;
    }
  }
}

// A CPU reduce stub's lanes are vectors of their own (two blocks, which the SLP
// vectorizer makes vector operations), and its loops over them stay out of the loop
// vectorizer. For 8- and 16-bit integers it had vectorized them across iterations as
// well (32 iterations of 16 interleaved loads at a time): 2 to 6 seconds of compile per
// stub and code 14 times the size, for a min or max that ran 2.6 to 4.3 times slower.
TEST(CpuCompile, ReduceAndScanPartialsLanesAreNoVectorizedLoop) {
  const auto compile_remarks = [](const KernelSource& source, Pattern pattern, int rank,
                                  int dimension, const std::string& pass) {
    StubRequest request;
    request.kernel = &source;
    request.pattern = pattern;
    request.mode = Mode::spread;
    request.rank = rank;
    request.reduce_dimension = dimension;
    // A reduce's result is bound as broadcast, a scan's as projection (stub_source.cpp).
    request.bindings = {Binding::projection,
                        pattern == Pattern::reduce ? Binding::broadcast : Binding::projection};
    const GeneratedStub stub = generate_stub(request);
    const std::vector<std::string> remarks = {"-Rpass=" + pass};
    return compile_host_shared_object(
               {stub.source, stub.file_name, stub.entry, source.name, remarks})
        .diagnostics;
  };
  const KernelSource min_i8{
      "min_i8", {in<std::int8_t>("x"), result<std::int8_t>("v", Combiner::min)}, "v = x;"};
  const KernelSource sum_u16{
      "sum_u16", {in<std::uint16_t>("x"), result<std::uint16_t>("v", Combiner::sum, 1)}, "v = x;"};
  const KernelSource scan_i8{
      "scan_i8", {in<std::int8_t>("x"), scan<std::int8_t>("y", Combiner::max)}, "y = x;"};
  struct Case {
    const KernelSource* source;
    Pattern pattern;
    int rank, dimension;
  };
  for (const Case& c :
       {Case{&min_i8, Pattern::reduce, 1, -1}, Case{&sum_u16, Pattern::reduce, 2, 0},
        Case{&scan_i8, Pattern::scan_partials, 1, 0}}) {
    const std::string name =
        c.source->name + (c.pattern == Pattern::reduce ? " reduce" : " scan partials");
    const std::string loops =
        compile_remarks(*c.source, c.pattern, c.rank, c.dimension, "loop-vectorize");
    EXPECT_EQ(loops.find("remark: vectorized loop"), std::string::npos) << name << ":\n" << loops;
    const std::string slp =
        compile_remarks(*c.source, c.pattern, c.rank, c.dimension, "slp-vectorizer");
    EXPECT_NE(slp.find("remark: SLP vectorized"), std::string::npos) << name << ":\n" << slp;
  }
}

}  // namespace
}  // namespace stubjit::detail
