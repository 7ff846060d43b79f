// The aliasing rule for strided views (bind/overlap.hpp) against enumeration: two
// random views of one buffer share a byte exactly when the bytes their elements cover
// meet, found by listing every element of both.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "bind/overlap.hpp"
#include "common/kernels.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

// Every byte the elements of `field` cover.
std::set<std::uintptr_t> bytes_of(const Field& field) {
  std::set<std::uintptr_t> bytes;
  if (field.size() == 0) return bytes;
  const auto element = static_cast<std::int64_t>(size_of(field.type()));
  std::vector<std::int64_t> index(static_cast<std::size_t>(field.rank()), 0);
  while (true) {
    std::int64_t offset = 0;
    for (int d = 0; d < field.rank(); ++d) offset += index[std::size_t(d)] * field.stride(d);
    const auto at = reinterpret_cast<std::uintptr_t>(field.data()) + offset * element;
    for (std::int64_t b = 0; b < element; ++b) bytes.insert(at + static_cast<std::uintptr_t>(b));
    int d = field.rank() - 1;
    while (d >= 0 && ++index[std::size_t(d)] == field.extent(d)) index[std::size_t(d--)] = 0;
    if (d < 0) break;
  }
  return bytes;
}

class Overlap : public ::testing::Test {
 protected:
  Runtime runtime_{test::cpu_memory_only_options()};
  std::vector<std::int64_t> buffer_ = std::vector<std::int64_t>(4096, 0);
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(buffer_.data()); }
  // A view of `type` at byte `offset` of the buffer.
  Field at(std::size_t offset, ElementType type, const std::vector<std::int64_t>& extents,
           const std::vector<std::int64_t>& strides) {
    return runtime_.wrap_memory(bytes() + offset, type, extents, strides, true);
  }

  // The rule's answer against the enumeration, and a found byte in both. Returns
  // whether they share a byte.
  bool expect_exact(const Field& a, const Field& b, const std::string& context) {
    const std::set<std::uintptr_t> in_a = bytes_of(a);
    bool meet = false;
    for (std::uintptr_t byte : bytes_of(b)) meet = meet || in_a.count(byte) != 0;
    const std::optional<SharedElement> found = shared_element(a, b);
    EXPECT_EQ(found.has_value(), meet) << context;
    if (!found) return meet;
    EXPECT_TRUE(found->proven) << context;  // small views: decided within the limit
    EXPECT_TRUE(in_a.count(found->address)) << context;
    EXPECT_TRUE(bytes_of(b).count(found->address)) << context;
    return meet;
  }

  // Whether the byte ranges of a and b meet (what the rule refined).
  static bool ranges_meet(const Field& a, const Field& b) {
    const std::set<std::uintptr_t> in_a = bytes_of(a), in_b = bytes_of(b);
    if (in_a.empty() || in_b.empty()) return false;
    return *in_a.begin() <= *in_b.rbegin() && *in_b.begin() <= *in_a.rbegin();
  }
};

TEST_F(Overlap, EvenAndOddElementsShareNothing) {
  const Field even = at(0, ElementType::f32, {100}, {2});
  const Field odd = at(4, ElementType::f32, {100}, {2});
  EXPECT_FALSE(shared_element(even, odd));
  EXPECT_FALSE(shared_element(odd, even));
  // An f64 view over the same bytes covers both.
  EXPECT_TRUE(shared_element(at(0, ElementType::f64, {100}, {1}), odd));
}

TEST_F(Overlap, ColumnBlocksAndAlternateRowsOfOneMatrix) {
  // A 64 x 30 row-major matrix of int32.
  const Field left = at(0, ElementType::i32, {64, 10}, {30, 1});
  const Field right = at(40, ElementType::i32, {64, 10}, {30, 1});  // columns 10..19
  EXPECT_FALSE(shared_element(left, right));
  const Field even_rows = at(0, ElementType::i32, {32, 30}, {60, 1});
  const Field odd_rows = at(120, ElementType::i32, {32, 30}, {60, 1});
  EXPECT_FALSE(shared_element(even_rows, odd_rows));
  // Columns 9..18 meet columns 0..9 in column 9 of every row.
  const Field shifted = at(36, ElementType::i32, {64, 10}, {30, 1});
  const auto found = shared_element(left, shifted);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->proven);
  const auto row = (found->address - reinterpret_cast<std::uintptr_t>(bytes())) / 4;
  EXPECT_EQ(row % 30, 9u);
}

TEST_F(Overlap, RandomViewsAgreeWithEnumeration) {
  std::mt19937_64 random(20261126);
  const ElementType types[] = {ElementType::f32, ElementType::f64, ElementType::i32};
  auto pick = [&](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
  };
  int sharing = 0, interleaved = 0;
  for (int trial = 0; trial < 10000; ++trial) {
    Field views[2];
    for (Field& view : views) {
      const ElementType type = types[pick(0, 2)];
      const int rank = static_cast<int>(pick(0, 3));
      std::vector<std::int64_t> extents, strides;
      std::int64_t low = 0, high = 0;
      for (int d = 0; d < rank; ++d) {
        extents.push_back(pick(0, 5));
        strides.push_back(pick(-9, 9));
        const std::int64_t reach = (std::max<std::int64_t>(extents.back(), 1) - 1) * strides.back();
        (reach < 0 ? low : high) += reach;
      }
      const std::int64_t element = static_cast<std::int64_t>(size_of(type));
      // Near the start of the buffer, at any byte, as long as it stays inside.
      const std::int64_t offset = -low * element + pick(0, 96);
      ASSERT_LT(offset + (high + 1) * element, std::int64_t(buffer_.size() * 8));
      view = at(static_cast<std::size_t>(offset), type, extents, strides);
    }
    const bool share = expect_exact(views[0], views[1], "trial " + std::to_string(trial));
    if (share) ++sharing;
    if (!share && ranges_meet(views[0], views[1])) ++interleaved;
  }
  // Both answers were exercised where it matters: ranges that meet.
  EXPECT_GT(sharing, 500);
  EXPECT_GT(interleaved, 500);
}

TEST_F(Overlap, UndecidedWithinTheStepLimitIsTakenAsShared) {
  // The diagonal of a 20000 x 20000 matrix and its upper-right quadrant share nothing,
  // but proving it takes a step per diagonal element in the quadrant's rows (10000).
  constexpr std::int64_t n = 20000;
  // Addresses only: nothing here reads or writes the views' elements.
  const std::uintptr_t matrix = std::uintptr_t{1} << 40;
  const auto address = [&](std::int64_t element) {
    return reinterpret_cast<void*>(matrix + static_cast<std::uintptr_t>(element) * 4);
  };
  Field diagonal = runtime_.wrap_memory(address(0), ElementType::f32, {n}, {n + 1}, true);
  Field quadrant =
      runtime_.wrap_memory(address(n / 2), ElementType::f32, {n / 2, n / 2}, {n, 1}, false);
  const auto found = shared_element(diagonal, quadrant);
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->proven);
  // A smaller one is decided (1000 steps).
  constexpr std::int64_t m = 2000;
  Field small_diagonal = runtime_.wrap_memory(address(0), ElementType::f32, {m}, {m + 1}, true);
  Field small_quadrant =
      runtime_.wrap_memory(address(m / 2), ElementType::f32, {m / 2, m / 2}, {m, 1}, false);
  EXPECT_FALSE(shared_element(small_diagonal, small_quadrant));
}

}  // namespace
}  // namespace stubjit::detail
