// Built against the installed prefix (tests/CMakeLists.txt): one saxpy prepared with
// stubjit::mpi::prepare, then launched without compiling. Run as a singleton MPI
// process (no mpirun): a job of one rank.
#include <mpi.h>
#include <stubjit/mpi.hpp>
#include <stubjit/stubjit.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    stubjit::RuntimeOptions options;
    options.backend = "cpu";
    options.disk_cache = false;
    stubjit::Runtime runtime(options);
    stubjit::Kernel saxpy = runtime.kernel(
        {"saxpy",
         {stubjit::scalar<float>("a"), stubjit::in<float>("x"), stubjit::inout<float>("y")},
         "y = a * x + y;"});
    const std::int64_t n = 1000;
    stubjit::Field x = runtime.allocate<float>({n}), y = runtime.allocate<float>({n});
    x.copy_from(std::vector<float>(n, 3.0f));
    y.copy_from(std::vector<float>(n, 1.0f));
    const stubjit::mpi::JobPrepareSummary summary =
        stubjit::mpi::prepare(MPI_COMM_WORLD, runtime, {{saxpy, stubjit::Domain{n}, {2.0f, x, y}}});
    const bool compiled = saxpy.launch(stubjit::Domain{n}, 2.0f, x, y).compiled;
    std::size_t wrong = 0;
    for (const float value : y.to_vector<float>()) wrong += value != 7.0f;
    std::printf("prepared %zu stub(s); the launch compiled: %s; wrong: %zu\n", summary.stubs_in_job,
                compiled ? "yes" : "no", wrong);
    status = summary.stubs_in_job == 1 && !compiled && wrong == 0 ? 0 : 1;
  } catch (const stubjit::Error& error) {
    std::printf("stubjit error: %s\n", error.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
