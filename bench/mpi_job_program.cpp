// One rank of an MPI job for the cluster figures (bench/mpi_job.py): a CPU runtime,
// KERNELS distinct kernels over 1024 floats, each launched once and checked. With
// --collective the launches are prepared first with stubjit::mpi::prepare (each stub
// compiled once in the job); without, each rank compiles what its disk cache lacks
// (ranks that share a cache root wait on its build lock for one another).
//
//   mpirun -np N bench_mpi_job KERNELS [--collective] [--private-cache] [--expect-warm]
//
// --private-cache: each rank its own cache root (<STUBJIT_CACHE_DIR>/rank<r>), as ranks
// on different nodes with node-local caches would be. --expect-warm: fail unless no
// rank compiled anything. Rank 0 prints one line: ranks, compiles summed over the
// ranks, and the slowest rank's seconds from MPI_Init to its last checked result.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stubjit/mpi.hpp"
#include "stubjit/stubjit.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double start = MPI_Wtime();
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 20;
  bool collective = false, private_cache = false, expect_warm = false;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    collective = collective || flag == "--collective";
    private_cache = private_cache || flag == "--private-cache";
    expect_warm = expect_warm || flag == "--expect-warm";
  }
  constexpr std::int64_t n = 1024;
  int failed = 0;
  std::uint64_t compiles = 0;
  try {
    stubjit::RuntimeOptions options;
    options.backend = "cpu";
    if (private_cache) {
      const char* root = std::getenv("STUBJIT_CACHE_DIR");
      options.cache_dir =
          std::string(root ? root : "/tmp/stubjit-bench") + "/rank" + std::to_string(rank);
    }
    stubjit::Runtime runtime(options);
    std::vector<float> x(n), y(n);
    for (std::int64_t i = 0; i < n; ++i) x[std::size_t(i)] = float(i);
    stubjit::Field fx = runtime.wrap(x.data(), {n});
    stubjit::Field fy = runtime.wrap(y.data(), {n});
    std::vector<stubjit::Kernel> made;
    std::vector<stubjit::PlannedLaunch> launches;
    for (int k = 0; k < kernels; ++k) {
      made.push_back(runtime.kernel(
          {"add" + std::to_string(k),
           {stubjit::scalar<float>("a"), stubjit::in<float>("x"), stubjit::inout<float>("y")},
           "y = a * x + " + std::to_string(k) + ".0f;"}));
      launches.push_back({made.back(), stubjit::Domain{n}, {2.0f, fx, fy}});
    }
    if (collective) stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, launches);
    for (int k = 0; k < kernels && !failed; ++k) {
      made[std::size_t(k)].launch(stubjit::Domain{n}, 2.0f, fx, fy);
      for (std::int64_t i = 0; i < n; i += 97)
        failed |= y[std::size_t(i)] != 2.0f * float(i) + float(k);
    }
    compiles = runtime.counters().compiles;  // waits for this rank's disk writes
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rank %d: %s\n", rank, error.what());
    failed = 1;
  }
  const double seconds = MPI_Wtime() - start;
  double slowest = 0;
  std::uint64_t total = 0;
  int any_failed = 0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&compiles, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("ranks=%d kernels=%d collective=%d compiles=%llu ready_s=%.4f failed=%d\n", ranks,
                kernels, collective ? 1 : 0, static_cast<unsigned long long>(total), slowest,
                any_failed);
  }
  MPI_Finalize();
  if (any_failed) return 1;
  return expect_warm && total != 0 ? 3 : 0;
}
