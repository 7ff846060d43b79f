// DispatchList: inline up to inline_capacity dispatches, on the heap beyond, and the
// same sequence either way through copies, moves and clears.
#include <gtest/gtest.h>

#include <stdexcept>

#include "stubjit/plan.hpp"

namespace stubjit {
namespace {

Dispatch numbered(std::int64_t n) {
  Dispatch d;
  d.grid = {static_cast<std::uint64_t>(n), 2, 3};
  d.origin = {n, -n, 0};
  d.linear_begin = n * 10;
  d.linear_end = n * 10 + 5;
  return d;
}

void expect_numbered(const DispatchList& list, std::size_t count) {
  ASSERT_EQ(list.size(), count);
  std::size_t i = 0;
  for (const Dispatch& d : list) {
    EXPECT_EQ(d.grid[0], i) << i;
    EXPECT_EQ(d.origin[1], -static_cast<std::int64_t>(i)) << i;
    EXPECT_EQ(d.linear_end, static_cast<std::int64_t>(i) * 10 + 5) << i;
    ++i;
  }
  EXPECT_EQ(i, count);
  if (count > 0) {
    EXPECT_EQ(list.front().grid[0], 0u);
    EXPECT_EQ(list.back().grid[0], count - 1);
    EXPECT_EQ(list.at(count - 1).linear_begin, static_cast<std::int64_t>(count - 1) * 10);
  }
  EXPECT_THROW(list.at(count), std::out_of_range);
}

DispatchList of(std::size_t count) {
  DispatchList list;
  for (std::size_t i = 0; i < count; ++i) list.push_back(numbered(static_cast<std::int64_t>(i)));
  return list;
}

TEST(DispatchList, KeepsOrderAcrossTheMoveToTheHeap) {
  for (std::size_t count : {std::size_t(0), std::size_t(1), DispatchList::inline_capacity,
                            DispatchList::inline_capacity + 1, std::size_t(100)}) {
    SCOPED_TRACE(count);
    expect_numbered(of(count), count);
  }
}

TEST(DispatchList, CopiesAndMovesKeepEveryDispatch) {
  for (std::size_t count : {std::size_t(3), std::size_t(20)}) {
    SCOPED_TRACE(count);
    const DispatchList original = of(count);
    DispatchList copy = original;
    expect_numbered(copy, count);
    expect_numbered(original, count);
    DispatchList assigned = of(50);
    assigned = original;  // heap list given an inline one, and the other way round
    expect_numbered(assigned, count);
    DispatchList moved = std::move(copy);
    expect_numbered(moved, count);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    DispatchList move_assigned = of(2);
    move_assigned = std::move(moved);
    expect_numbered(move_assigned, count);
  }
}

TEST(DispatchList, ClearedListsGrowAgain) {
  DispatchList list = of(30);
  list.clear();
  EXPECT_TRUE(list.empty());
  expect_numbered(list, 0);
  for (std::int64_t i = 0; i < 12; ++i) list.push_back(numbered(i));
  expect_numbered(list, 12);
}

}  // namespace
}  // namespace stubjit
