// Dimension fusion on the packed arguments (bind/fusion.hpp): which launches fuse,
// into which domain, and what each projected field's slot says afterwards. Expected
// values are worked out by hand from the fields' layouts.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bind/bind.hpp"
#include "bind/domain_order.hpp"
#include "bind/fusion.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

struct Slot {
  const void* data;
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;
};

Slot read_slot(const BoundArgs& bound, std::size_t offset, int rank) {
  Slot slot;
  std::memcpy(&slot.data, bound.packed.data() + offset, 8);
  slot.extents.resize(static_cast<std::size_t>(rank));
  slot.strides.resize(static_cast<std::size_t>(rank));
  std::memcpy(slot.extents.data(), bound.packed.data() + offset + 8, 8 * std::size_t(rank));
  std::memcpy(slot.strides.data(), bound.packed.data() + offset + 8 + 8 * std::size_t(rank),
              8 * std::size_t(rank));
  return slot;
}

std::vector<std::int64_t> counts_of(const Domain& domain) {
  std::vector<std::int64_t> counts;
  for (const Dim& dim : domain.dims()) {
    EXPECT_EQ(dim.first, 0);
    EXPECT_EQ(dim.step, 1);
    counts.push_back(dim.count);
  }
  return counts;
}

class Fusion : public ::testing::Test {
 protected:
  Fusion() : runtime_(cpu()) {}
  static RuntimeOptions cpu() {
    RuntimeOptions options;
    options.backend = "cpu";
    return options;
  }
  std::optional<Domain> fuse(const Signature& signature, const Domain& domain,
                             const std::vector<Arg>& args) {
    bind_arguments(signature, domain, args.data(), args.size(), owner_.owner(), bound_);
    return fuse_dimensions(signature, domain, bound_);
  }

  Runtime runtime_;
  float unused_ = 0;
  Field owner_ = runtime_.wrap(&unused_, {1});  // what every field here belongs to
  BoundArgs bound_;
  std::vector<float> x_ = std::vector<float>(4096);
  std::vector<float> y_ = std::vector<float>(4096);
};

const Signature saxpy = {scalar<float>("a"), in<float>("x"), inout<float>("y")};

TEST_F(Fusion, DenseRowMajorFieldsBecomeOneLoop) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {4, 5, 6});
  const Field y = runtime_.wrap(y_.data(), {4, 5, 6});
  const auto fused = fuse(saxpy, Domain{4, 5, 6}, {2.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{120});
  ASSERT_EQ(bound_.packed.size(), 8u + 24 + 24);  // the scalar, two rank-1 slots
  float a = 0;
  std::memcpy(&a, bound_.packed.data(), 4);
  EXPECT_EQ(a, 2.0f);
  const Slot sx = read_slot(bound_, 8, 1);
  const Slot sy = read_slot(bound_, 32, 1);
  EXPECT_EQ(sx.data, x_.data());
  EXPECT_EQ(sy.data, y_.data());
  EXPECT_EQ(sx.extents, std::vector<std::int64_t>{120});
  EXPECT_EQ(sx.strides, std::vector<std::int64_t>{1});
  EXPECT_EQ(sy.strides, std::vector<std::int64_t>{1});
}

TEST_F(Fusion, WholeRowsOfASubdomainFuseFromTheirFirstElement) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {6, 4});
  const Field y = runtime_.wrap(y_.data(), {6, 4});
  const Domain rows({Dim{2, 3, 1}, Dim{0, 4, 1}});  // rows 2..4, every column
  const auto fused = fuse(saxpy, rows, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{12});
  EXPECT_EQ(read_slot(bound_, 8, 1).data, x_.data() + 8);
  EXPECT_EQ(read_slot(bound_, 32, 1).data, y_.data() + 8);
}

TEST_F(Fusion, PartOfEachRowDoesNotFuse) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {6, 4});
  const Field y = runtime_.wrap(y_.data(), {6, 4});
  const Domain inner({Dim{0, 6, 1}, Dim{1, 2, 1}});  // columns 1..2 of each row
  EXPECT_FALSE(fuse(saxpy, inner, {1.0f, x, y}));
  EXPECT_EQ(read_slot(bound_, 8, 2).data, x_.data());  // untouched
}

TEST_F(Fusion, ColumnMajorFieldsAreWalkedInMemoryOrder) {
  const Field x =
      runtime_.wrap(static_cast<const float*>(x_.data()), {3, 7}, std::vector<std::int64_t>{1, 3});
  const Field y = runtime_.wrap(y_.data(), {3, 7}, std::vector<std::int64_t>{1, 3});
  const auto fused = fuse(saxpy, Domain{3, 7}, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{21});
  EXPECT_EQ(read_slot(bound_, 32, 1).strides, std::vector<std::int64_t>{1});
}

TEST_F(Fusion, DimensionsOfOneIndexDropOut) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {1000, 1});
  const Field y = runtime_.wrap(y_.data(), {1000, 1});
  const auto fused = fuse(saxpy, Domain{1000, 1}, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{1000});
}

TEST_F(Fusion, EveryOtherElementStillFuses) {
  // A 4 x 5 view of every other float of 40: strides 10 and 2.
  const Field x =
      runtime_.wrap(static_cast<const float*>(x_.data()), {4, 5}, std::vector<std::int64_t>{10, 2});
  const Field y = runtime_.wrap(y_.data(), {4, 5}, std::vector<std::int64_t>{10, 2});
  const auto fused = fuse(saxpy, Domain{4, 5}, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{20});
  EXPECT_EQ(read_slot(bound_, 8, 1).strides, std::vector<std::int64_t>{2});
}

TEST_F(Fusion, PaddedRowsKeepTheirDimensions) {
  const Field x =
      runtime_.wrap(static_cast<const float*>(x_.data()), {4, 5}, std::vector<std::int64_t>{8, 1});
  const Field y = runtime_.wrap(y_.data(), {4, 5}, std::vector<std::int64_t>{8, 1});
  EXPECT_FALSE(fuse(saxpy, Domain{4, 5}, {1.0f, x, y}));
}

TEST_F(Fusion, FieldsThatDisagreeKeepTheWrittenFieldsOrder) {
  // y row-major (written), x column-major: neither order fuses both, so nothing changes.
  const Field x =
      runtime_.wrap(static_cast<const float*>(x_.data()), {3, 7}, std::vector<std::int64_t>{1, 3});
  const Field y = runtime_.wrap(y_.data(), {3, 7});
  EXPECT_FALSE(fuse(saxpy, Domain{3, 7}, {1.0f, x, y}));
}

TEST_F(Fusion, ANegativeStepIsWalkedUpwardFromTheLowestElement) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {5, 4});
  const Field y = runtime_.wrap(y_.data(), {5, 4});
  // Rows 4, 3, 2, 1, 0 (backwards), columns 0..3.
  const Domain backwards = Domain::loops({{4, 0, -1}, {0, 3}});
  const auto fused = fuse(saxpy, backwards, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{20});
  const Slot sy = read_slot(bound_, 32, 1);
  EXPECT_EQ(sy.data, y_.data());
  EXPECT_EQ(sy.strides, std::vector<std::int64_t>{1});
}

TEST_F(Fusion, AStepOverTheDomainScalesTheStride) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {4, 6});
  const Field y = runtime_.wrap(y_.data(), {4, 6});
  // Columns 1, 3, 5 of every row of 6: elements 1, 3, 5, 7, ..., 23, every other one.
  const Domain odd({Dim{0, 4, 1}, Dim{1, 3, 2}});
  const auto fused = fuse(saxpy, odd, {1.0f, x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{12});
  const Slot sy = read_slot(bound_, 32, 1);
  EXPECT_EQ(sy.data, y_.data() + 1);
  EXPECT_EQ(sy.strides, std::vector<std::int64_t>{2});
  // Every other row of 3: rows start 6 apart, a row spans 3, so they do not meet.
  const Field xs = runtime_.wrap(static_cast<const float*>(x_.data()), {8, 3});
  const Field ys = runtime_.wrap(y_.data(), {8, 3});
  EXPECT_FALSE(fuse(saxpy, Domain({Dim{0, 4, 2}, Dim{0, 3, 1}}), {1.0f, xs, ys}));
}

TEST_F(Fusion, AKernelThatTakesItsIndexIsNeverFused) {
  const Field y = runtime_.wrap(y_.data(), {4, 5});
  const Signature with_index = {index("i"), inout<float>("y")};
  EXPECT_FALSE(fuse(with_index, Domain{4, 5}, {y}));
  EXPECT_EQ(bound_.index_order, identity_order);
}

TEST_F(Fusion, AKernelThatTakesItsIndexRunsInMemoryOrder) {
  // Column-major 3 x 7: the domain's dimensions swap, each keeping its own indices.
  const Field y = runtime_.wrap(y_.data(), {3, 7}, std::vector<std::int64_t>{1, 3});
  const Signature with_index = {index("i"), inout<float>("y")};
  const Domain domain({Dim{0, 3, 1}, Dim{2, 4, 1}});
  const auto run = fuse(with_index, domain, {y});
  ASSERT_TRUE(run);
  ASSERT_EQ(run->rank(), 2);
  EXPECT_EQ((*run)[0].first, 2);
  EXPECT_EQ((*run)[0].count, 4);
  EXPECT_EQ((*run)[1].count, 3);
  EXPECT_EQ(bound_.index_order[0], 1);  // the kernel's dimension 0 runs innermost
  EXPECT_EQ(bound_.index_order[1], 0);
  const Slot sy = read_slot(bound_, 0, 2);
  EXPECT_EQ(sy.data, y_.data());  // logical indices are kept: no rebasing
  EXPECT_EQ(sy.extents, (std::vector<std::int64_t>{7, 3}));
  EXPECT_EQ(sy.strides, (std::vector<std::int64_t>{3, 1}));
}

TEST_F(Fusion, AKernelThatTakesItsIndexWalksADescendingDimensionUpwards) {
  const Field y = runtime_.wrap(y_.data(), {5, 4});
  const Signature with_index = {index("i"), inout<float>("y")};
  const auto run = fuse(with_index, Domain::loops({{0, 4}, {3, 0, -1}}), {y});
  ASSERT_TRUE(run);
  EXPECT_EQ((*run)[1].first, 0);
  EXPECT_EQ((*run)[1].step, 1);
  EXPECT_EQ((*run)[1].count, 4);
  EXPECT_EQ(bound_.index_order, identity_order);
}

// A Fortran-order domain runs as its C-order form (bind/domain_order.hpp): the domain's
// dimensions reversed, each projected slot's domain dimensions with them, the index
// token's dimensions sent back.
TEST_F(Fusion, AFortranOrderDomainRunsReversedWithItsSlots) {
  // y: column-major 3 x 4 x 2, a rank-1 view (the last dimension) per index of a rank-2
  // domain; the table is broadcast and keeps its slot.
  const Field table = runtime_.wrap(static_cast<const float*>(x_.data()), {5});
  const Field y = runtime_.wrap(y_.data(), {3, 4, 2}, std::vector<std::int64_t>{1, 3, 12});
  const Signature signature = {index("p"), in<float>("table", 1), inout<float>("y", 1)};
  const Domain fortran({Dim{0, 3, 1}, Dim{1, 3, 1}}, Order::fortran);
  bind_arguments(signature, fortran, std::vector<Arg>{table, y}.data(), 2, owner_.owner(), bound_);
  const auto run = to_c_order(signature, fortran, bound_);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->order(), Order::c);
  EXPECT_EQ(run->to_string(), "[1:3:1, 0:3:1]");
  EXPECT_EQ(bound_.index_order[0], 1);  // the token's p[0] is the run's last dimension
  EXPECT_EQ(bound_.index_order[1], 0);
  const Slot st = read_slot(bound_, 0, 1);
  EXPECT_EQ(st.extents, std::vector<std::int64_t>{5});
  const Slot sy = read_slot(bound_, 8 + 16, 3);
  EXPECT_EQ(sy.data, y_.data());
  EXPECT_EQ(sy.extents, (std::vector<std::int64_t>{4, 3, 2}));
  EXPECT_EQ(sy.strides, (std::vector<std::int64_t>{3, 1, 12}));

  // Fusion's memory order then has nothing to move: y runs along its columns already.
  EXPECT_FALSE(fuse_dimensions(signature, *run, bound_));
  EXPECT_EQ(bound_.index_order[0], 1);
}

TEST_F(Fusion, AFortranOrderDomainOverRowMajorFieldsStillRunsInMemoryOrder) {
  // Row-major 3 x 7 under a Fortran-order domain: reversed, then put back in memory
  // order by the reference field; the token's dimensions end where they started.
  const Field y = runtime_.wrap(y_.data(), {3, 7});
  const Signature with_index = {index("i"), inout<float>("y")};
  const Domain fortran({Dim{0, 3, 1}, Dim{2, 4, 1}}, Order::fortran);
  bind_arguments(with_index, fortran, std::vector<Arg>{y}.data(), 1, owner_.owner(), bound_);
  const auto c_order = to_c_order(with_index, fortran, bound_);
  ASSERT_TRUE(c_order);
  const auto run = fuse_dimensions(with_index, *c_order, bound_);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->to_string(), "[0:3:1, 2:4:1]");
  EXPECT_EQ(bound_.index_order, identity_order);
  const Slot sy = read_slot(bound_, 0, 2);
  EXPECT_EQ(sy.extents, (std::vector<std::int64_t>{3, 7}));
  EXPECT_EQ(sy.strides, (std::vector<std::int64_t>{7, 1}));
}

TEST_F(Fusion, ACOrderOrRankOneDomainIsNotReordered) {
  const Field y = runtime_.wrap(y_.data(), {4, 5});
  const Signature with_index = {index("i"), inout<float>("y")};
  bind_arguments(with_index, Domain{4, 5}, std::vector<Arg>{y}.data(), 1, owner_.owner(), bound_);
  EXPECT_FALSE(to_c_order(with_index, Domain{4, 5}, bound_));
  const Field row = runtime_.wrap(y_.data(), {6});
  const Domain line({Dim{0, 6, 1}}, Order::fortran);
  BoundArgs bound;
  bind_arguments(with_index, line, std::vector<Arg>{row}.data(), 1, owner_.owner(), bound);
  EXPECT_FALSE(to_c_order(with_index, line, bound));
  EXPECT_EQ(bound.index_order, identity_order);
}

TEST_F(Fusion, TrailingViewDimensionsAreKept) {
  // x: a rank-1 view per index of a rank-2 domain over a 3 x 4 x 2 field.
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {3, 4, 2});
  const Field y = runtime_.wrap(y_.data(), {3, 4});
  const Signature row_sum = {in<float>("x", 1), inout<float>("y")};
  // x steps 8 and 2 per domain position, y 4 and 1: each fuses on its own.
  const auto fused = fuse(row_sum, Domain{3, 4}, {x, y});
  ASSERT_TRUE(fused);
  EXPECT_EQ(counts_of(*fused), std::vector<std::int64_t>{12});
  const Slot sx = read_slot(bound_, 0, 2);
  EXPECT_EQ(sx.extents, (std::vector<std::int64_t>{12, 2}));
  EXPECT_EQ(sx.strides, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(read_slot(bound_, 8 + 32, 1).extents, std::vector<std::int64_t>{12});
}

TEST_F(Fusion, BroadcastFieldsAndScalarsMoveWithTheirSlots) {
  const Field table = runtime_.wrap(static_cast<const float*>(x_.data()), {7});
  const Field y = runtime_.wrap(y_.data(), {4, 5});
  const Signature lookup = {in<float>("table", 1), scalar<float>("a"), inout<float>("y")};
  const auto fused = fuse(lookup, Domain{4, 5}, {table, 3.0f, y});
  ASSERT_TRUE(fused);
  const Slot st = read_slot(bound_, 0, 1);
  EXPECT_EQ(st.data, x_.data());
  EXPECT_EQ(st.extents, std::vector<std::int64_t>{7});
  float a = 0;
  std::memcpy(&a, bound_.packed.data() + 24, 4);
  EXPECT_EQ(a, 3.0f);
  EXPECT_EQ(read_slot(bound_, 32, 1).extents, std::vector<std::int64_t>{20});
  EXPECT_EQ(bound_.packed.size(), 24u + 8 + 24);
}

TEST_F(Fusion, RankOneAndEmptyDomainsAreLeftAlone) {
  const Field x = runtime_.wrap(static_cast<const float*>(x_.data()), {4, 5});
  const Field y = runtime_.wrap(y_.data(), {4, 5});
  EXPECT_FALSE(fuse(saxpy, Domain({Dim{0, 4, 1}, Dim{0, 0, 1}}), {1.0f, x, y}));
  const Field x1 = runtime_.wrap(static_cast<const float*>(x_.data()), {20});
  const Field y1 = runtime_.wrap(y_.data(), {20});
  EXPECT_FALSE(fuse(saxpy, Domain{20}, {1.0f, x1, y1}));
}

}  // namespace
}  // namespace stubjit::detail
