// Domains split across runtimes (SplitKernel, split_domain), end to end on several CPU
// runtimes in one process: a 7-point stencil split three ways, each runtime holding
// only its part and halo, against one runtime over the whole domain and against a host
// loop, bit for bit; a saxpy split four ways with a part of weight 0; and bad input,
// refused before any part runs.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using i64 = std::int64_t;

RuntimeOptions one_thread_cpu() {
  RuntimeOptions options = test::cpu_memory_only_options();
  options.cpu_threads = 1;
  return options;
}

// Runtimes of their own, as one per device would be.
std::vector<std::unique_ptr<Runtime>> make_runtimes(std::size_t count) {
  std::vector<std::unique_ptr<Runtime>> runtimes;
  for (std::size_t i = 0; i < count; ++i)
    runtimes.push_back(std::make_unique<Runtime>(one_thread_cpu()));
  return runtimes;
}

std::vector<Runtime*> pointers(const std::vector<std::unique_ptr<Runtime>>& runtimes) {
  std::vector<Runtime*> result;
  for (const auto& runtime : runtimes) result.push_back(runtime.get());
  return result;
}

// The same doubles, bit for bit.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The grid: `split_count` interior points along the dimension split and 6 and 20 along
// the others, inside a boundary of 1. The split dimension is the slowest in memory
// (dimension 0 of row-major fields over a C-order domain, dimension 2 of column-major
// ones over a Fortran-order domain), so that each part's indices are one block of
// memory. The fastest has 20 interior points, above max_short_row, so that every part
// runs the same stub as the whole.
struct Grid {
  explicit Grid(Order order_) : order(order_) {
    const bool c = order == Order::c;
    split = c ? 0 : 2;
    const std::array<i64, 3> counts =
        c ? std::array<i64, 3>{split_count, 6, 20} : std::array<i64, 3>{20, 6, split_count};
    i64 stride = 1;
    for (int k = 0; k < 3; ++k) {
      const std::size_t d = std::size_t(c ? 2 - k : k);  // fastest first
      extents[d] = counts[d] + 2;
      strides[d] = stride;
      stride *= extents[d];
    }
    elements = stride;
    plane = strides[std::size_t(split)];
  }
  static constexpr i64 split_count = 10;
  Order order;
  int split = 0;
  std::array<i64, 3> extents{}, strides{};
  i64 elements = 0, plane = 0;  // plane: elements per index along `split`

  Layout layout() const { return order == Order::c ? Layout::row_major : Layout::column_major; }
  Domain interior() const {
    return Domain({Dim{1, extents[0] - 2, 1}, Dim{1, extents[1] - 2, 1}, Dim{1, extents[2] - 2, 1}},
                  order);
  }
  // The extents of a part holding `count` indices along `split`.
  std::vector<i64> part_extents(i64 count) const {
    std::vector<i64> result(extents.begin(), extents.end());
    result[std::size_t(split)] = count;
    return result;
  }
  std::size_t at(i64 a, i64 b, i64 c) const {
    return std::size_t(a * strides[0] + b * strides[1] + c * strides[2]);
  }
};

KernelSource stencil_kernel() {
  return {"stencil7",
          {index("i"), in<double>("u", 3), inout<double>("out")},
          "out = 0.5 * u(i[0], i[1], i[2]) + 0.125 * ("
          "u(i[0] - 1, i[1], i[2]) + u(i[0] + 1, i[1], i[2]) + "
          "u(i[0], i[1] - 1, i[2]) + u(i[0], i[1] + 1, i[2]) + "
          "u(i[0], i[1], i[2] - 1) + u(i[0], i[1], i[2] + 1));"};
}

// Multiples of 1/8 below 128: every sum and product of the stencil is exact, so that
// the host's arithmetic and the stub's (contracted or not) give the same bits.
std::vector<double> stencil_input(const Grid& grid) {
  std::vector<double> u(static_cast<std::size_t>(grid.elements));
  for (std::size_t k = 0; k < u.size(); ++k) u[k] = double((k * 37 + 11) % 1021) * 0.125;
  return u;
}

std::vector<double> host_stencil(const Grid& grid, const std::vector<double>& u, double outside) {
  std::vector<double> out(u.size(), outside);
  const auto& e = grid.extents;
  for (i64 a = 1; a + 1 < e[0]; ++a)
    for (i64 b = 1; b + 1 < e[1]; ++b)
      for (i64 c = 1; c + 1 < e[2]; ++c)
        out[grid.at(a, b, c)] =
            0.5 * u[grid.at(a, b, c)] +
            0.125 * (u[grid.at(a - 1, b, c)] + u[grid.at(a + 1, b, c)] + u[grid.at(a, b - 1, c)] +
                     u[grid.at(a, b + 1, c)] + u[grid.at(a, b, c - 1)] + u[grid.at(a, b, c + 1)]);
  return out;
}

// The stencil over one runtime and split 1 : 2 : 1 over three, each runtime with fields
// of its own indices and one of halo either side, against each other and the host loop.
void expect_split_stencil_matches(Order order) {
  const Grid grid(order);
  const Domain interior = grid.interior();
  const double untouched = -1.0;
  const std::vector<double> u = stencil_input(grid);
  const std::vector<double> expected = host_stencil(grid, u, untouched);
  const std::vector<i64> whole_extents(grid.extents.begin(), grid.extents.end());

  // One runtime over the whole domain.
  Runtime single(one_thread_cpu());
  Field whole_u = single.allocate<double>(whole_extents, grid.layout());
  Field whole_out = single.allocate<double>(whole_extents, grid.layout());
  whole_u.copy_from(u);
  whole_out.copy_from(std::vector<double>(u.size(), untouched));
  single.kernel(stencil_kernel()).launch(interior, whole_u, whole_out);
  const std::vector<double> from_single = whole_out.to_vector<double>();
  EXPECT_TRUE(same_bits(from_single, expected));

  const std::vector<DomainPart> parts = split_domain(interior, grid.split, {1, 2, 1}, Halo{1, 1});
  ASSERT_EQ(parts.size(), 3u);
  const auto runtimes = make_runtimes(3);
  std::vector<Field> us, outs;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const DomainPart& part = parts[p];
    // Not clipped: the edge parts' halo is the boundary the whole grid holds.
    ASSERT_GE(part.field_first, 0);
    ASSERT_LE(part.field_first + part.field_count, grid.extents[std::size_t(grid.split)]);
    const auto begin = u.begin() + part.field_first * grid.plane;
    const i64 size = part.field_count * grid.plane;
    us.push_back(runtimes[p]->allocate<double>(grid.part_extents(part.field_count), grid.layout()));
    us.back().copy_from(std::vector<double>(begin, begin + size));
    outs.push_back(
        runtimes[p]->allocate<double>(grid.part_extents(part.field_count), grid.layout()));
    outs.back().copy_from(std::vector<double>(std::size_t(size), untouched));
  }
  std::vector<PartLaunch> launches;
  for (std::size_t p = 0; p < parts.size(); ++p)
    launches.push_back({parts[p].local, {us[p], outs[p]}});
  SplitKernel stencil(pointers(runtimes), stencil_kernel());
  const std::vector<LaunchSummary> summaries = stencil.launch(launches);
  ASSERT_EQ(summaries.size(), 3u);

  // Each part's own indices back into the whole; its halo it must not have written.
  std::vector<double> from_split(u.size(), untouched);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const DomainPart& part = parts[p];
    EXPECT_TRUE(summaries[p].compiled) << "part " << p;
    EXPECT_GT(summaries[p].dispatches, 0u) << "part " << p;
    const std::vector<double> out = outs[p].to_vector<double>();
    const i64 own_first = part.local[grid.split].first, own_count = part.local[grid.split].count;
    for (i64 along = 0; along < part.field_count; ++along) {
      const bool own = along >= own_first && along < own_first + own_count;
      for (i64 k = 0; k < grid.plane; ++k) {
        const double value = out[std::size_t(along * grid.plane + k)];
        if (own) {
          from_split[std::size_t((part.field_first + along) * grid.plane + k)] = value;
        } else {
          ASSERT_EQ(value, untouched) << "part " << p << " wrote halo index " << along;
        }
      }
    }
  }
  EXPECT_TRUE(same_bits(from_split, from_single));
  EXPECT_TRUE(same_bits(from_split, expected));
  // Each runtime ran its part and compiled its own stub.
  for (const auto& runtime : runtimes) {
    EXPECT_EQ(runtime->counters().launches, 1u);
    EXPECT_EQ(runtime->counters().compiles, 1u);
  }
}

TEST(SplitKernel, StencilOverThreeRuntimesEqualsOneRuntimeAndTheHostLoop) {
  expect_split_stencil_matches(Order::c);
}

TEST(SplitKernel, FortranOrderStencilSplitAlongItsLastDimension) {
  expect_split_stencil_matches(Order::fortran);
}

// Each part counts itself in on a host integer all three runtimes wrap, then waits
// (a bounded spin) until every part has: parts run one after another would each see
// fewer than three.
TEST(SplitKernel, PartsRunAtOnce) {
  const auto runtimes = make_runtimes(3);
  i64 arrived = 0;
  std::vector<Field> counters, seen;
  std::vector<PartLaunch> launches;
  for (const auto& runtime : runtimes) {
    counters.push_back(runtime->wrap(&arrived, {}));
    seen.push_back(runtime->allocate<i64>({1}));
    seen.back().copy_from(std::vector<i64>{0});
  }
  for (std::size_t p = 0; p < runtimes.size(); ++p)
    launches.push_back({Domain{1}, {counters[p], seen[p]}});
  SplitKernel rendezvous(pointers(runtimes),
                         {"rendezvous",
                          {inout<i64>("arrived", 0), inout<i64>("seen")},
                          "stubjit::atomic_add(arrived, stubjit::i64(1));\n"
                          "for (stubjit::i64 spin = 0; spin < 1000000000LL; ++spin)\n"
                          "  if (stubjit::atomic_add(arrived, stubjit::i64(0)) >= 3) break;\n"
                          "seen = stubjit::atomic_add(arrived, stubjit::i64(0));"});
  rendezvous.launch(launches);
  EXPECT_EQ(arrived, 3);
  for (std::size_t p = 0; p < seen.size(); ++p)
    EXPECT_EQ(seen[p].to_vector<i64>(), std::vector<i64>{3}) << "part " << p;
}

// y = a x + y over 1003 indices, four runtimes weighted 3, 0, 1, 2 (the second has
// nothing to do), launched twice: the second launch compiles nothing.
TEST(SplitKernel, SaxpyFourWaysWithAPartOfWeightZero) {
  const i64 n = 1003;
  const Domain whole{n};
  std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) {
    x[std::size_t(k)] = float(k % 97) * 0.5f;
    y[std::size_t(k)] = float(k % 13) - 6.0f;
  }
  const float a = 2.0f;
  std::vector<float> expected = y;
  for (int repeat = 0; repeat < 2; ++repeat)
    for (std::size_t k = 0; k < expected.size(); ++k) expected[k] = a * x[k] + expected[k];

  Runtime single(one_thread_cpu());
  Field single_x = single.allocate<float>({n}), single_y = single.allocate<float>({n});
  single_x.copy_from(x);
  single_y.copy_from(y);
  Kernel single_saxpy = single.kernel(test::saxpy_kernel());
  single_saxpy.launch(whole, a, single_x, single_y);
  single_saxpy.launch(whole, a, single_x, single_y);
  EXPECT_EQ(single_y.to_vector<float>(), expected);

  const std::vector<DomainPart> parts = split_domain(whole, 0, {3, 0, 1, 2});
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[1].domain[0].count, 0);
  const auto runtimes = make_runtimes(4);
  const Stream stream = runtimes[3]->create_stream();  // a part on a stream of its own
  std::vector<Field> xs, ys;
  std::vector<PartLaunch> launches;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const DomainPart& part = parts[p];
    EXPECT_EQ(part.field_first, part.offset);  // no halo, first 0, step 1
    xs.push_back(runtimes[p]->allocate<float>({part.field_count}));
    ys.push_back(runtimes[p]->allocate<float>({part.field_count}));
    xs.back().copy_from(
        std::vector<float>(x.begin() + part.offset, x.begin() + part.offset + part.field_count));
    ys.back().copy_from(
        std::vector<float>(y.begin() + part.offset, y.begin() + part.offset + part.field_count));
  }
  for (std::size_t p = 0; p < parts.size(); ++p)
    launches.push_back({parts[p].local, {a, xs[p], ys[p]}});
  launches[3].stream = &stream;
  SplitKernel saxpy(pointers(runtimes), test::saxpy_kernel());
  EXPECT_EQ(saxpy.parts(), 4u);
  const std::vector<LaunchSummary> first = saxpy.launch(launches);
  const std::vector<LaunchSummary> second = saxpy.launch(launches);
  stream.synchronize();
  std::vector<float> from_split;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const bool empty = parts[p].domain[0].count == 0;
    EXPECT_EQ(first[p].compiled, !empty) << "part " << p;
    EXPECT_FALSE(second[p].compiled) << "part " << p;
    EXPECT_EQ(first[p].dispatches == 0, empty) << "part " << p;
    EXPECT_EQ(runtimes[p]->counters().compiles, empty ? 0u : 1u) << "part " << p;
    EXPECT_EQ(runtimes[p]->counters().launches, empty ? 0u : 2u) << "part " << p;
    const std::vector<float> part_y = ys[p].to_vector<float>();
    from_split.insert(from_split.end(), part_y.begin(), part_y.end());
  }
  EXPECT_EQ(from_split, expected);
  EXPECT_EQ(from_split, single_y.to_vector<float>());
}

// Three runtimes with a saxpy part each, for the refusals: nothing may run.
class SplitKernelRefusal : public ::testing::Test {
 protected:
  SplitKernelRefusal() : runtimes_(make_runtimes(3)) {
    for (const auto& runtime : runtimes_) {
      xs_.push_back(runtime->allocate<float>({n_}));
      ys_.push_back(runtime->allocate<float>({n_}));
      xs_.back().copy_from(std::vector<float>(std::size_t(n_), 1.0f));
      ys_.back().copy_from(std::vector<float>(std::size_t(n_), 5.0f));
    }
  }

  std::vector<PartLaunch> launches() const {
    std::vector<PartLaunch> result;
    for (std::size_t p = 0; p < runtimes_.size(); ++p)
      result.push_back({Domain{n_}, {3.0f, xs_[p], ys_[p]}});
    return result;
  }

  // Nothing ran: every y as it was, no runtime launched anything.
  void expect_nothing_ran() const {
    for (std::size_t p = 0; p < runtimes_.size(); ++p) {
      EXPECT_EQ(ys_[p].to_vector<float>(), std::vector<float>(std::size_t(n_), 5.0f))
          << "part " << p;
      EXPECT_EQ(runtimes_[p]->counters().launches, 0u) << "part " << p;
    }
  }

  static constexpr i64 n_ = 64;
  std::vector<std::unique_ptr<Runtime>> runtimes_;
  std::vector<Field> xs_, ys_;
};

TEST_F(SplitKernelRefusal, PartsThatDoNotMatchTheRuntimesInNumber) {
  SplitKernel saxpy(pointers(runtimes_), test::saxpy_kernel());
  std::vector<PartLaunch> two = launches();
  two.pop_back();
  try {
    saxpy.launch(two);
    FAIL() << "two parts for three runtimes launched";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "parts");
    EXPECT_EQ(error.part(), -1);
    EXPECT_NE(std::string(error.what()).find("2 parts for a SplitKernel of 3"), std::string::npos)
        << error.what();
  }
  expect_nothing_ran();
}

TEST_F(SplitKernelRefusal, AFieldOfAnotherRuntimeLaunchesNoPart) {
  SplitKernel saxpy(pointers(runtimes_), test::saxpy_kernel());
  std::vector<PartLaunch> bad = launches();
  bad[2].args[1] = xs_[0];  // part 2 reads runtime 0's x: every other part is fine
  try {
    saxpy.launch(bad);
    FAIL() << "a field of another runtime launched";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "parts");
    EXPECT_EQ(error.part(), 2);
    EXPECT_NE(std::string(error.what()).find("part 2 of 3"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("nothing was launched"), std::string::npos)
        << error.what();
    ASSERT_TRUE(error.cause());
    try {
      std::rethrow_exception(error.cause());
    } catch (const ArgumentError& cause) {
      EXPECT_EQ(cause.parameter(), "x");
      EXPECT_NE(std::string(cause.what()).find("another runtime"), std::string::npos);
    }
  }
  expect_nothing_ran();
}

TEST_F(SplitKernelRefusal, StreamsOfAnotherRuntimeOrInTheSharedOptions) {
  SplitKernel saxpy(pointers(runtimes_), test::saxpy_kernel());
  const Stream stream = runtimes_[0]->create_stream();
  LaunchOptions options;
  options.stream = &stream;
  try {
    saxpy.launch(launches(), options);
    FAIL() << "a stream in the shared options launched";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "options.stream");
    EXPECT_EQ(error.part(), -1);
  }
  std::vector<PartLaunch> bad = launches();
  bad[1].stream = &stream;  // runtime 0's stream for part 1
  try {
    saxpy.launch(bad);
    FAIL() << "a stream of another runtime launched";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "parts");
    EXPECT_EQ(error.part(), 1);
    EXPECT_NE(std::string(error.what()).find("belongs to another runtime"), std::string::npos)
        << error.what();
  }
  expect_nothing_ran();
}

TEST_F(SplitKernelRefusal, NoRuntimesOrANullOne) {
  try {
    SplitKernel none({}, test::saxpy_kernel());
    FAIL() << "a SplitKernel of no runtimes";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "runtimes");
    EXPECT_EQ(error.part(), -1);
  }
  try {
    SplitKernel holed({runtimes_[0].get(), nullptr, runtimes_[2].get()}, test::saxpy_kernel());
    FAIL() << "a SplitKernel with a null runtime";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "runtimes");
    EXPECT_EQ(error.part(), 1);
  }
  try {
    SplitKernel bad_name(pointers(runtimes_), {"not a name", {inout<float>("y")}, "y = 1;"});
    FAIL() << "a kernel with a bad name";
  } catch (const SplitError& error) {
    EXPECT_EQ(error.parameter(), "source");
    EXPECT_EQ(error.part(), 0);
    ASSERT_TRUE(error.cause());
    EXPECT_THROW(std::rethrow_exception(error.cause()), SignatureError);
  }
  expect_nothing_ran();
}

}  // namespace
}  // namespace stubjit
