// On a CUDA GPU: every kernel of tests/common/kernels.hpp gives the CPU backend's
// results for the same inputs, in every mode. (Built without the CPU backend, the
// test-tree serial backend's: the same C++ stubs compiled by the system's compiler.)
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <utility>

#include "common/kernels.hpp"
#include "cuda/gpu_support.hpp"

namespace stubjit {
namespace {

template <class T>
std::vector<T> pattern(std::size_t n, int seed) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<T>(static_cast<std::int64_t>((i * 7919 + seed * 104729) % 2003) - 1000);
  return values;
}

template <class T>
Field field_with(Runtime& runtime, const std::vector<std::int64_t>& extents,
                 const std::vector<T>& values) {
  Field field = runtime.allocate<T>(extents);
  field.copy_from(values);
  return field;
}

// Runs `launch` on both backends; `result` reads the output of each.
template <class T>
void expect_same(const std::function<Field(Runtime&, std::optional<Mode>)>& launch) {
  CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{});
#ifdef STUBJIT_TEST_REFERENCE_BACKEND
  RuntimeOptions reference;
  reference.backend = STUBJIT_TEST_REFERENCE_BACKEND;
  Runtime host(reference);
#else
  Runtime host(test::cpu_options());
#endif
  const std::vector<T> expected = launch(host, std::nullopt).template to_vector<T>();
  for (std::optional<Mode> mode : {std::optional<Mode>{}, std::optional<Mode>{Mode::spread},
                                   std::optional<Mode>{Mode::multi}}) {
    const std::vector<T> got = launch(*gpu, mode).template to_vector<T>();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        // Both sides may contract a*x+y into one fused multiply-add, or not.
        ASSERT_NEAR(got[i], expected[i], 1e-6 * (1 + std::abs(expected[i])))
            << "element " << i << (mode ? std::string(" mode ") + name_of(*mode) : "");
      } else {
        ASSERT_EQ(got[i], expected[i])
            << "element " << i << (mode ? std::string(" mode ") + name_of(*mode) : "");
      }
    }
  }
}

LaunchOptions with_mode(std::optional<Mode> mode) {
  LaunchOptions options;
  options.mode = mode;
  return options;
}

TEST(CudaMatchesCpu, Saxpy2D) {
  const std::int64_t rows = 300, cols = 517;
  const auto n = static_cast<std::size_t>(rows * cols);
  expect_same<float>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel saxpy = runtime.kernel(test::saxpy_kernel());
    Field x = field_with(runtime, {rows, cols}, pattern<float>(n, 1));
    Field y = field_with(runtime, {rows, cols}, pattern<float>(n, 2));
    saxpy.launch(with_mode(mode), Domain{rows, cols}, 0.75f, x, y);
    return y;
  });
}

TEST(CudaMatchesCpu, MixedTypesRank3ColumnMajor) {
  const std::vector<std::int64_t> extents = {13, 17, 19};
  const std::size_t n = 13 * 17 * 19;
  expect_same<double>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel mixed = runtime.kernel(test::mixed_types_kernel());
    Field x = runtime.allocate<double>(extents, Layout::column_major);
    x.copy_from(pattern<double>(n, 3));
    Field k = field_with(runtime, extents, pattern<std::int32_t>(n, 4));
    Field z = field_with(runtime, extents, std::vector<double>(n, 0.0));
    mixed.launch(with_mode(mode), Domain{13, 17, 19}, 1.5, std::int32_t(-7), std::uint32_t(0xff),
                 std::int64_t(1) << 40, x, k, z);
    return z;
  });
}

// float16 and bfloat16 codes from the GPU's conversions (PTX cvt) are the host's
// (F16C or the prelude's integer arithmetic): every rounding to nearest even; and
// complex<double> arithmetic gives the host's values.
TEST(CudaMatchesCpu, HalfCodesAndComplexValues) {
  const std::int64_t n = 70001;
  std::vector<float> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(static_cast<float>(int(i % 2003) - 1000) / 7.0f, int(i % 48) - 30);
  expect_same<std::uint32_t>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel codes = runtime.kernel({"codes",
                                   {in<float>("x"), inout<std::uint32_t>("code")},
                                   "const stubjit::float16 h = x;\n"
                                   "const stubjit::float16 halved = float(h) * 0.5f;\n"
                                   "code = stubjit::u32(halved.bits()) | "
                                   "(stubjit::u32(stubjit::bfloat16(x * 3.0f).bits()) << 16);"});
    Field dx = field_with(runtime, {n}, x);
    Field out = field_with(runtime, {n}, std::vector<std::uint32_t>(x.size(), 0));
    codes.launch(with_mode(mode), Domain{n}, dx, out);
    return out;
  });
  using Z = std::complex<double>;
  std::vector<Z> z(1000);
  for (std::size_t i = 0; i < z.size(); ++i)
    z[i] = Z(double(int(i % 37) - 18) / 3, double(i % 11) + 0.5);
  expect_same<double>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel mix = runtime.kernel({"mix",
                                 {scalar<Z>("w"), in<Z>("z"), inout<double>("out")},
                                 "const stubjit::complex<double> q = z * w / (z + 1.0) - conj(w);\n"
                                 "out = real(q) + 2 * imag(q) + abs(q);"});
    Field dz = field_with(runtime, {1000}, z);
    Field out = field_with(runtime, {1000}, std::vector<double>(1000, 0.0));
    mix.launch(with_mode(mode), Domain{1000}, Z(0.5, -2), dz, out);
    return out;
  });
}

// Specialized scalars on the GPU: one runtime, values in turn (a loop bound and a
// float), each launch against the host's own loop: a stub run for another value than
// its own would give the other value's results.
TEST(CudaSpecialized, EachValueRunsItsOwnStub) {
  CUDA_RUNTIME_OR_SKIP(gpu, RuntimeOptions{});
  const std::int64_t n = 4099;
  Kernel poly = gpu->kernel({"poly",
                             {specialized<std::int32_t>("degree"), specialized<float>("c"),
                              in<float>("x"), inout<float>("y")},
                             "float acc = 0.0f;\n"
                             "for (stubjit::i32 k = 0; k <= degree; ++k) acc = acc * x + c;\n"
                             "y = acc;",
                             "",
                             {}});
  std::vector<float> xs(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = float(int(i % 201) - 100) / 100.0f;
  Field x = field_with(*gpu, {n}, xs);
  Field y = field_with(*gpu, {n}, std::vector<float>(xs.size(), 0.0f));
  const std::vector<std::pair<std::int32_t, float>> values = {
      {2, 0.5f}, {5, 0.5f}, {5, -0.25f}, {2, 0.5f}};
  for (const auto& [degree, c] : values) {
    for (std::optional<Mode> mode : {std::optional<Mode>{}, std::optional<Mode>{Mode::spread}}) {
      poly.launch(with_mode(mode), Domain{n}, degree, c, x, y);
      const std::vector<float> got = y.to_vector<float>();
      for (std::size_t i = 0; i < xs.size(); ++i) {
        float acc = 0.0f;
        for (std::int32_t k = 0; k <= degree; ++k) acc = acc * xs[i] + c;
        // The device may contract acc * x + c into one fused multiply-add.
        ASSERT_NEAR(got[i], acc, 1e-5f) << "degree " << degree << " c " << c << " element " << i;
      }
    }
  }
  // Three distinct values, in two modes each: six stubs, each compiled (or found on
  // disk) once.
  const CacheCounters counters = gpu->counters();
  EXPECT_EQ(counters.compiles + counters.disk_hits, 6u);
}

TEST(CudaMatchesCpu, RowSumsByPartialProjection) {
  const std::int64_t rows = 1000, cols = 37;
  expect_same<double>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel row_sum = runtime.kernel(test::row_sum_kernel());
    Field m = field_with(runtime, {rows, cols},
                         pattern<double>(static_cast<std::size_t>(rows * cols), 5));
    Field totals = field_with(runtime, {rows}, std::vector<double>(rows, 0.0));
    row_sum.launch(with_mode(mode), Domain{rows}, m, totals);
    return totals;
  });
}

TEST(CudaMatchesCpu, LookupThroughABroadcastTable) {
  expect_same<std::int32_t>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel lookup = runtime.kernel(test::lookup_kernel());
    Field table = field_with(runtime, {5}, std::vector<std::int32_t>{10, 20, 30, 40, 50});
    std::vector<std::int32_t> keys(1000);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int32_t>(i * 3);
    Field k = field_with(runtime, {1000}, keys);
    Field out = field_with(runtime, {1000}, std::vector<std::int32_t>(1000, 0));
    lookup.launch(with_mode(mode), Domain{1000}, table, k, out);
    return out;
  });
}

TEST(CudaMatchesCpu, SumIntoABroadcastScalarField) {
  const std::int64_t n = 100003;
  expect_same<std::int64_t>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel sum = runtime.kernel(test::sum_kernel());
    Field x = field_with(runtime, {n}, pattern<std::int64_t>(static_cast<std::size_t>(n), 6));
    Field total = field_with(runtime, {}, std::vector<std::int64_t>{0});
    sum.launch(with_mode(mode), Domain{n}, x, total);
    return total;
  });
}

TEST(CudaMatchesCpu, IndexCodesRank5) {
  const std::vector<std::int64_t> extents = {4, 6, 5, 3, 7};
  expect_same<std::int64_t>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel write = runtime.kernel(test::index_writer_kernel());
    Field out = field_with(runtime, extents, std::vector<std::int64_t>(4 * 6 * 5 * 3 * 7, -1));
    write.launch(with_mode(mode), Domain::loops({{0, 3}, {1, 5, 2}, {4, 0, -1}, {0, 2}, {0, 6, 3}}),
                 out);
    return out;
  });
}

TEST(CudaMatchesCpu, VisitCountsOverAStridedDomain) {
  expect_same<std::int32_t>([&](Runtime& runtime, std::optional<Mode> mode) {
    Kernel count = runtime.kernel(test::visit_counter_kernel());
    Field visits = field_with(runtime, {50, 60}, std::vector<std::int32_t>(3000, 0));
    count.launch(with_mode(mode), Domain::loops({{1, 49, 3}, {59, 0, -2}}), visits);
    return visits;
  });
}

// The double atomic add of devices below sm_60 (a compare-and-swap loop; the prelude
// picks it from __CUDA_ARCH__) forced with STUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS=1 on this
// newer device, where it can run, against the native add: both sum exactly.
TEST(CudaAtomics, DoubleAddByCompareAndSwapSumsLikeTheNativeAdd) {
  const std::int64_t n = 200003;
  std::vector<double> x(static_cast<std::size_t>(n));
  double expected = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i % 1000) - 250.0;  // integers: every sum is exact
    expected += x[i];
  }
  const KernelSource sum{"double_sum",
                         {in<double>("x"), inout<double>("total")},
                         "stubjit::atomic_add(total, x);",
                         "",
                         {}};
  for (bool by_cas : {false, true}) {
    RuntimeOptions options;
    if (by_cas) options.compiler_options = {"-DSTUBJIT_DOUBLE_ATOMIC_ADD_BY_CAS=1"};
    CUDA_RUNTIME_OR_SKIP(runtime, options);
    Field fx = field_with(*runtime, {n}, x);
    Field total = field_with(*runtime, {}, std::vector<double>{0.0});
    runtime->kernel(sum).launch(Domain{n}, fx, total);
    EXPECT_EQ(total.to_vector<double>().at(0), expected) << (by_cas ? "by CAS" : "native");
  }
}

}  // namespace
}  // namespace stubjit
