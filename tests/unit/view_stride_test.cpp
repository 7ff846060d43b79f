// The stride that a launch's broadcast views share along the innermost loop
// (bind/view_stride.hpp), read from the packed block: each case puts the views behind
// other slots (a scalar, a projected field) and between them.
#include <gtest/gtest.h>

#include <vector>

#include "bind/bind.hpp"
#include "bind/view_stride.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::detail {
namespace {

class ViewStride : public ::testing::Test {
 protected:
  ViewStride() : runtime_(cpu()) {}
  static RuntimeOptions cpu() {
    RuntimeOptions options;
    options.backend = "cpu";
    return options;
  }
  // A 4 x 5 launch: a scalar, a view of the domain's rank (a stencil's field), the
  // projected output, a rank-1 table.
  std::int64_t shared(const Field& grid, const Field& table, const IndexOrder& order) {
    const std::vector<Arg> args = {2.5, grid, out_, table};
    BoundArgs bound;
    bind_arguments(signature_, Domain{4, 5}, args.data(), args.size(), out_.owner(), bound);
    EXPECT_EQ(bound.bindings[1], Binding::broadcast);
    EXPECT_EQ(bound.bindings[3], Binding::broadcast);
    bound.index_order = order;
    return common_view_stride(signature_, 2, bound);
  }
  Field grid(std::int64_t row_stride, std::int64_t column_stride) {
    return runtime_.wrap(static_cast<const double*>(memory_.data()), {4, 5},
                         {row_stride, column_stride});
  }
  Field table(std::int64_t stride) {
    return runtime_.wrap(static_cast<const double*>(memory_.data()), {7}, {stride});
  }

  const Signature signature_ = {scalar<double>("s"), in<double>("grid", 2), inout<double>("out"),
                                in<double>("table", 1)};
  Runtime runtime_;
  std::vector<double> memory_ = std::vector<double>(4096);
  Field out_ = runtime_.wrap(memory_.data() + 2000, {4, 5}, {5, 1});
  static constexpr IndexOrder transposed = {1, 0, 2, 3, 4, 5, 6, 7};
};

TEST_F(ViewStride, TheStrideEveryViewSharesAlongTheInnermostLoop) {
  EXPECT_EQ(shared(grid(10, 2), table(2), identity_order), 2);
  EXPECT_EQ(shared(grid(5, 1), table(1), identity_order), 1);
  EXPECT_EQ(shared(grid(30, 3), table(3), identity_order), 3);
  // Outer strides do not count.
  EXPECT_EQ(shared(grid(64, 2), table(2), identity_order), 2);
}

TEST_F(ViewStride, ViewsThatDifferShareNone) {
  EXPECT_EQ(shared(grid(10, 2), table(3), identity_order), 0);
  EXPECT_EQ(shared(grid(5, 1), table(2), identity_order), 0);
  // A first view of stride 0 is a stride like any other, not "none yet".
  EXPECT_EQ(shared(grid(10, 0), table(2), identity_order), 0);
  EXPECT_EQ(shared(grid(10, 2), table(0), identity_order), 0);
}

// A launch that runs the kernel's first dimension innermost (a column-major walk):
// the domain-rank view is read along its first dimension; the rank-1 table along its
// only one.
TEST_F(ViewStride, AReorderedLaunchReadsTheViewAlongTheDimensionItRunsInnermost) {
  EXPECT_EQ(shared(grid(2, 8), table(2), transposed), 2);
  EXPECT_EQ(shared(grid(10, 2), table(2), transposed), 0);
  EXPECT_EQ(view_inner_dim(in<double>("grid", 2), 2, transposed), 0);
  EXPECT_EQ(view_inner_dim(in<double>("grid", 2), 2, identity_order), 1);
  EXPECT_EQ(view_inner_dim(in<double>("table", 1), 2, transposed), 0);
  EXPECT_EQ(view_inner_dim(in<double>("cube", 3), 2, transposed), 2);
}

TEST_F(ViewStride, AKernelWithoutViewsSharesNone) {
  const Signature signature = {scalar<double>("s"), inout<double>("out")};
  const std::vector<Arg> args = {2.5, out_};
  BoundArgs bound;
  bind_arguments(signature, Domain{4, 5}, args.data(), args.size(), out_.owner(), bound);
  EXPECT_EQ(common_view_stride(signature, 2, bound), 0);
}

// What a short-row stub compiles in: a shared stride of 2 to max_view_stride, and only
// where its constant-stride copy can run (a kernel that takes its index needs an
// innermost step of 1).
TEST_F(ViewStride, AStubCompilesInSharedStridesOfTwoToSixteen) {
  const Signature signature = {index("i"), in<double>("grid", 2), inout<double>("out")};
  const auto compiled = [&](std::int64_t stride, std::int64_t step) {
    const Field grid = runtime_.wrap(static_cast<const double*>(memory_.data() + 100), {4, 5},
                                     {5 * stride, stride});
    const Field out = runtime_.wrap(memory_.data() + 2000, {4, 9});
    const Domain domain(std::vector<Dim>{Dim{0, 4, 1}, Dim{0, 4, step}});
    const std::vector<Arg> args = {grid, out};
    BoundArgs bound;
    bind_arguments(signature, domain, args.data(), args.size(), out.owner(), bound);
    return view_stride_to_compile(signature, domain, bound);
  };
  EXPECT_EQ(compiled(2, 1), 2);
  EXPECT_EQ(compiled(max_view_stride, 1), max_view_stride);
  EXPECT_EQ(compiled(max_view_stride + 1, 1), 0);
  EXPECT_EQ(compiled(1, 1), 0);   // the stub's usual copy has 1
  EXPECT_EQ(compiled(-2, 1), 0);  // descending views: not compiled in
  EXPECT_EQ(compiled(2, 2), 0);   // the index moves by 2: that copy would never run
}

// A view of another rank than the domain's (a table the body indexes its own way)
// keeps the stub it had, even where its stride is shared.
TEST_F(ViewStride, ATableOfAnotherRankGetsNoStrideCompiledIn) {
  const Field strided = grid(10, 2), every_other = table(2);
  const std::vector<Arg> args = {2.5, strided, out_, every_other};
  BoundArgs bound;
  bind_arguments(signature_, Domain{4, 5}, args.data(), args.size(), out_.owner(), bound);
  EXPECT_EQ(common_view_stride(signature_, 2, bound), 2);
  EXPECT_EQ(view_stride_to_compile(signature_, Domain{4, 5}, bound), 0);
}

}  // namespace
}  // namespace stubjit::detail
