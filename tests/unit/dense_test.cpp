// Dense launches (bind/dense.hpp): a domain from 0 with unit steps over projected fields
// with stride 1 along the innermost dimension. Read from the packed block, so each
// case puts the field to check behind other slots (scalars, a broadcast table, a
// projected field whose element has rank 1).
#include <gtest/gtest.h>

#include <vector>

#include "bind/bind.hpp"
#include "bind/dense.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

class Dense : public ::testing::Test {
 protected:
  Dense() : runtime_(cpu()) {}
  static RuntimeOptions cpu() {
    RuntimeOptions options;
    options.backend = "cpu";
    return options;
  }
  bool dense(const Domain& domain, const Field& last) {
    const std::vector<Arg> args = {2.5, table_, rows_, last};
    BoundArgs bound;
    bind_arguments(signature_, domain, args.data(), args.size(), table_.owner(), bound);
    return is_dense(signature_, domain, bound);
  }

  // A scalar, a broadcast table, a projected row per index, and the field under test.
  const Signature signature_ = {scalar<double>("s"), in<double>("table", 1), in<double>("rows", 1),
                                inout<double>("out")};
  Runtime runtime_;
  std::vector<double> memory_ = std::vector<double>(4096);
  Field table_ = runtime_.wrap(static_cast<const double*>(memory_.data()), {7}, {3});
  // 4 x 5 indices, a row of 6 per index, contiguous along the innermost index.
  Field rows_ = runtime_.wrap(static_cast<const double*>(memory_.data()), {4, 5, 6}, {5, 1, 20});
};

TEST_F(Dense, ContiguousAlongTheInnermostDimensionFromZeroWithUnitSteps) {
  const Field out = runtime_.wrap(memory_.data() + 1000, {4, 5}, {5, 1});
  EXPECT_TRUE(dense(Domain{4, 5}, out));
  // Only the innermost stride counts: outer ones may be anything.
  const Field padded = runtime_.wrap(memory_.data() + 1000, {4, 5}, {64, 1});
  EXPECT_TRUE(dense(Domain{4, 5}, padded));
}

TEST_F(Dense, AnInnermostStrideOtherThanOneIsNotDense) {
  const Field every_other = runtime_.wrap(memory_.data() + 1000, {4, 5}, {10, 2});
  EXPECT_FALSE(dense(Domain{4, 5}, every_other));
  const Field column_major = runtime_.wrap(memory_.data() + 1000, {4, 5}, {1, 4});
  EXPECT_FALSE(dense(Domain{4, 5}, column_major));
}

TEST_F(Dense, AProjectedRowStridedAlongTheInnermostIndexIsNotDense) {
  // The row field's stride along the domain's innermost dimension is its second.
  rows_ = runtime_.wrap(static_cast<const double*>(memory_.data()), {4, 5, 6}, {30, 6, 1});
  const Field out = runtime_.wrap(memory_.data() + 1000, {4, 5}, {5, 1});
  EXPECT_FALSE(dense(Domain{4, 5}, out));
}

TEST_F(Dense, ADomainNotFromZeroOrWithOtherStepsIsNotDense) {
  rows_ = runtime_.wrap(static_cast<const double*>(memory_.data()), {8, 9, 6}, {9, 1, 72});
  const Field out = runtime_.wrap(memory_.data() + 1000, {8, 9}, {9, 1});
  EXPECT_FALSE(dense(Domain({Dim{1, 4, 1}, Dim{0, 5, 1}}), out));
  EXPECT_FALSE(dense(Domain({Dim{0, 4, 1}, Dim{0, 4, 2}}), out));
  EXPECT_FALSE(dense(Domain({Dim{3, 4, -1}, Dim{0, 5, 1}}), out));
  EXPECT_TRUE(dense(Domain({Dim{0, 4, 1}, Dim{0, 5, 1}}), out));
}

}  // namespace
}  // namespace stubjit::detail
