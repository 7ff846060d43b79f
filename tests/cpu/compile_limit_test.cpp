// The compile time limit: a compile that runs past it is stopped (it runs in a worker
// process, stubjit-compile-worker), and the launch fails with a CompileError saying so,
// as does every launch waiting for the same stub. The limit comes from the options, the
// environment or the default; zero compiles in process without one.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "common/kernels.hpp"
#include "common/scoped_env.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::ScopedEnv;

RuntimeOptions slow_options() {
  RuntimeOptions options = test::cpu_options();
  options.disk_cache = false;
  options.compiler_options = {"-fconstexpr-steps=2147483647"};
  return options;
}

TEST(CompileLimit, ACompilePastTheLimitIsStoppedAndFailsEveryWaiter) {
  RuntimeOptions options = slow_options();
  // Long enough for the ordinary compile at the end even on a loaded machine under a
  // sanitizer (a new worker starts for it); the slow kernel needs minutes.
  options.compile_timeout = std::chrono::milliseconds(5000);
  Runtime runtime(options);
  Kernel slow = runtime.kernel(test::slow_to_compile_kernel());
  Field y = runtime.allocate<float>({4});
  std::vector<std::string> logs(3);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < logs.size(); ++t) {
    threads.emplace_back([&, t] {
      try {
        slow.launch(Domain{4}, y);
        logs[t] = "launched";
      } catch (const CompileError& error) {
        logs[t] = error.log();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& log : logs) {
    EXPECT_NE(log.find("took longer than the compile time limit of 5 s"), std::string::npos) << log;
  }
  EXPECT_EQ(runtime.counters().compile_failures, 1u);
  EXPECT_EQ(runtime.counters().launches, 0u);
  // The runtime goes on compiling: a stopped worker is not reused, a new one starts.
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({4});
  x.copy_from(std::vector<float>(4, 1.0f));
  y.copy_from(std::vector<float>(4, 1.0f));
  saxpy.launch(Domain{4}, 2.0f, x, y);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(4, 3.0f));
}

TEST(CompileLimit, TheEnvironmentSetsTheLimit) {
  ScopedEnv limit("STUBJIT_COMPILE_TIMEOUT", "0.5");
  Runtime runtime(slow_options());
  Field y = runtime.allocate<float>({4});
  try {
    runtime.kernel(test::slow_to_compile_kernel()).launch(Domain{4}, y);
    FAIL() << "the slow kernel compiled";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("limit of 0.5 s"), std::string::npos) << error.log();
  }
}

// Compile errors come back from the worker with the user's coordinates, as from the
// compiler in process; and with a limit of zero the compiler runs in this process.
TEST(CompileLimit, ErrorsAreTheSameInAWorkerAndInProcess) {
  const KernelSource broken{"broken", {inout<float>("y")}, "y = 1;\ny += missing;"};
  std::vector<std::string> logs;
  for (long long limit : {60000LL, 0LL}) {
    RuntimeOptions options = test::cpu_options();
    options.disk_cache = false;
    options.compile_timeout = std::chrono::milliseconds(limit);
    Runtime runtime(options);
    Field y = runtime.allocate<float>({4});
    try {
      runtime.kernel(broken).launch(Domain{4}, y);
      ADD_FAILURE() << "compiled";
    } catch (const CompileError& error) {
      logs.push_back(error.log());
    }
  }
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_NE(logs[0].find("broken.body:2:6: error: use of undeclared identifier 'missing'"),
            std::string::npos)
      << logs[0];
  EXPECT_EQ(logs[0], logs[1]);
}

// Where no worker can be started, compiles still run, in process, without the limit.
TEST(CompileLimit, WithoutAWorkerCompilesRunInProcess) {
  ScopedEnv worker("STUBJIT_COMPILE_WORKER", "/nonexistent/stubjit-compile-worker");
  Runtime runtime(test::cpu_options());
  Kernel saxpy = runtime.kernel(test::saxpy_kernel());
  Field x = runtime.allocate<float>({4});
  Field y = runtime.allocate<float>({4});
  x.copy_from(std::vector<float>(4, 2.0f));
  y.copy_from(std::vector<float>(4, 1.0f));
  saxpy.launch(Domain{4}, 3.0f, x, y);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(4, 7.0f));
  EXPECT_EQ(runtime.counters().compiles, 1u);
}

}  // namespace
}  // namespace stubjit
