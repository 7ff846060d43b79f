// A launch on a memory hit makes no heap allocation. Every operator new of the process
// is replaced here (this program is built on its own for that) and counted per thread
// while a test arms the count; the library, linked as a shared object, allocates
// through the same replaced operators.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <new>
#include <thread>

#include "common/coverage.hpp"
#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

namespace {

thread_local bool counting = false;
thread_local long allocations = 0;

void* counted(std::size_t size) {
  if (counting) ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return counted(size); }
void* operator new[](std::size_t size) { return counted(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(size ? size : 1);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (counting) ++allocations;
  const std::size_t a = static_cast<std::size_t>(alignment);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace stubjit {
namespace {

// Allocations the calling thread makes while `work` runs.
template <class Work>
long allocations_during(Work&& work) {
  allocations = 0;
  counting = true;
  work();
  counting = false;
  return allocations;
}

TEST(HotPath, TheCountSeesAnAllocation) {
  // Called directly: a new-expression may be elided, a call may not.
  EXPECT_EQ(allocations_during([] { ::operator delete(::operator new(8)); }), 1);
  EXPECT_EQ(allocations_during([] {
              ::operator delete (::operator new (64, std::align_val_t{64}), std::align_val_t{64});
            }),
            1);
}

TEST(HotPath, ALaunchOnAMemoryHitAllocatesNothing) {
  Runtime runtime(test::cpu_options());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({64, 48});
  Field y = runtime.allocate<float>({64, 48});
  x.copy_from(std::vector<float>(64 * 48, 1.0f));
  y.copy_from(std::vector<float>(64 * 48, 0.0f));
  const Domain domain{64, 48};
  saxpy.launch(domain, 2.0f, x, y);  // compiles
  saxpy.launch(domain, 2.0f, x, y);
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 100; ++i) saxpy.launch(domain, 2.0f, x, y);
            }),
            0);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(64 * 48, 2.0f * 102));
}

// Group and tiled launches plan each time, and still allocate nothing on a memory hit
// (shared arrays sized by a scalar included).
TEST(HotPath, GroupAndTiledLaunchesAllocateNothing) {
  Runtime runtime(test::cpu_options());
  Kernel rows = runtime.kernel(
      KernelSource{"reverse_rows_in_shared_memory",
                   {group("g"), scalar<std::int64_t>("n"), inout<float>("row", 1),
                    shared<float>("buffer", {"n"})},
                   "g.inner(n, [&](stubjit::i64 k) { buffer(k) = row(k); });\ng.fence();\n"
                   "g.inner(n, [&](stubjit::i64 k) { row(k) = buffer(n - 1 - k) + 1; });"});
  Kernel tiles = runtime.kernel(
      KernelSource{"count_in_tiles", {local_index("l"), inout<float>("y")}, "y += 1 + 0 * l[0];"});
  Field x = runtime.allocate<float>({16, 40});
  std::vector<float> start(16 * 40);
  for (std::size_t i = 0; i < start.size(); ++i) start[i] = float(i % 40);
  x.copy_from(start);
  LaunchOptions tiled;
  tiled.tile = Tile{4, 8};
  const Domain domain{16, 40};
  const auto round = [&] {
    rows.launch(Domain{16}, std::int64_t{40}, x);
    tiles.launch(tiled, domain, x);
  };
  round();  // compiles
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 50; ++i) round();
            }),
            0);
  // 51 rounds reverse each row 51 times (an odd number: reversed) and add 2 a round.
  std::vector<float> expected(start.size());
  for (std::size_t i = 0; i < start.size(); ++i) expected[i] = float(39 - i % 40) + 2.0f * 51;
  EXPECT_EQ(x.to_vector<float>(), expected);
}

// Reduce launches plan each time too: with one part per segment (many rows) and with a
// segment split into parts (the kernel's partials and counters, kept from the first
// launch), a launch on a memory hit allocates nothing.
TEST(HotPath, ReduceLaunchesAllocateNothing) {
  Runtime runtime(test::cpu_options());
  Kernel sum = runtime.kernel(KernelSource{
      "sum_values", {in<std::int64_t>("x"), result<std::int64_t>("v", Combiner::sum)}, "v = x;"});
  Kernel rows = runtime.kernel(KernelSource{
      "sum_rows",
      {index("i"), in<std::int64_t>("x", 2), result<std::int64_t>("v", Combiner::sum, 1)},
      "v = x(i[0], i[1]);"});
  const std::int64_t n = 1 << 18, r = 300, c = 50;
  Field x = runtime.allocate<std::int64_t>({n});
  Field m = runtime.allocate<std::int64_t>({r, c});
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::int64_t(i % 1000) - 300;
  x.copy_from(values);
  m.copy_from(std::vector<std::int64_t>(values.begin(), values.begin() + r * c));
  Field total = runtime.allocate<std::int64_t>({});
  Field row_sums = runtime.allocate<std::int64_t>({r});
  total.copy_from(std::vector<std::int64_t>{0});
  row_sums.copy_from(std::vector<std::int64_t>(std::size_t(r), 0));
  const Domain whole{n}, matrix{r, c};
  std::uint32_t parts = 0;
  const auto round = [&] {
    parts = sum.launch(whole, x, total).reduce_parts;
    rows.launch(matrix, m, row_sums);
  };
  round();  // compiles, and takes the kernel's partials
  ASSERT_GT(parts, 1u) << "the whole-domain sum should be split into parts";
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 20; ++i) round();
            }),
            0);
  // 21 rounds, each combined into the results.
  std::int64_t want_total = 0;
  for (const std::int64_t v : values) want_total += v;
  EXPECT_EQ(total.to_vector<std::int64_t>(), std::vector<std::int64_t>{21 * want_total});
  std::vector<std::int64_t> want_rows(std::size_t(r), 0);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      want_rows[std::size_t(i)] += 21 * values[std::size_t(i * c + j)];
  EXPECT_EQ(row_sums.to_vector<std::int64_t>(), want_rows);
}

// Scan launches likewise: a split one (two stages, the kernel's partials kept from the
// first launch) and one of many short pencils allocate nothing on a memory hit.
TEST(HotPath, ScanLaunchesAllocateNothing) {
  Runtime runtime(test::cpu_options());
  Kernel prefix = runtime.kernel(KernelSource{
      "prefix_values", {in<std::int64_t>("x"), scan<std::int64_t>("y", Combiner::sum)}, "y = x;"});
  const std::int64_t n = 1 << 18, r = 300, c = 50;
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::int64_t(i % 1000) - 300;
  Field x = runtime.allocate<std::int64_t>({n});
  Field y = runtime.allocate<std::int64_t>({n});
  Field m = runtime.allocate<std::int64_t>({r, c});
  Field z = runtime.allocate<std::int64_t>({r, c});
  x.copy_from(values);
  m.copy_from(std::vector<std::int64_t>(values.begin(), values.begin() + r * c));
  const Domain whole{n}, matrix{r, c};
  std::uint32_t parts = 0;
  const auto round = [&] {
    parts = prefix.launch(whole, x, y).reduce_parts;
    prefix.launch(matrix, m, z);
  };
  round();  // compiles both stages, and takes the kernel's partials
  ASSERT_GT(parts, 1u) << "the long pencil should be split into parts";
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 20; ++i) round();
            }),
            0);
  std::int64_t running = 0;
  std::vector<std::int64_t> want(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) want[i] = running += values[i];
  EXPECT_EQ(y.to_vector<std::int64_t>(), want);
  std::vector<std::int64_t> want_rows(static_cast<std::size_t>(r * c));
  for (std::int64_t i = 0; i < r; ++i) {
    running = 0;
    for (std::int64_t j = 0; j < c; ++j)
      want_rows[std::size_t(i * c + j)] = running += values[std::size_t(i * c + j)];
  }
  EXPECT_EQ(z.to_vector<std::int64_t>(), want_rows);
}

// Sort launches likewise: a long pencil (parts, merge passes, the kernel's buffers kept
// from the first launch) and many short ones allocate nothing on a memory hit.
TEST(HotPath, SortLaunchesAllocateNothing) {
  Runtime runtime(test::cpu_options());
  Kernel order = runtime.kernel(
      KernelSource{"order_values", {sort<std::int64_t>("x"), payload<std::int32_t>("tag")}, ""});
  const std::int64_t n = 1 << 18, r = 300, c = 50;
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::int64_t((i * 7919) % 1000);
  Field x = runtime.allocate<std::int64_t>({n});
  Field tag = runtime.allocate<std::int32_t>({n});
  Field m = runtime.allocate<std::int64_t>({r, c});
  Field mtag = runtime.allocate<std::int32_t>({r, c});
  const Domain whole{n}, matrix{r, c};
  std::uint32_t parts = 0;
  const auto round = [&] {
    parts = order.launch(whole, x, tag).reduce_parts;
    order.launch(matrix, m, mtag);
  };
  x.copy_from(values);
  round();  // compiles both stages, and takes the kernel's buffers
  ASSERT_GT(parts, 1u) << "the long pencil should be split into parts";
  x.copy_from(values);
  m.copy_from(std::vector<std::int64_t>(values.begin(), values.begin() + r * c));
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 5; ++i) round();
            }),
            0);
  std::vector<std::int64_t> want = values;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(x.to_vector<std::int64_t>(), want);
  std::vector<std::int64_t> want_rows(values.begin(), values.begin() + r * c);
  for (std::int64_t i = 0; i < r; ++i)
    std::sort(want_rows.begin() + i * c, want_rows.begin() + (i + 1) * c);
  EXPECT_EQ(m.to_vector<std::int64_t>(), want_rows);
}

// Launches that miss the thread's memo (another domain, mode or stream each time) still
// find their stubs in the kernel's table without allocating.
TEST(HotPath, AlternatingDomainsModesAndStreamsAllocateNothing) {
  RuntimeOptions options = test::cpu_options();
  options.limits = test::tiny_limits();  // multi really splits (into at most 8 pieces here)
  Runtime runtime(options);
  Kernel write = runtime.kernel(test::index_writer_kernel());
  Kernel count = runtime.kernel(test::visit_counter_kernel());
  Field codes = runtime.allocate<std::int64_t>({12, 12});
  Field visits = runtime.allocate<std::int32_t>({12, 12});
  visits.copy_from(std::vector<std::int32_t>(144, 0));
  Stream stream = runtime.create_stream();
  const Domain small{12, 12};
  const Domain strided(std::vector<Dim>{Dim{1, 2, 3}, Dim{7, 4, -2}});
  LaunchOptions multi;
  multi.mode = Mode::multi;
  LaunchOptions on_stream;
  on_stream.stream = &stream;
  LaunchOptions spread;
  spread.mode = Mode::spread;
  const auto round = [&] {
    write.launch(multi, small, codes);
    count.launch(small, visits);
    write.launch(on_stream, strided, codes);
    count.launch(spread, strided, visits);
  };
  round();  // compiles what the rounds need
  ASSERT_LE(write.plan(small, Mode::multi).dispatches.size(), DispatchList::inline_capacity);
  ASSERT_GT(write.plan(small, Mode::multi).dispatches.size(), 1u);
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 20; ++i) round();
            }),
            0);
  EXPECT_EQ(runtime.counters().compiles, 4u);
  // Every index of `small` counted once per round, those of `strided` twice.
  const std::vector<std::int32_t> counted = visits.to_vector<std::int32_t>();
  EXPECT_EQ(counted[0], 21);
  EXPECT_EQ(counted[1 * 12 + 7], 42);
  EXPECT_EQ(counted[4 * 12 + 1], 42);
  EXPECT_EQ(counted[2 * 12 + 7], 21);
}

// Ranks above 3 (spread indexing), the index token and broadcast fields on the hot path.
TEST(HotPath, SpreadRanksTheIndexTokenAndBroadcastsAllocateNothing) {
  Runtime runtime(test::cpu_options());
  Kernel lookup = runtime.kernel(test::lookup_kernel());
  Kernel write = runtime.kernel(test::index_writer_kernel());
  const Domain rank4{2, 3, 2, 2};
  const Domain rank5{2, 3, 2, 2, 3};
  Field codes = runtime.allocate<std::int64_t>({2, 3, 2, 2, 3});
  Field table = runtime.allocate<std::int32_t>({5});
  Field keys = runtime.allocate<std::int32_t>({2, 3, 2, 2});
  Field out = runtime.allocate<std::int32_t>({2, 3, 2, 2});
  table.copy_from(std::vector<std::int32_t>{100, 200, 300, 400, 500});
  std::vector<std::int32_t> key_values(24);
  for (std::size_t i = 0; i < key_values.size(); ++i) key_values[i] = static_cast<std::int32_t>(i);
  keys.copy_from(key_values);
  write.launch(rank5, codes);
  lookup.launch(rank4, table, keys, out);
  EXPECT_EQ(allocations_during([&] {
              for (int i = 0; i < 50; ++i) {
                write.launch(rank5, codes);
                lookup.launch(rank4, table, keys, out);
              }
            }),
            0);
  EXPECT_EQ(codes.to_vector<std::int64_t>()[0], test::index_code({0, 0, 0, 0, 0}));
  const std::vector<std::int32_t> looked_up = out.to_vector<std::int32_t>();
  for (std::int32_t k = 0; k < 24; ++k) {
    EXPECT_EQ(looked_up[static_cast<std::size_t>(k)], (k % 5 + 1) * 100 + k * k) << k;
  }
}

// A second thread's first launch of a kernel misses its own memo but not the kernel's
// table: no compile, no allocation in the launch itself.
TEST(HotPath, AnotherThreadsFirstLaunchAllocatesNothing) {
  Runtime runtime(test::cpu_options());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({256});
  Field y = runtime.allocate<float>({256});
  saxpy.launch(Domain{256}, 1.0f, x, y);
  long seen = -1;
  std::thread other([&] {
    saxpy.launch(Domain{256}, 1.0f, x, y);  // the thread's own first-use set-up
    seen = allocations_during([&] { saxpy.launch(Domain{128}, 1.0f, x, y); });
  });
  other.join();
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

}  // namespace
}  // namespace stubjit
