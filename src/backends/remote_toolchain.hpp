// A toolchain whose compiles run in a worker process that can be stopped: the compile
// time limit. No compiler stubjit drives (Clang, NVRTC, hipRTC) can be interrupted in
// the process that runs it, so each compile is sent to stubjit-compile-worker
// (worker_protocol.hpp), which makes the same toolchain for the same target. A compile
// that takes longer than the limit is stopped (the worker is killed) and fails with a
// CompileError saying so. Workers are kept between compiles, one per compile running
// at a time, so the compiler is loaded once per worker.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "backends/toolchain.hpp"

namespace stubjit::detail {

// `local`: the toolchain the runtime opened, for its traits and ids, and to compile
// with, without a limit, where no worker can be started (with one warning).
// `backend`: its registry name, which the worker opens it by.
std::unique_ptr<Toolchain> make_remote_toolchain(std::unique_ptr<Toolchain> local,
                                                 std::string backend,
                                                 std::chrono::milliseconds limit);

// Where the worker executable is: $STUBJIT_COMPILE_WORKER, else stubjit/stubjit-compile-worker
// beside the library, else the build tree's; "" when none exists.
std::string compile_worker_path();

}  // namespace stubjit::detail
