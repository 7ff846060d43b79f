// Kernel::prepare and Kernel::binary on the CPU backend: the stub a launch needs is
// compiled without running anything, the following launch is a memory hit, refused
// arguments are refused as a launch refuses them (and nothing compiles), and a
// stub's bytes are an ELF image for the host's machine.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "common/elf_symbols.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

// These tests count compiles.
RuntimeOptions memory_only() { return test::cpu_memory_only_options(); }

std::vector<float> values(const Field& field, std::size_t n) {
  std::vector<float> out(n);
  field.copy_to(out.data(), n);
  return out;
}

TEST(Prepare, CompilesRunsNothingAndTheLaunchAfterIsAMemoryHit) {
  Runtime runtime(memory_only());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::size_t n = 300;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1000.0f + static_cast<float>(i);
  }
  Field fx = runtime.allocate<float>({300});
  Field fy = runtime.allocate<float>({300});
  fx.copy_from(x);
  fy.copy_from(y);

  const LaunchSummary prepared = saxpy.prepare(Domain{300}, 2.0f, fx, fy);
  const Plan plan = saxpy.plan(Domain{300});
  EXPECT_TRUE(prepared.compiled);
  EXPECT_EQ(prepared.mode, plan.mode);
  EXPECT_EQ(prepared.rank, 1);
  EXPECT_EQ(prepared.dispatches, plan.dispatches.size());
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(runtime.counters().launches, 0u);
  EXPECT_EQ(values(fy, n), y) << "prepare wrote the field";
  EXPECT_EQ(values(fx, n), x);

  // Prepared again: found, not compiled.
  EXPECT_FALSE(saxpy.prepare(Domain{300}, 2.0f, fx, fy).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);

  const LaunchSummary launched = saxpy.launch(Domain{300}, 2.0f, fx, fy);
  EXPECT_FALSE(launched.compiled);
  EXPECT_EQ(launched.mode, prepared.mode);
  EXPECT_EQ(launched.dispatches, prepared.dispatches);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_EQ(runtime.counters().launches, 1u);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 2.0f * x[i] + y[i];
  EXPECT_EQ(values(fy, n), expected);
}

TEST(Prepare, AForcedModePreparesThatModesStubOnly) {
  Runtime runtime(memory_only());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field fx = runtime.allocate<float>({8, 8});
  Field fy = runtime.allocate<float>({8, 8});
  LaunchOptions spread;
  spread.mode = Mode::spread;
  const LaunchSummary prepared = saxpy.prepare(spread, Domain{8, 8}, 1.0f, fx, fy);
  EXPECT_EQ(prepared.mode, Mode::spread);
  EXPECT_EQ(prepared.rank, 1);  // dense: fused, as the launch fuses it
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_FALSE(saxpy.launch(spread, Domain{8, 8}, 1.0f, fx, fy).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
  LaunchOptions direct;
  direct.mode = Mode::direct;
  EXPECT_TRUE(saxpy.launch(direct, Domain{8, 8}, 1.0f, fx, fy).compiled);  // another stub
  EXPECT_EQ(runtime.counters().compiles, 2u);
}

// What launch throws, prepare throws: same class, same message; nothing compiles.
template <class E, class Call>
std::string message_of(Call&& call) {
  try {
    call();
  } catch (const E& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error thrown";
  return {};
}

TEST(Prepare, RefusesWhatALaunchRefusesWithTheSameErrorAndCompilesNothing) {
  Runtime runtime(memory_only());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field fx = runtime.allocate<float>({16});
  Field fy = runtime.allocate<float>({16});
  Field small = runtime.allocate<float>({4});
  Field doubles = runtime.allocate<double>({16});

  // A scalar of the wrong type.
  EXPECT_EQ(message_of<ArgumentError>([&] { saxpy.prepare(Domain{16}, 2, fx, fy); }),
            message_of<ArgumentError>([&] { saxpy.launch(Domain{16}, 2, fx, fy); }));
  // A field too small for the domain.
  EXPECT_EQ(message_of<ArgumentError>([&] { saxpy.prepare(Domain{16}, 2.0f, fx, small); }),
            message_of<ArgumentError>([&] { saxpy.launch(Domain{16}, 2.0f, fx, small); }));
  // A field of the wrong element type; one argument too few.
  EXPECT_EQ(message_of<ArgumentError>([&] { saxpy.prepare(Domain{16}, 2.0f, doubles, fy); }),
            message_of<ArgumentError>([&] { saxpy.launch(Domain{16}, 2.0f, doubles, fy); }));
  EXPECT_EQ(message_of<ArgumentError>([&] { saxpy.prepare(Domain{16}, 2.0f, fx); }),
            message_of<ArgumentError>([&] { saxpy.launch(Domain{16}, 2.0f, fx); }));
  // Direct cannot cover rank 4.
  Field cx = runtime.allocate<float>({2, 2, 2, 2});
  Field cy = runtime.allocate<float>({2, 2, 2, 2});
  LaunchOptions direct;
  direct.mode = Mode::direct;
  EXPECT_EQ(message_of<PlanError>([&] {
              saxpy.prepare(direct, Domain{2, 2, 2, 2}, 1.0f, cx, cy);
            }),
            message_of<PlanError>([&] {
              saxpy.launch(direct, Domain{2, 2, 2, 2}, 1.0f, cx, cy);
            }));
  // A null stream.
  LaunchOptions null_stream;
  const Stream none;
  null_stream.stream = &none;
  EXPECT_THROW(saxpy.prepare(null_stream, Domain{16}, 2.0f, fx, fy), Error);
  EXPECT_THROW(saxpy.binary(Domain{16}, {2, fx, fy}), ArgumentError);

  EXPECT_EQ(runtime.counters().compiles, 0u);
  EXPECT_EQ(runtime.counters().compile_failures, 0u);
  EXPECT_EQ(runtime.counters().launches, 0u);
}

TEST(Prepare, AnEmptyDomainNeedsNoStub) {
  Runtime runtime(memory_only());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field fx = runtime.allocate<float>({4, 4});
  Field fy = runtime.allocate<float>({4, 4});
  const LaunchSummary summary = saxpy.prepare(Domain{4, 0}, 1.0f, fx, fy);
  EXPECT_EQ(summary.dispatches, 0u);
  EXPECT_FALSE(summary.compiled);
  EXPECT_EQ(runtime.counters().compiles, 0u);
  try {
    saxpy.binary(Domain{4, 0}, {1.0f, fx, fy});
    ADD_FAILURE() << "a binary for an empty domain";
  } catch (const DomainError& error) {
    EXPECT_EQ(error.dimension(), 1);
  }
  EXPECT_EQ(runtime.counters().compiles, 0u);
}

TEST(Prepare, BinaryIsTheHostsElfImageOfTheLaunchedStub) {
  Runtime runtime(memory_only());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field fx = runtime.allocate<float>({64});
  Field fy = runtime.allocate<float>({64});
  const StubBinary binary = saxpy.binary(Domain{64}, {1.0f, fx, fy});
  EXPECT_EQ(runtime.counters().compiles, 1u);
  EXPECT_FALSE(binary.format.empty());
  EXPECT_EQ(binary.target, runtime.target_id());
  EXPECT_EQ(binary.cache_name.size(), 32u);
  EXPECT_EQ(binary.mode, saxpy.plan(Domain{64}).mode);
  EXPECT_EQ(binary.rank, 1);
  const std::optional<test::ElfInfo> elf = test::read_elf(binary.bytes);
  ASSERT_TRUE(elf) << "not an ELF64 image: " << binary.format;
#if defined(__x86_64__)
  EXPECT_EQ(elf->machine, test::elf_machine_x86_64);
#elif defined(__aarch64__)
  EXPECT_EQ(elf->machine, 183);  // EM_AARCH64
#endif
  EXPECT_TRUE(elf->defines(binary.entry)) << binary.entry;
  // The bytes came from the stores: no second compile, and the launch finds the stub.
  EXPECT_EQ(saxpy.binary(Domain{64}, {1.0f, fx, fy}).bytes, binary.bytes);
  EXPECT_FALSE(saxpy.launch(Domain{64}, 1.0f, fx, fy).compiled);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

}  // namespace
}  // namespace stubjit
