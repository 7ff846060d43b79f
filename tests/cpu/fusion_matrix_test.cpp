// Dimension fusion end to end: for ranks 1 to 8, fields laid out every way a user can
// lay them out, every mode, default and tiny limits, a fused launch writes exactly
// what a host loop computes from the layout, what the same launch without fusion
// writes, and visits each element exactly once. Its own program (tests/CMakeLists.txt):
// its processes share a disk cache, so each stub is compiled once, not once per case.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

enum class FieldLayout { row_major, column_major, every_other, padded, backwards, inner_part };

const char* name_of(FieldLayout layout) {
  switch (layout) {
    case FieldLayout::row_major:
      return "RowMajor";
    case FieldLayout::column_major:
      return "ColumnMajor";
    case FieldLayout::every_other:
      return "EveryOther";
    case FieldLayout::padded:
      return "PaddedRows";
    case FieldLayout::backwards:
      return "Backwards";
    case FieldLayout::inner_part:
      return "InnerPart";
  }
  return "?";
}

enum class Setting { automatic, spread, multi, direct, tiny_automatic, tiny_multi };

const char* name_of(Setting setting) {
  switch (setting) {
    case Setting::automatic:
      return "Automatic";
    case Setting::spread:
      return "Spread";
    case Setting::multi:
      return "Multi";
    case Setting::direct:
      return "Direct";
    case Setting::tiny_automatic:
      return "TinyAutomatic";
    case Setting::tiny_multi:
      return "TinyMulti";
  }
  return "?";
}

struct FusionCase {
  int rank;
  FieldLayout layout;
  Setting setting;
};

// A field's shape and the domain a launch runs over it.
struct Shape {
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;
  std::int64_t elements = 0;  // what the host buffer must hold
  std::vector<Dim> domain;
  int fused_rank = 1;  // the rank the launch must run at with fusion on
};

Shape shape_of(int rank, FieldLayout layout) {
  const std::int64_t all[] = {3, 2, 4, 2, 3, 2, 2, 3};
  Shape s;
  s.extents.assign(all, all + rank);
  s.strides.assign(static_cast<std::size_t>(rank), 0);
  if (layout == FieldLayout::inner_part) s.extents.back() += 2;
  const bool column = layout == FieldLayout::column_major;
  std::int64_t stride = layout == FieldLayout::every_other ? 2 : 1;
  for (int k = 0; k < rank; ++k) {
    const auto d = static_cast<std::size_t>(column ? k : rank - 1 - k);
    s.strides[d] = stride;
    stride *= s.extents[d] + (layout == FieldLayout::padded && k == 0 ? 3 : 0);
  }
  s.elements = stride;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t e = s.extents[static_cast<std::size_t>(d)];
    if (layout == FieldLayout::backwards && d == 0) {
      s.domain.push_back(Dim{e - 1, e, -1});
    } else if (layout == FieldLayout::inner_part && d == rank - 1) {
      s.domain.push_back(Dim{1, e - 2, 1});
    } else {
      s.domain.push_back(Dim{0, e, 1});
    }
  }
  const bool split = layout == FieldLayout::padded || layout == FieldLayout::inner_part;
  s.fused_rank = split && rank > 1 ? 2 : 1;
  return s;
}

struct Outcome {
  std::vector<float> y;
  std::vector<std::int32_t> visits;
  LaunchSummary summary;
};

constexpr float a = 3.0f;

float x_value(std::size_t k) { return static_cast<float>(k % 97) * 0.5f; }
float y_value(std::size_t k) { return static_cast<float>(k % 89) - 40.0f; }

Outcome run(const FusionCase& c, const Shape& s, bool fuse) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.fuse_dimensions = fuse;
  if (c.setting == Setting::tiny_automatic || c.setting == Setting::tiny_multi)
    options.limits = test::tiny_limits();
  Runtime runtime(options);
  // The atomic counter sees a duplicate visit that a plain store would hide.
  Kernel kernel = runtime.kernel(
      {"saxpy_counted",
       {scalar<float>("a"), in<float>("x"), inout<float>("y"), inout<std::int32_t>("visits")},
       "y = a * x + y;\nstubjit::atomic_add(visits, 1);",
       "",
       {}});
  const auto n = static_cast<std::size_t>(s.elements);
  std::vector<float> x(n), y(n);
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = x_value(k);
    y[k] = y_value(k);
  }
  std::vector<std::int32_t> visits(n, 0);
  const Field fx = runtime.wrap(static_cast<const float*>(x.data()), s.extents, s.strides);
  const Field fy = runtime.wrap(y.data(), s.extents, s.strides);
  const Field fv = runtime.wrap(visits.data(), s.extents, s.strides);
  LaunchOptions launch;
  if (c.setting == Setting::spread) launch.mode = Mode::spread;
  if (c.setting == Setting::multi || c.setting == Setting::tiny_multi) launch.mode = Mode::multi;
  if (c.setting == Setting::direct) launch.mode = Mode::direct;
  const LaunchSummary summary = kernel.launch(launch, Domain(s.domain), a, fx, fy, fv);
  return Outcome{y, visits, summary};
}

class FusedLaunch : public ::testing::TestWithParam<FusionCase> {};

TEST_P(FusedLaunch, MatchesTheHostLoopAndTheUnfusedLaunch) {
  const FusionCase c = GetParam();
  const Shape s = shape_of(c.rank, c.layout);

  // The host loop: every logical index of the domain, its element from the strides.
  std::vector<float> expected(static_cast<std::size_t>(s.elements));
  for (std::size_t k = 0; k < expected.size(); ++k) expected[k] = y_value(k);
  std::vector<std::int32_t> expected_visits(expected.size(), 0);
  const Domain domain(s.domain);
  std::vector<std::int64_t> position(static_cast<std::size_t>(c.rank), 0);
  for (std::int64_t flat = 0; flat < domain.size(); ++flat) {
    std::int64_t rest = flat;
    std::int64_t offset = 0;
    for (int d = c.rank - 1; d >= 0; --d) {
      const Dim& dim = s.domain[static_cast<std::size_t>(d)];
      offset += dim.at(rest % dim.count) * s.strides[static_cast<std::size_t>(d)];
      rest /= dim.count;
    }
    const auto k = static_cast<std::size_t>(offset);
    expected[k] = a * x_value(k) + y_value(k);
    ++expected_visits[k];
  }

  const Outcome fused = run(c, s, true);
  const Outcome plain = run(c, s, false);
  EXPECT_EQ(fused.y, expected);
  EXPECT_EQ(fused.visits, expected_visits);
  EXPECT_EQ(plain.y, expected);
  EXPECT_EQ(plain.visits, expected_visits);
  EXPECT_EQ(fused.summary.rank, s.fused_rank);
  EXPECT_EQ(plain.summary.rank, c.rank);
}

std::vector<FusionCase> all_cases() {
  std::vector<FusionCase> cases;
  for (int rank = 1; rank <= 8; ++rank) {
    for (FieldLayout layout :
         {FieldLayout::row_major, FieldLayout::column_major, FieldLayout::every_other,
          FieldLayout::padded, FieldLayout::backwards, FieldLayout::inner_part}) {
      for (Setting setting : {Setting::automatic, Setting::spread, Setting::multi, Setting::direct,
                              Setting::tiny_automatic, Setting::tiny_multi}) {
        if (setting == Setting::direct && rank > 3) continue;  // refused: see below
        cases.push_back({rank, layout, setting});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(RanksLayoutsModes, FusedLaunch, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<FusionCase>& info) {
                           return "Rank" + std::to_string(info.param.rank) +
                                  name_of(info.param.layout) + name_of(info.param.setting);
                         });

// A kernel that takes its index: reordered (never fused), its token still the domain's.
class ReorderedLaunch : public ::testing::TestWithParam<FusionCase> {};

std::vector<std::int64_t> index_launch(const FusionCase& c, const Shape& s, bool fuse,
                                       LaunchSummary& summary) {
  RuntimeOptions options;
  options.backend = "cpu";
  options.fuse_dimensions = fuse;
  if (c.setting == Setting::tiny_automatic || c.setting == Setting::tiny_multi)
    options.limits = test::tiny_limits();
  Runtime runtime(options);
  // Writes a code of its own logical index, and counts its visits in the high digits.
  Kernel kernel = runtime.kernel({"write_index_counted",
                                  {index("i"), inout<std::int64_t>("out")},
                                  "stubjit::i64 code = 0;\n"
                                  "for (int d = i.rank - 1; d >= 0; --d) code = code * 100 + "
                                  "(i[d] + 50);\n"
                                  "stubjit::atomic_add(out, code + 1000000000000000LL);",
                                  "",
                                  {}});
  std::vector<std::int64_t> out(static_cast<std::size_t>(s.elements), 0);
  const Field fo = runtime.wrap(out.data(), s.extents, s.strides);
  LaunchOptions launch;
  if (c.setting == Setting::spread) launch.mode = Mode::spread;
  if (c.setting == Setting::multi || c.setting == Setting::tiny_multi) launch.mode = Mode::multi;
  if (c.setting == Setting::direct) launch.mode = Mode::direct;
  summary = kernel.launch(launch, Domain(s.domain), fo);
  return out;
}

TEST_P(ReorderedLaunch, GivesEachIndexItsOwnLogicalIndexOnce) {
  const FusionCase c = GetParam();
  const Shape s = shape_of(c.rank, c.layout);
  std::vector<std::int64_t> expected(static_cast<std::size_t>(s.elements), 0);
  const Domain domain(s.domain);
  for (std::int64_t flat = 0; flat < domain.size(); ++flat) {
    std::int64_t rest = flat;
    std::int64_t offset = 0;
    std::vector<std::int64_t> logical(static_cast<std::size_t>(c.rank));
    for (int d = c.rank - 1; d >= 0; --d) {
      const Dim& dim = s.domain[static_cast<std::size_t>(d)];
      logical[static_cast<std::size_t>(d)] = dim.at(rest % dim.count);
      offset += logical[static_cast<std::size_t>(d)] * s.strides[static_cast<std::size_t>(d)];
      rest /= dim.count;
    }
    expected[static_cast<std::size_t>(offset)] += test::index_code(logical) + 1000000000000000LL;
  }
  LaunchSummary reordered, plain;
  EXPECT_EQ(index_launch(c, s, true, reordered), expected);
  EXPECT_EQ(index_launch(c, s, false, plain), expected);
  EXPECT_EQ(reordered.rank, c.rank);  // never fused
}

INSTANTIATE_TEST_SUITE_P(RanksLayoutsModes, ReorderedLaunch, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<FusionCase>& info) {
                           return "Rank" + std::to_string(info.param.rank) +
                                  name_of(info.param.layout) + name_of(info.param.setting);
                         });

}  // namespace
}  // namespace stubjit
