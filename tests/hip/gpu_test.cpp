// End to end on an AMD GPU through the shared library: every mode x rank 1..8 under
// small forced limits visits each index exactly once, a 200000-row rank-2 domain,
// equality with the CPU backend for the shared test kernels, streams, and compile
// errors. Without an AMD GPU every test skips with the reason; none passes without
// running, and with one that stubjit cannot use every test fails (hip/gpu_support.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numeric>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "hip/gpu_support.hpp"

namespace stubjit {
namespace {

class HipForcedModes : public ::testing::TestWithParam<test::CoverageCase> {};

TEST_P(HipForcedModes, EveryIndexOnceWithItsOwnIndex) {
  const test::CoverageCase c = GetParam();
  // Keep the device's wavefront width (64 on gfx9, 32 on gfx10+): a stub built for
  // another width does not compile.
  HIP_RUNTIME_OR_SKIP(device);
  HIP_RUNTIME_OR_SKIP(runtime, test::tiny_limits(device.limits().warp_size));
  test::check_tiny_limit_case(runtime, c);
}

INSTANTIATE_TEST_SUITE_P(AllRanks, HipForcedModes, ::testing::ValuesIn(test::tiny_limit_cases()),
                         test::case_name);

TEST(HipGpu, Rank2DomainWith200000Rows) {
  HIP_RUNTIME_OR_SKIP(runtime);
  Kernel write = runtime.kernel(test::index_writer_kernel());
  const std::vector<std::int64_t> extents = {200000, 3};
  Field out = runtime.allocate<std::int64_t>(extents);
  out.copy_from(std::vector<std::int64_t>(600000, -1));
  write.launch(Domain{200000, 3}, out);
  const std::vector<std::int64_t> host = out.to_vector<std::int64_t>();
  for (std::int64_t row = 0; row < 200000; ++row)
    for (std::int64_t col = 0; col < 3; ++col)
      ASSERT_EQ(host[static_cast<std::size_t>(row * 3 + col)], test::index_code({row, col}));
}

// The same launches on the CPU backend and on the GPU give the same fields.
TEST(HipGpu, SharedKernelsMatchTheCpuBackend) {
  HIP_RUNTIME_OR_SKIP(gpu);
  RuntimeOptions cpu_options;
  cpu_options.backend = "cpu";
  cpu_options.disk_cache = false;
  Runtime cpu(cpu_options);
  const std::vector<std::int64_t> extents = {37, 29, 5};
  const std::size_t n = 37 * 29 * 5;
  const Domain domain{37, 29, 5};

  std::vector<double> x(n), table(11);
  std::vector<std::int32_t> k(n);
  std::vector<std::int64_t> xi(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::sin(double(i)) * 100.0;
    k[i] = static_cast<std::int32_t>(i * 7919 % 1000);
    xi[i] = static_cast<std::int64_t>(i % 97) - 40;
  }
  std::iota(table.begin(), table.end(), 3.0);

  struct Results {
    std::vector<double> mixed, rows;
    std::vector<std::int32_t> looked_up;
    std::vector<std::int64_t> total;
  };
  auto run = [&](Runtime& runtime) {
    Results r;
    Field fx = runtime.allocate<double>(extents), fk = runtime.allocate<std::int32_t>(extents);
    Field fz = runtime.allocate<double>(extents);
    fx.copy_from(x);
    fk.copy_from(k);
    fz.copy_from(std::vector<double>(n, 0.0));
    runtime.kernel(test::mixed_types_kernel())
        .launch(domain, 0.5, std::int32_t(-3), std::uint32_t(0xF0), std::int64_t(1) << 40, fx, fk,
                fz);
    r.mixed = fz.to_vector<double>();

    Field matrix = runtime.allocate<double>({37 * 29, 5});
    Field totals = runtime.allocate<double>({37 * 29});
    matrix.copy_from(x);
    runtime.kernel(test::row_sum_kernel()).launch(Domain{37 * 29}, matrix, totals);
    r.rows = totals.to_vector<double>();

    Field ftable = runtime.allocate<std::int32_t>({11}),
          fout = runtime.allocate<std::int32_t>(extents);
    ftable.copy_from(std::vector<std::int32_t>(table.begin(), table.end()));
    runtime.kernel(test::lookup_kernel()).launch(domain, ftable, fk, fout);
    r.looked_up = fout.to_vector<std::int32_t>();

    Field fxi = runtime.allocate<std::int64_t>(extents),
          ftotal = runtime.allocate<std::int64_t>({});
    fxi.copy_from(xi);
    ftotal.copy_from(std::vector<std::int64_t>{0});
    runtime.kernel(test::sum_kernel()).launch(domain, fxi, ftotal);
    r.total = ftotal.to_vector<std::int64_t>();
    return r;
  };
  const Results on_cpu = run(cpu);
  const Results on_gpu = run(gpu);
  EXPECT_EQ(on_gpu.looked_up, on_cpu.looked_up);
  EXPECT_EQ(on_gpu.total, on_cpu.total);
  ASSERT_EQ(on_gpu.mixed.size(), on_cpu.mixed.size());
  for (std::size_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(on_gpu.mixed[i], on_cpu.mixed[i]) << i;
  // Summation order is the same (one activity sums its row), contraction may differ.
  for (std::size_t i = 0; i < on_cpu.rows.size(); ++i)
    ASSERT_NEAR(on_gpu.rows[i], on_cpu.rows[i], 1e-9 * (1 + std::fabs(on_cpu.rows[i]))) << i;
}

TEST(HipGpu, SaxpyOnAStream) {
  HIP_RUNTIME_OR_SKIP(runtime);
  Stream stream = runtime.create_stream();
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  const std::size_t n = 1 << 20;
  std::vector<float> hx(n), hy(n);
  std::iota(hx.begin(), hx.end(), 0.0f);
  std::iota(hy.begin(), hy.end(), 5.0f);
  Field x = runtime.allocate<float>({std::int64_t(n)});
  Field y = runtime.allocate<float>({std::int64_t(n)});
  x.copy_from(hx);
  y.copy_from(hy);
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  saxpy.launch(on_stream, Domain{std::int64_t(n)}, 2.0f, x, y);
  stream.synchronize();
  const std::vector<float> out = y.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * hx[i] + hy[i]) << i;
}

TEST(HipGpu, CopiesRoundTripAndZeroSizeFieldsWork) {
  HIP_RUNTIME_OR_SKIP(runtime);
  std::vector<double> values(12345);
  std::iota(values.begin(), values.end(), -100.0);
  Field field = runtime.allocate<double>({12345});
  field.copy_from(values);
  EXPECT_EQ(field.to_vector<double>(), values);
  Field empty = runtime.allocate<float>({0, 7});
  EXPECT_TRUE(empty);
  EXPECT_TRUE(empty.to_vector<float>().empty());
}

TEST(HipGpu, WrappedDevicePointersAreLaunchedOn) {
  HIP_RUNTIME_OR_SKIP(runtime);
  Field owner = runtime.allocate<std::int32_t>({6, 10});
  owner.copy_from(std::vector<std::int32_t>(60, 0));
  // The same device memory seen as a transposed 10 x 6 view (column-major strides).
  Field view = runtime.wrap(static_cast<std::int32_t*>(owner.data()), {10, 6}, {1, 10});
  runtime.kernel(test::visit_counter_kernel()).launch(Domain{10, 6}, view);
  for (std::int32_t v : owner.to_vector<std::int32_t>()) ASSERT_EQ(v, 1);
}

TEST(HipGpu, BeyondThirtyTwoBitIndicesTheSixtyFourBitVariantRuns) {
  HIP_RUNTIME_OR_SKIP(runtime);
  const std::int64_t beyond = std::int64_t(1) << 31;
  Field codes;  // 16 GiB of int64
  try {
    codes = runtime.allocate<std::int64_t>({beyond + 64});
  } catch (const BackendError& error) {
    GTEST_SKIP() << "cannot allocate 16 GiB: " << error.what();
  }
  Kernel write = runtime.kernel(test::index_writer_kernel());
  const Domain tail(std::vector<Dim>{Dim{beyond, 64, 1}});
  EXPECT_NE(write.stub_source(tail, {codes}).find("stubjit::Index<1, stubjit::i64>"),
            std::string::npos);
  write.launch(tail, codes);
  Field last = runtime.wrap(static_cast<std::int64_t*>(codes.data()) + beyond, {64});
  const std::vector<std::int64_t> host = last.to_vector<std::int64_t>();
  for (std::int64_t k = 0; k < 64; ++k)
    ASSERT_EQ(host[static_cast<std::size_t>(k)], test::index_code({beyond + k}));
}

TEST(HipGpu, DeviceIsDescribedWithItsTarget) {
  HIP_RUNTIME_OR_SKIP(runtime);
  EXPECT_EQ(runtime.backend_name(), "hip");
  EXPECT_EQ(runtime.target_id().rfind("gfx", 0), 0u) << runtime.target_id();
  EXPECT_TRUE(runtime.limits().warp_size == 32 || runtime.limits().warp_size == 64);
  EXPECT_EQ(runtime.limits().max_threads_per_dim, std::uint64_t(1) << 32);
}

TEST(HipGpu, CompileErrorNamesTheBodyLine) {
  HIP_RUNTIME_OR_SKIP(runtime);
  Kernel broken =
      runtime.kernel({"broken", {inout<float>("y")}, "y = 1;\ny = undefined_name;", "", {}});
  Field y = runtime.allocate<float>({8});
  try {
    broken.launch(Domain{8}, y);
    FAIL() << "compiled an undefined name";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("broken.body:2:"), std::string::npos) << error.log();
  }
}

}  // namespace
}  // namespace stubjit
