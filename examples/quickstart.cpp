// stubjit quickstart: a 2-D saxpy, compiled at run time for the best backend found.
//
//   build/examples/quickstart
//
// STUBJIT_BACKEND=cpu forces a backend, STUBJIT_LOG=debug shows what happens,
// STUBJIT_DUMP_DIR=dir keeps the generated stubs.
#include <stubjit/stubjit.hpp>

#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;  // picks the first available backend
  std::printf("backend: %s (target %s, %s)\n", runtime.backend_name().c_str(),
              runtime.target_id().c_str(), runtime.compiler_id().c_str());

  // What to compute: the kernel's signature and body. stubjit writes the rest.
  stubjit::Kernel saxpy = runtime.kernel({
      "saxpy",
      {stubjit::scalar<float>("a"), stubjit::in<float>("x"), stubjit::inout<float>("y")},
      "y = a * x + y;",
  });

  const std::int64_t rows = 1000, cols = 1500;
  std::vector<float> x(rows * cols), y(rows * cols);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = 1.0f;
  }
  stubjit::Field dx = runtime.allocate<float>({rows, cols});
  stubjit::Field dy = runtime.allocate<float>({rows, cols});
  dx.copy_from(x);
  dy.copy_from(y);

  // Over which indices: a rows x cols domain. x and y have the domain's rank and bind
  // to rank-0 parameters: each activity sees one element (elemental projection).
  const stubjit::Domain domain{rows, cols};
  const stubjit::LaunchSummary summary = saxpy.launch(domain, 2.0f, dx, dy);
  std::printf("plan: %s\n", saxpy.plan(domain).describe().c_str());
  std::printf("compiled this launch: %s\n", summary.compiled ? "yes" : "no");

  const std::vector<float> out = dy.to_vector<float>();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < out.size(); ++i) wrong += out[i] != 2.0f * x[i] + 1.0f;
  std::printf("result check: %s (%zu of %zu elements wrong)\n", wrong ? "FAILED" : "ok", wrong,
              out.size());
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
