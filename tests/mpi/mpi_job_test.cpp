// stubjit::mpi::prepare under mpirun (tests/mpi/CMakeLists.txt runs it on 4 and 8
// ranks). Every rank runs every test in the same order, so the collectives inside
// match up; assertions that could return early come only after the last collective
// of a test. Compile counts are summed over the ranks' own counters.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "stubjit/mpi.hpp"
#include "stubjit/stubjit.hpp"

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
std::uint64_t sum_over_ranks(std::uint64_t value) {
  std::uint64_t sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}
bool all_ranks(bool value) {
  int mine = value ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// A directory every rank shares: made by rank 0, its name broadcast.
std::string shared_directory() {
  char name[256] = {};
  if (world_rank() == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / "stubjit-mpi-XXXXXX").string();
    if (!mkdtemp(pattern.data())) pattern.clear();
    pattern.copy(name, sizeof name - 1);
  }
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}
void remove_shared(const std::string& directory) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(directory);
}

constexpr std::int64_t n = 257;

// Kernel k: y = a * x + k, a different stub for each k.
stubjit::KernelSource affine(int k, const std::string& body = "") {
  return {"affine" + std::to_string(k),
          {stubjit::scalar<float>("a"), stubjit::in<float>("x"), stubjit::inout<float>("y")},
          body.empty() ? "y = a * x + " + std::to_string(k) + ".0f;" : body};
}

stubjit::RuntimeOptions cpu_options(const std::string& cache_dir = "") {
  stubjit::RuntimeOptions options;
  options.backend = "cpu";
  options.cpu_threads = 1;
  options.disk_cache = !cache_dir.empty();
  options.cache_dir = cache_dir;
  return options;
}

// The fields of the affine kernels of one runtime, and the launches of the given ones.
struct AffineJob {
  stubjit::Runtime& runtime;
  stubjit::Field x, y;
  std::vector<stubjit::Kernel> kernels;
  std::vector<int> ks;

  AffineJob(stubjit::Runtime& rt, const std::vector<int>& which)
      : runtime(rt), x(rt.allocate<float>({n})), y(rt.allocate<float>({n})), ks(which) {
    std::vector<float> values(n);
    for (std::int64_t i = 0; i < n; ++i) values[i] = float(i % 13) - 6.0f;
    x.copy_from(values);
    for (const int k : ks) kernels.push_back(runtime.kernel(affine(k)));
  }
  std::vector<stubjit::PlannedLaunch> launches() {
    std::vector<stubjit::PlannedLaunch> out;
    for (stubjit::Kernel& kernel : kernels)
      out.push_back({kernel, stubjit::Domain{n}, {stubjit::Arg(2.0f), x, y}});
    return out;
  }
  // Launches every kernel; false (with a test failure) where a result is wrong.
  bool launch_and_check() {
    const std::vector<float> xs = x.to_vector<float>();
    for (std::size_t j = 0; j < kernels.size(); ++j) {
      kernels[j].launch(stubjit::Domain{n}, 2.0f, x, y);
      const std::vector<float> ys = y.to_vector<float>();
      for (std::int64_t i = 0; i < n; ++i) {
        const float want = 2.0f * xs[i] + float(ks[j]);
        if (ys[i] != want) {
          ADD_FAILURE() << "rank " << world_rank() << ", kernel " << ks[j] << ", y[" << i
                        << "] = " << ys[i] << ", want " << want;
          return false;
        }
      }
    }
    return true;
  }
};

std::vector<int> first(int count) {
  std::vector<int> ks;
  for (int k = 0; k < count; ++k) ks.push_back(k);
  return ks;
}

TEST(MpiPrepare, TwentyKernelsAreCompiledOncePerJobAndWrittenOncePerNode) {
  const std::string cache = shared_directory();
  {
    stubjit::Runtime runtime(cpu_options(cache));
    AffineJob job(runtime, first(20));
    const stubjit::mpi::JobPrepareSummary summary =
        stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, job.launches());
    const stubjit::CacheCounters prepared = runtime.counters();  // waits for disk writes
    EXPECT_EQ(sum_over_ranks(prepared.compiles), 20u);
    EXPECT_EQ(summary.stubs_in_job, 20u);
    EXPECT_EQ(summary.rounds, 1u);
    EXPECT_EQ(summary.compiled_here, prepared.compiles);
    EXPECT_EQ(summary.installed_here, 20u);
    // Spread over the ranks: none compiles more than its share, rounded up.
    const std::uint64_t share = (20 + world_size() - 1) / world_size();
    EXPECT_LE(prepared.compiles, share);
    // One node: every stub written to the disk cache once, by one rank.
    EXPECT_EQ(sum_over_ranks(prepared.disk_writes), 20u);
    EXPECT_EQ(sum_over_ranks(summary.written_to_disk), 20u);
    EXPECT_TRUE(job.launch_and_check());
    EXPECT_EQ(runtime.counters().compiles, prepared.compiles) << "a launch compiled";
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      std::size_t valid = 0;
      for (const stubjit::DiskCacheEntry& entry : stubjit::list_disk_cache(cache, true))
        valid += entry.valid;
      EXPECT_EQ(valid, 20u);
    }
  }
  {
    // A second job over the same cache: every stub on disk, nothing exchanged.
    stubjit::Runtime runtime(cpu_options(cache));
    AffineJob job(runtime, first(20));
    const stubjit::mpi::JobPrepareSummary summary =
        stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, job.launches());
    EXPECT_EQ(summary.rounds, 0u);
    EXPECT_EQ(summary.stubs_in_job, 0u);
    EXPECT_EQ(sum_over_ranks(runtime.counters().compiles), 0u);
    EXPECT_EQ(runtime.counters().disk_hits, 20u);
    EXPECT_TRUE(job.launch_and_check());
  }
  remove_shared(cache);
}

TEST(MpiPrepare, RanksThatAskForDifferentKernelsGetEachCompiledOnce) {
  // Rank r wants kernel k when k % (r + 2) != 1: overlapping sets, none the same.
  std::set<int> union_of_all;
  std::vector<int> mine;
  for (int r = 0; r < world_size(); ++r) {
    for (int k = 0; k < 16; ++k) {
      if (k % (r + 2) == 1) continue;
      union_of_all.insert(k);
      if (r == world_rank()) mine.push_back(k);
    }
  }
  stubjit::Runtime runtime(cpu_options());
  AffineJob job(runtime, mine);
  const stubjit::mpi::JobPrepareSummary summary =
      stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, job.launches());
  const std::uint64_t compiles = runtime.counters().compiles;
  EXPECT_EQ(sum_over_ranks(compiles), union_of_all.size());
  EXPECT_EQ(summary.stubs_in_job, union_of_all.size());
  EXPECT_EQ(summary.installed_here, mine.size());
  EXPECT_TRUE(job.launch_and_check());
  EXPECT_EQ(runtime.counters().compiles, compiles) << "a launch compiled";
}

TEST(MpiPrepare, RanksOfTwoToolchainsEachCompileForTheirOwn) {
  // Odd ranks pass a compiler option: another toolchain, whose stubs only odd ranks
  // may compile. Each group compiles the ten stubs once.
  stubjit::RuntimeOptions options = cpu_options();
  const bool odd = world_rank() % 2 == 1;
  if (odd) options.compiler_options = {"-DSTUBJIT_MPI_TEST_ODD=1"};
  stubjit::Runtime runtime(options);
  AffineJob job(runtime, first(10));
  stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, job.launches());
  const std::uint64_t compiles = runtime.counters().compiles;
  const std::uint64_t groups = world_size() > 1 ? 2 : 1;
  EXPECT_EQ(sum_over_ranks(compiles), 10 * groups);
  std::uint64_t odd_compiles = 0;
  const std::uint64_t mine = odd ? compiles : 0;
  MPI_Allreduce(&mine, &odd_compiles, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (world_size() > 1) {
    EXPECT_EQ(odd_compiles, 10u) << "odd ranks compiled the even ones' stubs";
  }
  EXPECT_TRUE(job.launch_and_check());
  EXPECT_EQ(runtime.counters().compiles, compiles) << "a launch compiled";
}

TEST(MpiPrepare, ACompileErrorIsRaisedOnEveryRank) {
  // Only the last rank asks for the broken kernel; every rank gets its CompileError.
  stubjit::Runtime runtime(cpu_options());
  AffineJob job(runtime, first(4));
  std::vector<stubjit::PlannedLaunch> launches = job.launches();
  stubjit::Kernel broken = runtime.kernel(affine(99, "y = a * x +;"));
  if (world_rank() == world_size() - 1)
    launches.push_back({broken, stubjit::Domain{n}, {stubjit::Arg(2.0f), job.x, job.y}});
  bool thrown = false;
  try {
    stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, launches);
  } catch (const stubjit::CompileError& error) {
    thrown = true;
    EXPECT_EQ(error.kernel(), "affine99");
    EXPECT_NE(error.log().find("affine99.body:1"), std::string::npos) << error.log();
    EXPECT_NE(error.source().find("y = a * x +;"), std::string::npos);
  }
  EXPECT_TRUE(thrown) << "rank " << world_rank() << " returned";
  EXPECT_TRUE(all_ranks(thrown));
  // The good stubs were delivered in the same round: their launches compile nothing.
  const std::uint64_t compiles = runtime.counters().compiles;
  EXPECT_TRUE(job.launch_and_check());
  EXPECT_EQ(runtime.counters().compiles, compiles);
}

TEST(MpiPrepare, ALaunchRefusedOnOneRankEndsTheCallOnEvery) {
  stubjit::Runtime runtime(cpu_options());
  AffineJob job(runtime, first(3));
  std::vector<stubjit::PlannedLaunch> launches = job.launches();
  if (world_rank() == 0) launches[1].args.pop_back();  // one argument short
  std::string what;
  bool argument_error = false;
  try {
    stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, launches);
  } catch (const stubjit::ArgumentError& error) {
    argument_error = true;
    what = error.what();
  } catch (const stubjit::Error& error) {
    what = error.what();
  }
  if (world_rank() == 0) {
    EXPECT_TRUE(argument_error) << what;
  } else {
    EXPECT_NE(what.find("rank 0 could not prepare its launches"), std::string::npos) << what;
  }
  // Nothing was compiled anywhere: the refusal came before any compile.
  EXPECT_EQ(sum_over_ranks(runtime.counters().compiles), 0u);
}

TEST(MpiPrepare, AReduceNeedsNoCompileAfterward) {
  // C += A * B reduced along k.
  using i64 = std::int64_t;
  const i64 m = 5, p = 3, k = 4000;
  const stubjit::KernelSource source{
      "matmul",
      {stubjit::index("i"), stubjit::in<double>("A", 2), stubjit::in<double>("B", 2),
       stubjit::result<double>("c", stubjit::Combiner::sum, 2)},
      "c = A(i[0], i[2]) * B(i[2], i[1]);"};
  stubjit::Runtime runtime(cpu_options());
  stubjit::Kernel matmul = runtime.kernel(source);
  std::vector<double> A(m * k), B(k * p), C(m * p, 1.0);
  for (std::size_t x = 0; x < A.size(); ++x) A[x] = double(x % 3);
  for (std::size_t x = 0; x < B.size(); ++x) B[x] = double(x % 4) - 1.0;
  stubjit::Field fA = runtime.allocate<double>({m, k}), fB = runtime.allocate<double>({k, p});
  stubjit::Field fC = runtime.allocate<double>({m, p});
  fA.copy_from(A);
  fB.copy_from(B);
  fC.copy_from(C);
  const stubjit::Domain domain{m, p, k};
  const stubjit::mpi::JobPrepareSummary summary =
      stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, {{matmul, domain, {fA, fB, fC}}});
  const std::uint64_t compiles = runtime.counters().compiles;
  EXPECT_EQ(sum_over_ranks(compiles), 1u);
  EXPECT_EQ(summary.stubs_in_job, 1u);
  matmul.launch(domain, fA, fB, fC);
  EXPECT_EQ(runtime.counters().compiles, compiles) << "the launch compiled";
  const std::vector<double> got = fC.to_vector<double>();
  for (i64 r = 0; r < m; ++r) {
    for (i64 c = 0; c < p; ++c) {
      double want = 1.0;
      for (i64 j = 0; j < k; ++j) want += A[r * k + j] * B[j * p + c];
      EXPECT_EQ(got[r * p + c], want) << r << ", " << c;  // small integers: exact
    }
  }
}

TEST(MpiPrepare, ASortsTwoStagesTakeTwoRounds) {
  // A sort of pencils that split runs its runs stub, then its merge stub: the merge
  // shows once the runs stub is installed, in a second round. Each compiled once in the
  // job. (100000 elements are several parts on a host: one part would need no merges.)
  const std::int64_t count = 100000;
  stubjit::Runtime runtime(cpu_options());
  stubjit::Kernel sorter = runtime.kernel({"sort_keys", {stubjit::sort<float>("x")}, ""});
  std::vector<float> keys(count);
  for (std::int64_t i = 0; i < count; ++i)
    keys[i] = float((i * 7919 + world_rank()) % 1009) - 500.0f;
  stubjit::Field field = runtime.allocate<float>({count});
  field.copy_from(keys);
  const stubjit::mpi::JobPrepareSummary summary =
      stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, {{sorter, stubjit::Domain{count}, {field}}});
  const std::uint64_t compiles = runtime.counters().compiles;
  EXPECT_EQ(summary.rounds, 2u);
  EXPECT_EQ(summary.stubs_in_job, 2u);
  EXPECT_EQ(summary.installed_here, 2u);
  EXPECT_EQ(sum_over_ranks(compiles), 2u);
  sorter.launch(stubjit::Domain{count}, field);
  EXPECT_EQ(runtime.counters().compiles, compiles) << "the launch compiled";
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(field.to_vector<float>(), keys);
}

TEST(MpiPrepare, AKernelRefusedBeforeCompilingIsACompileErrorOnEveryRank) {
  // A body that would leave its place is refused when the stub is written, before any
  // compiler runs: on the rank that asked, during its search for missing stubs; still
  // the same CompileError on every rank.
  stubjit::Runtime runtime(cpu_options());
  AffineJob job(runtime, first(2));
  std::vector<stubjit::PlannedLaunch> launches = job.launches();
  stubjit::Kernel escaping = runtime.kernel(affine(98, "y = x; } void f() { "));
  if (world_rank() == 0)
    launches.push_back({escaping, stubjit::Domain{n}, {stubjit::Arg(2.0f), job.x, job.y}});
  bool compile_error = false;
  try {
    stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, launches);
  } catch (const stubjit::CompileError& error) {
    compile_error = true;
    EXPECT_EQ(error.kernel(), "affine98");
  } catch (const stubjit::Error& error) {
    ADD_FAILURE() << "rank " << world_rank() << ": not a CompileError: " << error.what();
  }
  EXPECT_TRUE(all_ranks(compile_error));
  EXPECT_EQ(sum_over_ranks(runtime.counters().compiles), 0u);
}

TEST(MpiPrepare, AnEmptyListOnEveryRankIsNoRound) {
  stubjit::Runtime runtime(cpu_options());
  const stubjit::mpi::JobPrepareSummary summary =
      stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, {});
  EXPECT_EQ(summary.rounds, 0u);
  EXPECT_EQ(summary.stubs_in_job, 0u);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // The lowest level: stubjit::mpi makes every MPI call on the calling thread.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
