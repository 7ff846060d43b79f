// Kernels the end-to-end suites launch. The GPU compile tests reuse this list, so
// every backend is checked against the same signatures.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/kernel.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::test {

// Options for a runtime on the CPU backend, whatever STUBJIT_BACKEND says.
inline RuntimeOptions cpu_options() {
  RuntimeOptions options;
  options.backend = "cpu";
  return options;
}

// y = a * x + y + j: a different stub for each j (the disk-cache suites fill, evict and
// layer caches with them).
inline KernelSource numbered_kernel(int j) {
  return {"add" + std::to_string(j),
          {scalar<float>("a"), in<float>("x"), inout<float>("y")},
          "y = a * x + y + " + std::to_string(j) + ".0f;"};
}

// The same, with the disk cache off: for suites that count compiles.
inline RuntimeOptions cpu_memory_only_options() {
  RuntimeOptions options = cpu_options();
  options.disk_cache = false;
  return options;
}

// Every element type specialized (the GPU compile tests), then one written field, and
// values for its fifteen scalars, as words (Arg::bits(), and Arg::high_bits() for the
// complex<double>): 0.1f, a denormal double, INT32_MIN, INT64_MIN, UINT32_MAX,
// INT8_MIN, UINT8_MAX, INT16_MIN, UINT16_MAX, UINT64_MAX, true, float16 infinity, the
// lowest bfloat16, complex<float>(0.1f, -2) and complex<double>(a denormal, -0.0)
// (extremes whose literals are spelled apart).
inline KernelSource specialized_constants_kernel() {
  return {"constants",
          {specialized<float>("f"), specialized<double>("d"), specialized<std::int32_t>("i"),
           specialized<std::int64_t>("l"), specialized<std::uint32_t>("u"),
           specialized<std::int8_t>("c"), specialized<std::uint8_t>("uc"),
           specialized<std::int16_t>("s"), specialized<std::uint16_t>("us"),
           specialized<std::uint64_t>("ul"), specialized<bool>("b"), specialized<float16>("h"),
           specialized<bfloat16>("bh"), specialized<std::complex<float>>("cf"),
           specialized<std::complex<double>>("cd"), inout<double>("y")},
          "y = f + d + i + (double)l + u + c + uc + s + us + (double)ul + b + h + bh + "
          "real(cf) + imag(cd) + abs(cd);",
          "",
          {}};
}
inline std::vector<std::uint64_t> specialized_constants_values() {
  return {0x3dcccccdu,
          0x000fffffffffffffull,
          0x80000000u,
          0x8000000000000000ull,
          0xffffffffu,
          0x80u,
          0xffu,
          0x8000u,
          0xffffu,
          ~0ull,
          1u,
          0x7c00u /* float16 infinity */,
          0xff7fu /* the lowest finite bfloat16 */,
          0xc00000003dcccccdull /* complex<float>(0.1f, -2.0f) */,
          0x000fffffffffffffull,
          0x8000000000000000ull /* complex<double>(denormal, -0.0) */};
}

inline KernelSource saxpy_kernel() {
  return {
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}};
}

// Counts visits per index with an atomic, so that a duplicate visit cannot hide in a
// lost update.
inline KernelSource visit_counter_kernel() {
  return {
      "count_visits", {inout<std::int32_t>("visits")}, "stubjit::atomic_add(visits, 1);", "", {}};
}

// Writes a code of its own logical index: sum over d of (i[d] + 50) * 100^d.
inline KernelSource index_writer_kernel() {
  return {"write_index",
          {index("i"), inout<std::int64_t>("out")},
          "stubjit::i64 code = 0;\n"
          "for (int d = i.rank - 1; d >= 0; --d) code = code * 100 + (i[d] + 50);\n"
          "out = code;",
          "",
          {}};
}

inline std::int64_t index_code(const std::vector<std::int64_t>& logical) {
  std::int64_t code = 0;
  for (std::size_t d = logical.size(); d-- > 0;) code = code * 100 + (logical[d] + 50);
  return code;
}

// Mixed element types, elemental projection.
inline KernelSource mixed_types_kernel() {
  return {
      "mixed",
      {scalar<double>("scale"), scalar<std::int32_t>("offset"), scalar<std::uint32_t>("mask"),
       scalar<std::int64_t>("bias"), in<double>("x"), in<std::int32_t>("k"), inout<double>("z")},
      "z = scale * x + offset + (k & (stubjit::i32)mask) + (double)bias;",
      "",
      {}};
}

// Partial projection: each activity sees one row of a rank-2 field.
inline KernelSource row_sum_kernel() {
  return {
      "row_sum",
      {in<double>("row", 1), inout<double>("total")},
      "double s = 0;\nfor (stubjit::i64 j = 0; j < row.extent(0); ++j) s += row(j);\ntotal = s;",
      "",
      {}};
}

// Broadcast: every activity reads the whole table.
inline KernelSource lookup_kernel() {
  return {"lookup",
          {in<std::int32_t>("table", 1), in<std::int32_t>("key"), inout<std::int32_t>("out")},
          "out = table(key % table.extent(0)) + square(key);",
          "static inline stubjit::i32 square(stubjit::i32 v) { return v * v; }",
          {}};
}

// A reduction through a broadcast rank-0 field.
inline KernelSource sum_kernel() {
  return {"sum_all",
          {in<std::int64_t>("x"), inout<std::int64_t>("total")},
          "stubjit::atomic_add(total, x);",
          "",
          {}};
}

// A body that takes Clang minutes to compile: a constant expression of three billion
// iterations, which Clang evaluates until it reaches its step limit (2^31 - 1 with
// -fconstexpr-steps=2147483647 among the compiler options; the default stops it at
// about a million) and then fails.
inline KernelSource slow_to_compile_kernel() {
  return {"slow",
          {inout<float>("y")},
          "y = float(spin(3000000000ull) & 1);",
          "constexpr unsigned long long spin(unsigned long long n) {\n"
          "  unsigned long long x = 0;\n"
          "  for (unsigned long long i = 0; i < n; ++i) x += i ^ (x >> 3);\n"
          "  return x;\n"
          "}\n"
          "static_assert(spin(3000000000ull) != 1, \"\");\n"};
}

inline std::vector<KernelSource> all_kernels() {
  return {saxpy_kernel(),   visit_counter_kernel(), index_writer_kernel(), mixed_types_kernel(),
          row_sum_kernel(), lookup_kernel(),        sum_kernel()};
}

}  // namespace stubjit::test
