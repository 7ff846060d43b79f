// The checks of the scan pattern on a GPU runtime (cuda/gpu_scan_test.cpp,
// hip/gpu_scan_test.cpp on a device; emulator/emulator_scan_test.cpp through the real
// CUDA and HIP stubs on the host emulator), each launch against a host prefix:
//   - int64 sums, inclusive and exclusive, long enough to be split into parts (the
//     partials stage, then each group's prefix of them), with groups of 32, 64, 72
//     (not a power of two) and 256 threads (1024 on a GPU), more parts than threads
//     too, and pencils of one group with a short last tile;
//   - a rank-3 domain scanned along each dimension, min and max of int32, in C and
//     Fortran order;
//   - float sums: the same bits from two runs, every prefix within a rounding bound;
//   - a scan in place (an empty body), a custom combiner, any of bools;
//   - exact scans of the other element types (u8, i16 products, f64, complex<double>);
//   - empty domains (nothing written) and one-element pencils;
//   - a pencil split into many one-tile parts, launched again and again: exact int64
//     prefixes and the same float bits every launch.
// On the public API only.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/scan_reference.hpp"
#include "cuda/gpu_reduce_checks.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test::scan {

using reduce::holding;
using reduce::i32;
using reduce::i64;
using reduce::int64_values;
using reduce::mix;
using reduce::reduce_group_sizes;
using reduce::u64;

inline LaunchOptions scan_options(std::uint32_t group_size = 0, int dimension = -1) {
  LaunchOptions options;
  options.group_size = group_size;
  options.reduce_dimension = dimension;
  return options;
}

// The prefix of `values` from `identity`, pencil by pencil along `along` of a
// row-major box over `counts` (common/scan_reference.hpp).
template <class T, class Combine>
std::vector<T> host_prefix(const std::vector<T>& values, const std::vector<i64>& counts, int along,
                           ScanKind kind, T identity, Combine combine) {
  return test::host_scan(values, counts, along, kind, identity, combine);
}

inline i64 wrapping_add(i64 a, i64 b) {
  return static_cast<i64>(static_cast<u64>(a) + static_cast<u64>(b));
}

inline const char* kind_word(ScanKind kind) {
  return kind == ScanKind::inclusive ? "inclusive" : "exclusive";
}

// int64 sums split into parts with every group size, inclusive and exclusive: the
// partials stage and each group's prefix of the parts before it; more parts than a
// group has threads (groups of 32); a pencil of one group whose last tile is short.
inline void check_int64_scan_in_parts(Runtime& runtime) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    Kernel kernel = runtime.kernel({std::string("scan_i64_") + kind_word(kind),
                                    {in<i64>("x"), stubjit::scan<i64>("y", Combiner::sum, kind)},
                                    "y = x;"});
    for (const std::uint32_t size : reduce_group_sizes()) {
      std::vector<i64> lengths = {i64(size) * 16 * 3 + 7, i64(size) * 2 + 5};
      if (size == 32) lengths.push_back(i64(size) * 16 * 40 + 3);
      for (const i64 n : lengths) {
        SCOPED_TRACE(std::string(kind_word(kind)) + ", groups of " + std::to_string(size) + ", " +
                     std::to_string(n) + " values");
        const std::vector<i64> values = int64_values(std::size_t(n), u64(n) * 17 + size);
        Field x = holding(runtime, {n}, values);
        Field y = holding(runtime, {n}, std::vector<i64>(std::size_t(n), -1));
        const LaunchSummary summary = kernel.launch(scan_options(size), Domain{n}, x, y);
        EXPECT_EQ(summary.group_size, size);
        EXPECT_EQ(summary.reduce_parts > 1, n > i64(size) * 16) << summary.reduce_parts;
        if (n > i64(size) * 16 * 40) {
          EXPECT_GT(summary.reduce_parts, size);
        }
        EXPECT_EQ(y.to_vector<i64>(), host_prefix<i64>(values, {n}, 0, kind, 0, wrapping_add));
        // Once more: the partials of the launch before are not read again.
        kernel.launch(scan_options(size), Domain{n}, x, y);
        EXPECT_EQ(y.to_vector<i64>(), host_prefix<i64>(values, {n}, 0, kind, 0, wrapping_add));
      }
    }
  }
}

// A rank-3 domain scanned along each dimension (running min and max of int32 with
// negatives and extremes), short pencils and a long one split into parts, in C order
// and in Fortran order.
inline void check_rank3_along_each_dimension(Runtime& runtime) {
  Kernel low = runtime.kernel(
      {"scan_min_r3", {in<i32>("x"), stubjit::scan<i32>("y", Combiner::min)}, "y = x;"});
  Kernel high =
      runtime.kernel({"scan_max_r3",
                      {in<i32>("x"), stubjit::scan<i32>("y", Combiner::max, ScanKind::exclusive)},
                      "y = x;"});
  const auto smaller = [](i32 a, i32 b) { return b < a ? b : a; };
  const auto larger = [](i32 a, i32 b) { return a < b ? b : a; };
  for (int along = 0; along < 3; ++along)
    for (const bool long_dimension : {false, true})
      for (const Order order : {Order::c, Order::fortran}) {
        // The domain's counts; Fortran order: column-major fields over them hold the
        // row-major data over the reversed counts, the domain's dimension d that data's
        // 2 - d.
        std::vector<i64> counts = {4, 5, 6};
        if (long_dimension) {
          counts = {2, 3, 2};
          counts[std::size_t(along)] = 1100;
        }
        SCOPED_TRACE(std::string(order == Order::c ? "C" : "Fortran") + " order, along " +
                     std::to_string(along) + (long_dimension ? ", long" : ""));
        const std::size_t n = std::size_t(counts[0] * counts[1] * counts[2]);
        std::vector<i32> values(n);
        for (std::size_t k = 0; k < n; ++k) values[k] = static_cast<i32>(mix(k + 99 + n));
        values[3] = std::numeric_limits<i32>::min();
        values[n - 2] = std::numeric_limits<i32>::max();
        const std::vector<i64> data_counts =
            order == Order::c ? counts : std::vector<i64>{counts[2], counts[1], counts[0]};
        const int data_along = order == Order::c ? along : 2 - along;
        const Layout layout = order == Order::c ? Layout::row_major : Layout::column_major;
        Field x = runtime.allocate<i32>(counts, layout);
        Field y = runtime.allocate<i32>(counts, layout);
        x.copy_from(values);
        const Domain domain(
            std::vector<Dim>{Dim{0, counts[0], 1}, Dim{0, counts[1], 1}, Dim{0, counts[2], 1}},
            order);
        const std::uint32_t size = long_dimension ? 32 : 0;
        const LaunchSummary summary = low.launch(scan_options(size, along), domain, x, y);
        EXPECT_EQ(summary.reduce_parts > 1, long_dimension) << summary.reduce_parts;
        EXPECT_EQ(y.to_vector<i32>(),
                  host_prefix<i32>(values, data_counts, data_along, ScanKind::inclusive,
                                   std::numeric_limits<i32>::max(), smaller));
        high.launch(scan_options(size, along), domain, x, y);
        EXPECT_EQ(y.to_vector<i32>(),
                  host_prefix<i32>(values, data_counts, data_along, ScanKind::exclusive,
                                   std::numeric_limits<i32>::lowest(), larger));
      }
}

// Float sums: two runs give the same bits, and every prefix is within a bound on its
// rounding that no order of combination exceeds (a loose one: the exact checks are the
// integer ones).
inline void check_float_scan_is_deterministic(Runtime& runtime) {
  Kernel kernel = runtime.kernel(
      {"scan_f32", {in<float>("x"), stubjit::scan<float>("y", Combiner::sum)}, "y = x;"});
  const i64 n = 30011;
  std::vector<float> values(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = float(0.5 + double(mix(k) % 1000) / 1000.0) * (mix(k + 7) % 2 ? 1.0f : -1.0f);
  Field x = holding(runtime, {n}, values);
  Field y = runtime.allocate<float>({n});
  EXPECT_GT(kernel.launch(Domain{n}, x, y).reduce_parts, 1u);
  const std::vector<float> first = y.to_vector<float>();
  y.copy_from(std::vector<float>(values.size(), 0.0f));
  kernel.launch(Domain{n}, x, y);
  const std::vector<float> second = y.to_vector<float>();
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
  if (const auto off = first_float_prefix_off_bound(first.data(), values.data(), values.size()))
    ADD_FAILURE() << "prefix " << off->k << ": " << first[off->k] << ", the host's " << off->host;
}

// A scan in place (an empty body: each value is the field's element), a custom
// combiner, and any of bools.
inline void check_in_place_custom_and_any(Runtime& runtime) {
  const i64 n = 5000;
  const std::vector<i64> values = int64_values(std::size_t(n), 4);
  Kernel in_place = runtime.kernel(
      {"scan_in_place", {stubjit::scan<i64>("y", Combiner::sum, ScanKind::exclusive)}, ""});
  Field y = holding(runtime, {n}, values);
  in_place.launch(scan_options(64), Domain{n}, y);
  EXPECT_EQ(y.to_vector<i64>(),
            host_prefix<i64>(values, {n}, 0, ScanKind::exclusive, 0, wrapping_add));

  Kernel custom =
      runtime.kernel({"scan_custom",
                      {in<double>("x"), stubjit::scan<double>("y", "a > b ? a : b", "-1e300")},
                      "y = x * x;"});
  std::vector<double> xs(static_cast<std::size_t>(n)), squares(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < xs.size(); ++k) {
    xs[k] = double(i64(mix(k) % 2001) - 1000);
    squares[k] = xs[k] * xs[k];
  }
  Field x = holding(runtime, {n}, xs);
  Field z = runtime.allocate<double>({n});
  custom.launch(scan_options(96), Domain{n}, x, z);
  EXPECT_EQ(z.to_vector<double>(),
            host_prefix<double>(squares, {n}, 0, ScanKind::inclusive, -1e300,
                                [](double a, double b) { return a > b ? a : b; }));

  Kernel any = runtime.kernel(
      {"scan_any", {in<bool>("x"), stubjit::scan<bool>("y", Combiner::any)}, "y = x;"});
  std::vector<bool> flags(static_cast<std::size_t>(n), false);
  flags[std::size_t(n) * 2 / 3] = true;
  Field f = runtime.allocate<bool>({n});
  f.copy_from(flags);
  Field g = runtime.allocate<bool>({n});
  any.launch(scan_options(32), Domain{n}, f, g);
  EXPECT_EQ(g.to_vector<bool>(), host_prefix<bool>(flags, {n}, 0, ScanKind::inclusive, false,
                                                   [](bool a, bool b) { return a || b; }));
}

// Exact scans of other element types: u8 sums (wrapping), i16 products of odd values,
// f64 and complex<double> sums of small integers.
inline void check_other_element_types(Runtime& runtime) {
  const i64 n = 3000;
  const auto run = [&](const KernelSource& source, const Field& x, Field& y) {
    Kernel kernel = runtime.kernel(source);
    kernel.launch(scan_options(64), Domain{n}, x, y);
  };
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
  std::vector<std::int16_t> odd(static_cast<std::size_t>(n));
  std::vector<double> reals(static_cast<std::size_t>(n));
  std::vector<std::complex<double>> complexes(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    bytes[k] = static_cast<std::uint8_t>(mix(k));
    odd[k] = static_cast<std::int16_t>(mix(k + 1) | 1u);
    reals[k] = double(i64(mix(k + 2) % 64) - 32);
    complexes[k] = {double(i64(mix(k + 3) % 9) - 4), double(i64(mix(k + 4) % 7) - 3)};
  }
  {
    Field x = holding(runtime, {n}, bytes);
    Field y = runtime.allocate<std::uint8_t>({n});
    run({"scan_u8",
         {in<std::uint8_t>("x"), stubjit::scan<std::uint8_t>("y", Combiner::sum)},
         "y = x;"},
        x, y);
    EXPECT_EQ(y.to_vector<std::uint8_t>(),
              host_prefix<std::uint8_t>(
                  bytes, {n}, 0, ScanKind::inclusive, 0,
                  [](std::uint8_t a, std::uint8_t b) { return static_cast<std::uint8_t>(a + b); }));
  }
  {
    Field x = holding(runtime, {n}, odd);
    Field y = runtime.allocate<std::int16_t>({n});
    run({"scan_i16",
         {in<std::int16_t>("x"),
          stubjit::scan<std::int16_t>("y", Combiner::product, ScanKind::exclusive)},
         "y = x;"},
        x, y);
    EXPECT_EQ(y.to_vector<std::int16_t>(),
              host_prefix<std::int16_t>(
                  odd, {n}, 0, ScanKind::exclusive, 1, [](std::int16_t a, std::int16_t b) {
                    return static_cast<std::int16_t>(static_cast<std::uint16_t>(a * b));
                  }));
  }
  {
    Field x = holding(runtime, {n}, reals);
    Field y = runtime.allocate<double>({n});
    run({"scan_f64", {in<double>("x"), stubjit::scan<double>("y", Combiner::sum)}, "y = x;"}, x, y);
    EXPECT_EQ(y.to_vector<double>(), host_prefix<double>(reals, {n}, 0, ScanKind::inclusive, 0.0,
                                                         [](double a, double b) { return a + b; }));
  }
  {
    using C = std::complex<double>;
    Field x = holding(runtime, {n}, complexes);
    Field y = runtime.allocate<C>({n});
    run({"scan_c64", {in<C>("x"), stubjit::scan<C>("y", Combiner::sum)}, "y = x;"}, x, y);
    EXPECT_EQ(y.to_vector<C>(), host_prefix<C>(complexes, {n}, 0, ScanKind::inclusive, C(0),
                                               [](C a, C b) { return a + b; }));
  }
}

// Empty domains write nothing; pencils of one element get their value (inclusive) or
// the identity (exclusive).
inline void check_empty_and_one_element(Runtime& runtime) {
  Kernel inclusive = runtime.kernel(
      {"scan_one_in", {in<i64>("x"), stubjit::scan<i64>("y", Combiner::sum)}, "y = x;"});
  Kernel exclusive = runtime.kernel(
      {"scan_one_ex",
       {in<i64>("x"), stubjit::scan<i64>("y", Combiner::product, ScanKind::exclusive)},
       "y = x;"});
  const std::vector<i64> xs = int64_values(12, 8);
  Field x = holding(runtime, {4, 3}, xs);
  Field y = holding(runtime, {4, 3}, std::vector<i64>(12, 77));
  EXPECT_EQ(inclusive.launch(Domain{0, 3}, x, y).dispatches, 0u);
  EXPECT_EQ(exclusive.launch(scan_options(0, 0), Domain{4, 0}, x, y).dispatches, 0u);
  EXPECT_EQ(y.to_vector<i64>(), std::vector<i64>(12, 77));
  inclusive.launch(Domain{4, 1}, x, y);
  exclusive.launch(scan_options(0, 0), Domain{1, 3}, x, y);
  std::vector<i64> want(12, 77);
  for (std::size_t r = 0; r < 4; ++r) want[r * 3] = xs[r * 3];
  for (std::size_t c = 0; c < 3; ++c) want[c] = 1;
  EXPECT_EQ(y.to_vector<i64>(), want);
}

// A pencil split into many one-tile parts, launched again and again (on a GPU its
// parts finish in a different order each time, so each launch's look-backs find other
// parts' prefixes): every int64 prefix exact every time, inclusive and exclusive in
// turn, and every float prefix the same bits as the first launch's, which are near
// the host's prefixes. `n` values, `launches` launches of each (int64 inclusive and
// exclusive take turns: at least 4 for each to run again over its earlier flags).
inline void check_split_scans_repeat_exactly(Runtime& runtime, i64 n, int launches) {
  Kernel inclusive = runtime.kernel(
      {"repeat_i64", {in<i64>("x"), stubjit::scan<i64>("y", Combiner::sum)}, "y = x;"});
  Kernel exclusive =
      runtime.kernel({"repeat_i64_exclusive",
                      {in<i64>("x"), stubjit::scan<i64>("y", Combiner::sum, ScanKind::exclusive)},
                      "y = x;"});
  Kernel floats = runtime.kernel(
      {"repeat_f32", {in<float>("x"), stubjit::scan<float>("y", Combiner::sum)}, "y = x;"});
  const std::vector<i64> values = int64_values(std::size_t(n), 31);
  std::vector<float> reals(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < reals.size(); ++k)
    reals[k] = float(0.5 + double(mix(k + 11) % 1000) / 1000.0) * (mix(k) % 2 ? 1.0f : -1.0f);
  const std::vector<i64> want_inclusive =
      host_prefix<i64>(values, {n}, 0, ScanKind::inclusive, 0, wrapping_add);
  const std::vector<i64> want_exclusive =
      host_prefix<i64>(values, {n}, 0, ScanKind::exclusive, 0, wrapping_add);
  Field x = holding(runtime, {n}, values);
  Field y = runtime.allocate<i64>({n});
  Field fx = holding(runtime, {n}, reals);
  Field fy = runtime.allocate<float>({n});
  std::vector<float> first;
  for (int launch = 0; launch < launches; ++launch) {
    SCOPED_TRACE("launch " + std::to_string(launch + 1));
    const bool exclusive_turn = launch % 2 == 1;
    y.copy_from(std::vector<i64>(std::size_t(n), -1));
    const LaunchSummary summary = (exclusive_turn ? exclusive : inclusive).launch(Domain{n}, x, y);
    EXPECT_GT(summary.reduce_parts, 1u);
    if (y.to_vector<i64>() != (exclusive_turn ? want_exclusive : want_inclusive)) {
      ADD_FAILURE() << (exclusive_turn ? "exclusive" : "inclusive")
                    << " prefixes differ from the host's";
      break;
    }
    // A NaN wherever the launch writes nothing.
    fy.copy_from(std::vector<float>(std::size_t(n), std::numeric_limits<float>::quiet_NaN()));
    floats.launch(Domain{n}, fx, fy);
    const std::vector<float> got = fy.to_vector<float>();
    if (first.empty()) {
      first = got;
      if (const auto off = first_float_prefix_off_bound(got.data(), reals.data(), got.size()))
        ADD_FAILURE() << "float prefix " << off->k << ": " << got[off->k] << ", the host's "
                      << off->host;
    }
    if (std::memcmp(got.data(), first.data(), got.size() * sizeof(float)) != 0) {
      ADD_FAILURE() << "float prefixes are not the first launch's bits";
      break;
    }
  }
}

// The same on a GPU: a pencil of 2^24 values (8192 parts of 2048), 20 launches each.
inline void check_split_scans_repeat_exactly_on_a_gpu(Runtime& runtime) {
  check_split_scans_repeat_exactly(runtime, i64(1) << 24, 20);
}

}  // namespace stubjit::test::scan
