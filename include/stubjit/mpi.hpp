// stubjit::mpi: compile each stub once per MPI job (docs/cluster.md). An optional
// component (the stubjit_mpi library, CMake target stubjit::mpi), built where MPI is
// found; the core library never links MPI.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "stubjit/stub_exchange.hpp"

namespace stubjit::mpi {

// What one rank's call did.
struct JobPrepareSummary {
  std::size_t rounds = 0;           // exchanges (a launch of several stages needs more)
  std::size_t stubs_in_job = 0;     // distinct stubs some rank lacked, over all rounds
  std::size_t compiled_here = 0;    // of those, compiled by this rank
  std::size_t installed_here = 0;   // stubs this rank lacked and was given (its own included)
  std::size_t written_to_disk = 0;  // of those, queued for this rank's disk cache
};

// Collective over `comm`: every rank calls it, each with its own runtime and the
// launches it will make (different ranks may give different kernels and launches,
// and runtimes of different backends or targets). The stubs that any rank lacks in
// memory and on disk are compiled once per job, each by one of the ranks that lack it
// (the one with the fewest dealt so far: compiling is spread over the ranks), and sent
// to all of them. Each rank keeps them in its memory store; of the ranks of one node
// that lack a stub, the lowest writes it to its disk cache (ranks of a node are meant
// to share a cache root). The launches then compile nothing. A launch of several
// stages (a sort) takes one exchange per stage.
//
// Works with MPI_THREAD_SINGLE: every MPI call is made by the calling thread, inside
// this call. Runs nothing and touches no field.
//
// Every rank returns, or every rank throws: a CompileError for the first stub (in
// toolchain and key order) that failed to compile, or whose body was refused before
// compiling, on every rank, with the compiler's log; the error of a launch refused
// otherwise (ArgumentError, PlanError, ...) on its rank and an Error naming that rank on
// the others; an Error on every rank where one cannot allocate an exchange, or one
// exchange would pass 2 GiB, or a rank lacks more stubs than its memory store keeps
// (RuntimeOptions::memory_cache_stubs). Throws Error where MPI is not initialized.
JobPrepareSummary prepare(MPI_Comm comm, Runtime& runtime,
                          const std::vector<PlannedLaunch>& launches);

}  // namespace stubjit::mpi
