// The checks of the sort pattern on a GPU runtime (cuda/gpu_sort_test.cpp,
// hip/gpu_sort_test.cpp on a device; emulator/emulator_sort_test.cpp through the real
// CUDA and HIP stubs on the host emulator), each launch against std::stable_sort on the
// host (common/sort_reference.hpp):
//   - int64 keys with many ties and the sorting permutation as a payload, with groups of
//     32, 64, 72 (not a power of two: a short last warp) and 256 threads (1024 on a
//     GPU): pencils of one group with a short last thread run, of a few parts (merge
//     passes), and of forty (more passes than the in-group merges); twice, the scratch
//     reused;
//   - a rank-3 domain sorted along each dimension, descending int32, in C and Fortran
//     order, short pencils and a long one;
//   - floats with NaNs and signed zeros in both orders (NaNs last, zeros in their
//     order), and a custom order with a payload;
//   - the other element types (u8, i16, u64, float16, bool, complex<double> by a custom
//     order);
//   - empty domains (nothing written) and one-element pencils;
//   - a domain that walks a field backwards with a step of -3 (the rest untouched), keys
//     declared after two payloads.
// On the public API only.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/sort_reference.hpp"
#include "cuda/gpu_reduce_checks.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test::sort {

using reduce::holding;
using reduce::i32;
using reduce::i64;
using reduce::mix;
using reduce::reduce_group_sizes;
using reduce::u64;

// Elements each GPU thread sorts on its own before its group merges them (a launch's
// parts are a group's threads times as many: docs/patterns.md).
constexpr i64 thread_run = 8;

inline LaunchOptions sort_options(std::uint32_t group_size = 0, int dimension = -1) {
  LaunchOptions options;
  options.group_size = group_size;
  options.reduce_dimension = dimension;
  return options;
}

// int64 keys with ties (a few hundred distinct values), the same every run.
inline std::vector<i64> tied_keys(std::size_t n, u64 seed) {
  std::vector<i64> keys(n);
  for (std::size_t k = 0; k < n; ++k) keys[k] = i64(mix(seed + k) % 301) - 150;
  return keys;
}

inline void check_int64_sort_with_every_group_size(Runtime& runtime) {
  Kernel kernel = runtime.kernel({"sort_i64_perm",
                                  {stubjit::sort<i64>("x"), payload<i64>("perm"), index("i")},
                                  "perm = i[0];"});
  const auto less = [](i64 a, i64 b) { return a < b; };
  for (const std::uint32_t size : reduce_group_sizes()) {
    const i64 part = i64(size) * thread_run;
    std::vector<i64> lengths = {part - 3, part * 3 + 7};
    if (size == 32) lengths.push_back(part * 40 + 3);
    for (const i64 n : lengths) {
      SCOPED_TRACE("groups of " + std::to_string(size) + ", " + std::to_string(n) + " keys");
      const std::vector<i64> keys = tied_keys(std::size_t(n), u64(n) * 7 + size);
      const std::vector<i64> perm = test::host_sort_permutation(keys, {n}, 0, less);
      const std::vector<i64> sorted = test::host_apply_permutation(keys, perm, {n}, 0);
      for (int run = 0; run < 2; ++run) {
        Field x = holding(runtime, {n}, keys);
        Field p = holding(runtime, {n}, std::vector<i64>(std::size_t(n), -1));
        const LaunchSummary summary = kernel.launch(sort_options(size), Domain{n}, x, p);
        EXPECT_EQ(summary.group_size, size);
        EXPECT_EQ(summary.reduce_parts, u64((n + part - 1) / part));
        EXPECT_EQ(x.to_vector<i64>(), sorted);
        EXPECT_EQ(p.to_vector<i64>(), perm);
      }
    }
  }
}

// A rank-3 domain sorted along each dimension (descending int32 with the position along
// it as a payload), short pencils and a long one, in C and Fortran order.
inline void check_rank3_along_each_dimension(Runtime& runtime) {
  const auto more = [](i32 a, i32 b) { return b < a; };
  for (int along = 0; along < 3; ++along) {
    Kernel kernel = runtime.kernel(
        {"sort_r3_along" + std::to_string(along),
         {stubjit::sort<i32>("x", SortOrder::descending), payload<i64>("perm"), index("i")},
         "perm = i[" + std::to_string(along) + "];"});
    for (const bool long_dimension : {false, true})
      for (const Order order : {Order::c, Order::fortran}) {
        std::vector<i64> counts = {4, 5, 6};
        if (long_dimension) {
          counts = {2, 3, 2};
          counts[std::size_t(along)] = 700;
        }
        SCOPED_TRACE(std::string(order == Order::c ? "C" : "Fortran") + " order, along " +
                     std::to_string(along) + (long_dimension ? ", long" : ""));
        const std::size_t n = std::size_t(counts[0] * counts[1] * counts[2]);
        std::vector<i32> keys(n);
        for (std::size_t k = 0; k < n; ++k) keys[k] = i32(mix(k + 99) % 41) - 20;
        // Fortran order: column-major fields over the counts hold row-major data over the
        // reversed counts, the domain's dimension d that data's 2 - d.
        const std::vector<i64> rows =
            order == Order::c ? counts : std::vector<i64>{counts[2], counts[1], counts[0]};
        const int row_along = order == Order::c ? along : 2 - along;
        const Layout layout = order == Order::c ? Layout::row_major : Layout::column_major;
        Field x = runtime.allocate<i32>(counts, layout);
        Field p = runtime.allocate<i64>(counts, layout);
        x.copy_from(keys);
        kernel.launch(
            sort_options(64, along),
            Domain({Dim{0, counts[0], 1}, Dim{0, counts[1], 1}, Dim{0, counts[2], 1}}, order), x,
            p);
        const std::vector<i64> perm = test::host_sort_permutation(keys, rows, row_along, more);
        EXPECT_EQ(x.to_vector<i32>(), test::host_apply_permutation(keys, perm, rows, row_along));
        EXPECT_EQ(p.to_vector<i64>(), perm);
      }
  }
}

// Floats with NaNs, infinities and signed zeros, both orders, bit for bit (NaNs last,
// equal zeros in their order); a custom order with a payload.
inline void check_floats_and_custom_orders(Runtime& runtime) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const i64 n = 3001;
  std::vector<float> keys(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const u64 r = mix(k);
    keys[k] = r % 13 == 0 ? nan : r % 11 == 0 ? (r % 2 ? -0.0f : 0.0f) : float(i64(r % 61) - 30);
  }
  const auto up = [](float a, float b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
  const auto down = [](float a, float b) { return b < a || (std::isnan(b) && !std::isnan(a)); };
  for (const bool ascending : {true, false}) {
    Kernel kernel = runtime.kernel(
        {ascending ? "sort_f32_up" : "sort_f32_down",
         {stubjit::sort<float>("x", ascending ? SortOrder::ascending : SortOrder::descending)},
         ""});
    Field x = holding(runtime, {n}, keys);
    kernel.launch(sort_options(64), Domain{n}, x);
    const std::vector<float> want =
        ascending ? test::host_sort(keys, {n}, 0, up) : test::host_sort(keys, {n}, 0, down);
    const std::vector<float> got = x.to_vector<float>();
    EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * want.size()), 0)
        << (ascending ? "ascending" : "descending");
    EXPECT_TRUE(std::isnan(got.back()));
  }
  Kernel by_magnitude = runtime.kernel(
      {"sort_by_magnitude",
       {stubjit::sort<double>("x", "(a < 0 ? -a : a) < (b < 0 ? -b : b)"), payload<i32>("tag")},
       ""});
  std::vector<double> values(static_cast<std::size_t>(n));
  std::vector<i32> tags(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < values.size(); ++k) {
    values[k] = double(i64(mix(k + 5) % 201) - 100) / 8.0;
    tags[k] = i32(k);
  }
  Field x = holding(runtime, {n}, values);
  Field t = holding(runtime, {n}, tags);
  by_magnitude.launch(sort_options(96), Domain{n}, x, t);
  const std::vector<i64> perm = test::host_sort_permutation(
      values, {n}, 0, [](double a, double b) { return std::abs(a) < std::abs(b); });
  EXPECT_EQ(x.to_vector<double>(), test::host_apply_permutation(values, perm, {n}, 0));
  EXPECT_EQ(t.to_vector<i32>(), test::host_apply_permutation(tags, perm, {n}, 0));
}

template <class T, class Less>
void expect_sorted(Runtime& runtime, const std::string& name, Param keys_param,
                   const std::vector<T>& keys, Less less) {
  Kernel kernel = runtime.kernel({name, {std::move(keys_param)}, ""});
  const i64 n = i64(keys.size());
  Field x = holding(runtime, {n}, keys);
  kernel.launch(sort_options(32), Domain{n}, x);
  EXPECT_EQ(x.to_vector<T>(), test::host_sort(keys, {n}, 0, less)) << name;
}

inline void check_other_element_types(Runtime& runtime) {
  const std::size_t n = 700;
  std::vector<std::uint8_t> u8s(n);
  std::vector<std::int16_t> i16s(n);
  std::vector<u64> u64s(n);
  std::vector<float16> halves(n);
  std::vector<bool> bools(n);
  std::vector<std::complex<double>> zs(n);
  for (std::size_t k = 0; k < n; ++k) {
    const u64 r = mix(k + 1234);
    u8s[k] = std::uint8_t(r);
    i16s[k] = std::int16_t(r >> 8);
    u64s[k] = r;
    halves[k] = float16(float(i64(r % 41) - 20) / 4.0f);
    bools[k] = (r & 4) != 0;
    zs[k] = {double(r % 5), double((r >> 8) % 7)};
  }
  expect_sorted(runtime, "sort_u8", stubjit::sort<std::uint8_t>("x"), u8s,
                [](std::uint8_t a, std::uint8_t b) { return a < b; });
  expect_sorted(runtime, "sort_i16", stubjit::sort<std::int16_t>("x", SortOrder::descending), i16s,
                [](std::int16_t a, std::int16_t b) { return b < a; });
  expect_sorted(runtime, "sort_u64", stubjit::sort<u64>("x"), u64s,
                [](u64 a, u64 b) { return a < b; });
  expect_sorted(runtime, "sort_f16", stubjit::sort<float16>("x"), halves,
                [](float16 a, float16 b) { return float(a) < float(b); });
  expect_sorted(runtime, "sort_bool", stubjit::sort<bool>("x"), bools,
                [](bool a, bool b) { return !a && b; });
  expect_sorted(runtime, "sort_complex",
                stubjit::sort<std::complex<double>>("x", "imag(a) < imag(b)"), zs,
                [](std::complex<double> a, std::complex<double> b) { return a.imag() < b.imag(); });
}

// An empty domain writes nothing; a one-element pencil keeps its key and takes what the
// body sets in its payload.
inline void check_empty_and_one_element(Runtime& runtime) {
  Kernel kernel = runtime.kernel({"sort_edges",
                                  {stubjit::sort<double>("x"), payload<i64>("perm"), index("i")},
                                  "perm = i[0] + 10;"});
  Field x = holding(runtime, {4}, std::vector<double>{4, 3, 2, 1});
  Field p = holding(runtime, {4}, std::vector<i64>{-1, -1, -1, -1});
  EXPECT_EQ(kernel.launch(Domain({Dim{0, 0, 1}}), x, p).dispatches, 0u);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{4, 3, 2, 1}));
  kernel.launch(Domain({Dim{2, 1, 1}}), x, p);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{4, 3, 2, 1}));
  EXPECT_EQ(p.to_vector<i64>(), (std::vector<i64>{-1, -1, 12, -1}));
  // Pencils of one element along dimension 1 of a 3 x 1 box.
  Field y = holding(runtime, {3, 1}, std::vector<double>{5, 4, 3});
  Field q = holding(runtime, {3, 1}, std::vector<i64>{-1, -1, -1});
  kernel.launch(sort_options(0, 1), Domain{3, 1}, y, q);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{5, 4, 3}));
  EXPECT_EQ(q.to_vector<i64>(), (std::vector<i64>{10, 11, 12}));
}

// A domain that walks a field backwards, every third element from 700 (the others left
// alone), with the keys after two payloads in the signature: each position k of the
// domain is element 700 - 3k, sorted by its key, the payloads moved with it.
inline void check_backward_domain_and_payloads_first(Runtime& runtime) {
  Kernel kernel = runtime.kernel(
      {"sort_backward",
       {payload<i32>("tag"), payload<double>("half"), stubjit::sort<i64>("x"), index("i")},
       "tag = int(i[0]); half = 0.5 * double(x);"});
  const i64 size = 705, count = 234;  // elements 700, 697, ..., 1
  std::vector<i64> keys(static_cast<std::size_t>(size));
  for (std::size_t k = 0; k < keys.size(); ++k) keys[k] = i64(mix(k + 77) % 50);
  Field x = holding(runtime, {size}, keys);
  Field tag = holding(runtime, {size}, std::vector<i32>(std::size_t(size), -1));
  Field half = holding(runtime, {size}, std::vector<double>(std::size_t(size), -1.0));
  kernel.launch(sort_options(32), Domain({Dim{700, count, -3}}), tag, half, x);
  std::vector<i64> walked(static_cast<std::size_t>(count));
  for (i64 k = 0; k < count; ++k) walked[std::size_t(k)] = keys[std::size_t(700 - 3 * k)];
  const std::vector<i64> perm =
      test::host_sort_permutation(walked, {count}, 0, [](i64 a, i64 b) { return a < b; });
  std::vector<i64> want_x = keys;
  std::vector<i32> want_tag(static_cast<std::size_t>(size), -1);
  std::vector<double> want_half(static_cast<std::size_t>(size), -1.0);
  for (i64 k = 0; k < count; ++k) {
    const std::size_t at = std::size_t(700 - 3 * k);
    const i64 from = perm[std::size_t(k)];
    want_x[at] = walked[std::size_t(from)];
    want_tag[at] = i32(700 - 3 * from);  // the index token: the logical index
    want_half[at] = 0.5 * double(walked[std::size_t(from)]);
  }
  EXPECT_EQ(x.to_vector<i64>(), want_x);
  EXPECT_EQ(tag.to_vector<i32>(), want_tag);
  EXPECT_EQ(half.to_vector<double>(), want_half);
}

}  // namespace stubjit::test::sort
