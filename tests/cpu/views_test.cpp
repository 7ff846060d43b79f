// Field views (transpose, permute, spread, section, slice) on the CPU backend, end to
// end against host loops: the patent's matrix multiply written with transpose and
// spread, Fortran array sections, the aliasing rule for strided views, stride-0
// dimensions refused read-write, and bad views refused with a reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;

std::vector<double> ramp(i64 n, double scale, double shift) {
  std::vector<double> values(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) values[std::size_t(k)] = scale * double(k % 23) + shift;
  return values;
}

class Views : public ::testing::Test {
 protected:
  Runtime runtime_{test::cpu_memory_only_options()};
};

TEST_F(Views, EachViewHasTheExtentsStridesAndFirstElementOfItsDefinition) {
  Field a = runtime_.allocate<float>({4, 5, 6});  // strides 30, 6, 1
  auto* base = static_cast<float*>(a.data());
  const Field t = a.transpose(0, 2);
  EXPECT_EQ(t.extents(), (std::vector<i64>{6, 5, 4}));
  EXPECT_EQ(t.strides(), (std::vector<i64>{1, 6, 30}));
  EXPECT_EQ(t.data(), base);
  const Field p = a.permute({1, 2, 0});
  EXPECT_EQ(p.extents(), (std::vector<i64>{5, 6, 4}));
  EXPECT_EQ(p.strides(), (std::vector<i64>{6, 1, 30}));
  const Field s = a.spread(1, 7);
  EXPECT_EQ(s.extents(), (std::vector<i64>{4, 7, 5, 6}));
  EXPECT_EQ(s.strides(), (std::vector<i64>{30, 0, 6, 1}));
  EXPECT_EQ(s.size(), 4 * 7 * 5 * 6);
  // a(1:3:2, :, 5:0:-2): rows 1 and 3, columns 5, 3, 1.
  const Field q = a.section(0, 1, 3, 2).section(2, 5, 0, -2);
  EXPECT_EQ(q.extents(), (std::vector<i64>{2, 5, 3}));
  EXPECT_EQ(q.strides(), (std::vector<i64>{60, 6, -2}));
  EXPECT_EQ(q.data(), base + 30 + 5);
  const Field r = a.slice(1, 2);
  EXPECT_EQ(r.extents(), (std::vector<i64>{4, 6}));
  EXPECT_EQ(r.strides(), (std::vector<i64>{30, 1}));
  EXPECT_EQ(r.data(), base + 12);
  const Field element = a.slice(0, 3).slice(0, 4).slice(0, 5);
  EXPECT_EQ(element.rank(), 0);
  EXPECT_EQ(element.data(), base + 3 * 30 + 4 * 6 + 5);
  EXPECT_EQ(a.section(1, 3, 2).extent(1), 0);  // a step running away from last
  EXPECT_TRUE(t.writable());
  EXPECT_EQ(t.owner(), a.owner());
}

// The patent's example: C = A B as one activity per (i, j), each reading a row of A
// and a column of B as rank-1 views. A is spread along j and B, transposed, along i, so
// that both are rank-3 fields over the (i, j) domain whose last dimension is k.
TEST_F(Views, MatrixMultiplyWithTransposeAndSpread) {
  const i64 m = 13, n = 9, l = 7;  // A is m x l, B is l x n
  Field a = runtime_.allocate<double>({m, l});
  Field b = runtime_.allocate<double>({l, n});
  Field c = runtime_.allocate<double>({m, n});
  const std::vector<double> ha = ramp(m * l, 0.5, -3.0), hb = ramp(l * n, -0.25, 2.0);
  a.copy_from(ha);
  b.copy_from(hb);
  c.copy_from(std::vector<double>(std::size_t(m * n), -1.0));
  Kernel dot = runtime_.kernel({"dot",
                                {in<double>("row", 1), in<double>("column", 1), inout<double>("c")},
                                "double sum = 0;\n"
                                "for (stubjit::i64 k = 0; k < row.extent(0); ++k)\n"
                                "  sum += row(k) * column(k);\n"
                                "c = sum;"});
  const Field rows = a.spread(1, n);                     // (i, j, k) -> A(i, k)
  const Field columns = b.transpose(0, 1).spread(0, m);  // (i, j, k) -> B(k, j)
  ASSERT_EQ(rows.extents(), (std::vector<i64>{m, n, l}));
  ASSERT_EQ(columns.extents(), (std::vector<i64>{m, n, l}));
  dot.launch(Domain{m, n}, rows, columns, c);
  std::vector<double> expected(std::size_t(m * n), 0.0);
  for (i64 i = 0; i < m; ++i)
    for (i64 j = 0; j < n; ++j) {
      double sum = 0;
      for (i64 k = 0; k < l; ++k) sum += ha[std::size_t(i * l + k)] * hb[std::size_t(k * n + j)];
      expected[std::size_t(i * n + j)] = sum;
    }
  EXPECT_EQ(c.to_vector<double>(), expected);
}

// a(2:n:2, :) = a(2:n:2, :) * 10 in Fortran: every other row, through a section.
TEST_F(Views, SectionUpdatesOnlyItsElements) {
  const i64 rows = 11, cols = 6;
  Field a = runtime_.allocate<double>({rows, cols});
  const std::vector<double> initial = ramp(rows * cols, 1.0, 0.0);
  a.copy_from(initial);
  Kernel scale = runtime_.kernel({"scale", {inout<double>("x")}, "x = x * 10;"});
  const Field every_other = a.section(0, 1, rows - 1, 2);
  EXPECT_EQ(every_other.extent(0), 5);
  scale.launch(Domain{5, cols}, every_other);
  // And the last column read backwards into a row: a(0, :) = a(:, cols-1) reversed.
  Kernel copy = runtime_.kernel({"copy", {in<double>("from"), inout<double>("to")}, "to = from;"});
  Field b = runtime_.allocate<double>({rows, cols});
  b.copy_from(std::vector<double>(std::size_t(rows * cols), 0.0));
  copy.launch(Domain{cols}, a.slice(1, cols - 1).section(0, rows - 1, rows - cols, -1),
              b.slice(0, 0));
  std::vector<double> expected = initial;
  for (i64 i = 1; i < rows; i += 2)
    for (i64 j = 0; j < cols; ++j) expected[std::size_t(i * cols + j)] *= 10;
  EXPECT_EQ(a.to_vector<double>(), expected);
  std::vector<double> expected_b(std::size_t(rows * cols), 0.0);
  for (i64 j = 0; j < cols; ++j)
    expected_b[std::size_t(j)] = expected[std::size_t((rows - 1 - j) * cols + cols - 1)];
  EXPECT_EQ(b.to_vector<double>(), expected_b);
}

// Strided views of one buffer that share no element are not aliases: odd += even.
TEST_F(Views, InterleavedViewsOfOneBufferAreNotAliases) {
  Field buffer = runtime_.allocate<float>({200});
  std::vector<float> host(200);
  std::iota(host.begin(), host.end(), 0.0f);
  buffer.copy_from(host);
  Kernel add = runtime_.kernel({"add", {in<float>("x"), inout<float>("y")}, "y = y + x;"});
  const Field even = buffer.section(0, 0, 199, 2);
  const Field odd = buffer.section(0, 1, 199, 2);
  add.launch(Domain{100}, even, odd);
  for (std::size_t k = 1; k < 200; k += 2) host[k] += host[k - 1];
  EXPECT_EQ(buffer.to_vector<float>(), host);

  // Column blocks of one matrix: right = right + left.
  Field matrix = runtime_.allocate<float>({30, 20});
  std::vector<float> m(600);
  std::iota(m.begin(), m.end(), 1.0f);
  matrix.copy_from(m);
  add.launch(Domain{30, 10}, matrix.section(1, 0, 9), matrix.section(1, 10, 19));
  for (std::size_t i = 0; i < 30; ++i)
    for (std::size_t j = 10; j < 20; ++j) m[i * 20 + j] += m[i * 20 + j - 10];
  EXPECT_EQ(matrix.to_vector<float>(), m);
}

TEST_F(Views, ViewsThatShareAnElementAreRefusedAndNothingRuns) {
  Field buffer = runtime_.allocate<float>({200});
  const std::vector<float> host(200, 1.0f);
  buffer.copy_from(host);
  Kernel add = runtime_.kernel({"add", {in<float>("x"), inout<float>("y")}, "y = y + x;"});
  // Every third and every second element meet at multiples of 6.
  try {
    add.launch(Domain{60}, buffer.section(0, 0, 179, 3), buffer.section(0, 0, 119, 2));
    FAIL() << "views sharing elements 0, 6, 12, ... were accepted";
  } catch (const AliasError& error) {
    EXPECT_EQ(error.parameter(), "y");
    const std::string what = error.what();
    EXPECT_NE(what.find("both hold the element at byte 0x"), std::string::npos) << what;
  }
  EXPECT_EQ(buffer.to_vector<float>(), host);
  EXPECT_EQ(runtime_.counters().launches, 0u);
}

TEST_F(Views, AStrideZeroDimensionIsReadOnly) {
  Field row = runtime_.allocate<float>({8});
  row.copy_from(std::vector<float>(8, 2.0f));
  Field out = runtime_.allocate<float>({5, 8});
  out.copy_from(std::vector<float>(40, 0.0f));
  Kernel copy = runtime_.kernel({"copy", {in<float>("from"), inout<float>("to")}, "to = from;"});
  // Read through a spread view: broadcast a row to every row of out.
  copy.launch(Domain{5, 8}, row.spread(0, 5), out);
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(40, 2.0f));
  // Written through one: refused, naming the dimension; nothing ran.
  Kernel scale = runtime_.kernel({"scale", {inout<float>("x")}, "x = x * 3;"});
  try {
    scale.launch(Domain{5, 8}, row.spread(0, 5));
    FAIL() << "a stride-0 dimension was bound read-write";
  } catch (const ArgumentError& error) {
    EXPECT_EQ(error.parameter(), "x");
    EXPECT_NE(std::string(error.what()).find("dimension 0 of its field has stride 0"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(row.to_vector<float>(), std::vector<float>(8, 2.0f));
  // An empty view writes nothing, whatever its strides: allowed.
  scale.launch(Domain{5, 0}, row.spread(0, 5).section(1, 1, 0));
  EXPECT_EQ(row.to_vector<float>(), std::vector<float>(8, 2.0f));
  // An extent of 1 reaches one element anyway: allowed.
  scale.launch(Domain{1, 8}, row.spread(0, 1));
  EXPECT_EQ(row.to_vector<float>(), std::vector<float>(8, 6.0f));
}

TEST_F(Views, AViewKeepsItsMemoryAlive) {
  Field view;
  {
    Field a = runtime_.allocate<std::int32_t>({4, 4});
    std::vector<std::int32_t> host(16);
    std::iota(host.begin(), host.end(), 0);
    a.copy_from(host);
    view = a.transpose(0, 1);
  }
  // The transpose of a dense field is dense: it copies in storage order.
  std::vector<std::int32_t> expected(16);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(view.to_vector<std::int32_t>(), expected);
  Kernel negate = runtime_.kernel({"negate", {inout<std::int32_t>("x")}, "x = -x;"});
  negate.launch(Domain{4, 4}, view);
  for (std::int32_t& v : expected) v = -v;
  EXPECT_EQ(view.to_vector<std::int32_t>(), expected);
  // A section with gaps is not dense: no copy.
  EXPECT_THROW(view.section(0, 0, 3, 2).to_vector<std::int32_t>(), FieldError);
}

TEST_F(Views, BadViewsAreRefusedWithAReason) {
  Field a = runtime_.allocate<float>({4, 5});
  const auto expect_error = [](auto&& make, const std::string& message) {
    try {
      make();
      FAIL() << "accepted; expected " << message;
    } catch (const FieldError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
  };
  expect_error([&] { a.transpose(0, 2); }, "transpose: dimension 2 of a rank-2 field");
  expect_error([&] { a.permute({1, 1}); }, "dimension 1 is given twice");
  expect_error([&] { a.permute({0}); }, "1 dimensions given for a rank-2 field");
  expect_error([&] { a.spread(3, 2); }, "spread: dimension 3");
  expect_error([&] { a.spread(0, -1); }, "negative extent");
  expect_error(
      [&] {
        runtime_.allocate<float>({1, 1, 1, 1, 1, 1, 1, 1}).spread(0, 2);
      },
      "no room for another dimension");
  expect_error([&] { a.section(1, 0, 5); }, "reaches index 5, outside 0..4");
  expect_error([&] { a.section(0, -1, 2); }, "reaches index -1");
  expect_error([&] { a.section(0, 0, 3, 0); }, "step 0");
  expect_error([&] { a.slice(0, 4); }, "slice of dimension 0 at index 4, outside 0..3");
  expect_error([&] { Field().transpose(0, 1); }, "transpose of a null field");
}

}  // namespace
}  // namespace stubjit
