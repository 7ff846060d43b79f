// A process for the compile cap tests (compile_cap_test.cpp). The cap, its scope and the
// trace file come from the environment, as in any application.
//
//   stubjit_compile_cap_child compile START_FD FIRST COUNT
//       builds a CPU runtime and its fields, prints "ready pid=PID", waits until START_FD (a
//       pipe's read end; -1: no wait) reaches its end, then launches COUNT distinct
//       kernels cap<FIRST> ... cap<FIRST+COUNT-1> (each a compile, with the disk cache
//       off), checks every result against values computed here and prints
//       "compiles=N results=ok|wrong".
//   stubjit_compile_cap_child hold
//       takes one compile slot as a compile does (kernel name "holder") and keeps it
//       until the process is killed; prints "held" once it has it.
//   stubjit_compile_cap_child slow
//       launches a kernel that takes the compiler minutes, in a compile worker with a
//       limit of ten minutes; prints "ready pid=PID" first, "compiled" should it end.
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"
#include "support/compile_slot.hpp"

namespace {

using namespace stubjit;

KernelSource numbered_kernel(int j) {
  return {"cap" + std::to_string(j),
          {scalar<float>("a"), in<float>("x"), inout<float>("y")},
          "y = a * x + " + std::to_string(j) + ".0f;"};
}

int compile_many(int start_fd, int first, int count) {
  RuntimeOptions options;
  options.backend = "cpu";
  Runtime runtime(options);
  Field x = runtime.allocate<float>({64});
  Field y = runtime.allocate<float>({64});
  std::vector<float> xs(64);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i);
  x.copy_from(xs);
  std::printf("ready pid=%d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  if (start_fd >= 0) {
    char byte = 0;
    while (::read(start_fd, &byte, 1) > 0) {
    }
    ::close(start_fd);
  }
  int wrong = 0;
  for (int j = first; j < first + count; ++j) {
    runtime.kernel(numbered_kernel(j)).launch(Domain{64}, 3.0f, x, y);
    const std::vector<float> got = y.to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != 3.0f * static_cast<float>(i) + static_cast<float>(j)) ++wrong;
  }
  std::printf("compiles=%" PRIu64 " results=%s\n", runtime.counters().compiles,
              wrong == 0 ? "ok" : "wrong");
  return wrong == 0 ? 0 : 1;
}

int compile_slowly() {
  RuntimeOptions options;
  options.backend = "cpu";
  options.disk_cache = false;
  options.compile_timeout = std::chrono::minutes(10);
  options.compiler_options = {"-fconstexpr-steps=2147483647"};
  Runtime runtime(options);
  Field y = runtime.allocate<float>({4});
  std::printf("ready pid=%d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  runtime.kernel(test::slow_to_compile_kernel()).launch(Domain{4}, y);
  std::printf("compiled\n");
  return 0;
}

int hold() {
  const detail::CompileSlot slot("holder");
  std::printf("held\n");
  std::fflush(stdout);
  while (true) ::pause();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  try {
    if (what == "compile" && argc == 5)
      return compile_many(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
    if (what == "hold" && argc == 2) return hold();
    if (what == "slow" && argc == 2) return compile_slowly();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 3;
  }
  std::fprintf(stderr, "usage: %s compile START_FD FIRST COUNT | hold | slow\n", argv[0]);
  return 2;
}
