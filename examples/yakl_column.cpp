// YAKL's hierarchical parallelism, as a stubjit group kernel. The example of YAKL's
// wiki ("Hierarchical Parallelism"):
//
//   parallel_outer("blah", Bounds<2>(ny, nx), YAKL_LAMBDA (int j, int i, InnerHandler handler) {
//     // Load data
//     parallel_inner(nz, [&] (int k) {
//       w_velocity(j, i, 1 + k) = state(idW, k, j, i);
//     }, handler);
//     fence_inner(handler);
//     // Boundary conditions
//     single_inner([&] () {
//       w_velocity(j, i, 0     ) = 0;
//       w_velocity(j, i, nz + 1) = 0;
//     }, handler);
//     fence_inner(handler);
//     // Compute momentum from velocity and pre-computed density
//     parallel_inner(nz + 2, [&] (int k) {
//       w_momentum(j, i, k) = w_velocity(j, i, k) * density(j, i, k);
//     }, handler);
//   }, LaunchConfig<nz>());
//
// In stubjit: parallel_outer is a group kernel (a `group("g")` parameter) launched over
// the (ny, nx) domain, one group per column; the InnerHandler is the Group `g`;
// parallel_inner is g.inner, fence_inner g.fence, single_inner g.single; the
// LaunchConfig's inner size is LaunchOptions::group_size. On a GPU each group is a
// block of that many threads sharing the inner loops; on the CPU one host thread runs
// a group (inner loops are plain loops, fences cost nothing) and the columns spread
// over the cores, as YAKL's OpenMP backend does.
//
// The fields: `state` is the whole (nvars, nz, ny, nx) array, bound whole (broadcast)
// and indexed as in YAKL with the group's (j, i) from the index token. w_velocity,
// density and w_momentum are (ny, nx, nz + 2) arrays projected over the domain: each
// group sees its own column as a rank-1 view, w(k) being w_velocity(j, i, k).
//
//   build/examples/yakl_column
#include <stubjit/stubjit.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());

  stubjit::Kernel column = runtime.kernel({
      "yakl_column",
      {stubjit::group("g"), stubjit::index("p"), stubjit::scalar<std::int32_t>("nz"),
       stubjit::scalar<std::int32_t>("idW"), stubjit::in<double>("state", 4),
       stubjit::in<double>("density", 1), stubjit::inout<double>("w", 1),
       stubjit::inout<double>("momentum", 1)},
      R"(
const auto j = p[0], i = p[1];
// Load data
g.inner(nz, [&](int k) { w(1 + k) = state(idW, k, j, i); });
g.fence();
// Boundary conditions
g.single([&] {
  w(0) = 0;
  w(nz + 1) = 0;
});
g.fence();
// Compute momentum from velocity and pre-computed density
g.inner(nz + 2, [&](int k) { momentum(k) = w(k) * density(k); });
)",
  });

  const std::int32_t ny = 40, nx = 60, nz = 50, nvars = 4, idW = 3;
  const std::int64_t levels = nz + 2;
  std::vector<double> state(std::size_t(nvars) * nz * ny * nx);
  std::vector<double> density(std::size_t(ny) * nx * levels);
  for (std::size_t n = 0; n < state.size(); ++n) state[n] = 0.001 * double(n % 9973) - 3.0;
  for (std::size_t n = 0; n < density.size(); ++n) density[n] = 1.0 + 0.01 * double(n % 101);

  stubjit::Field f_state = runtime.allocate<double>({nvars, nz, ny, nx});
  stubjit::Field f_density = runtime.allocate<double>({ny, nx, levels});
  stubjit::Field f_w = runtime.allocate<double>({ny, nx, levels});
  stubjit::Field f_momentum = runtime.allocate<double>({ny, nx, levels});
  f_state.copy_from(state);
  f_density.copy_from(density);
  // Not yet written: -1 everywhere, so that a level the kernel misses shows.
  f_w.copy_from(std::vector<double>(density.size(), -1.0));
  f_momentum.copy_from(std::vector<double>(density.size(), -1.0));

  stubjit::LaunchOptions options;
  options.group_size = nz;  // YAKL's LaunchConfig<nz>(): threads per group on a GPU
  const stubjit::LaunchSummary summary =
      column.launch(options, stubjit::Domain{ny, nx}, nz, idW, f_state, f_density, f_w, f_momentum);
  // The summary's group size: the threads that ran each group (1 on the CPU).
  std::printf("%d x %d columns of %d levels; group size: asked %u, ran %u\n", ny, nx, nz,
              options.group_size, summary.group_size);

  // The same with plain host loops.
  std::vector<double> want_w(density.size()), want_m(density.size());
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::size_t at = std::size_t((j * nx + i) * levels);
      for (std::int64_t k = 0; k < nz; ++k)
        want_w[at + std::size_t(1 + k)] = state[std::size_t(((idW * nz + k) * ny + j) * nx + i)];
      want_w[at] = 0;
      want_w[at + std::size_t(nz + 1)] = 0;
      for (std::int64_t k = 0; k < levels; ++k)
        want_m[at + std::size_t(k)] = want_w[at + std::size_t(k)] * density[at + std::size_t(k)];
    }
  const std::vector<double> got_w = f_w.to_vector<double>();
  const std::vector<double> got_m = f_momentum.to_vector<double>();
  std::size_t wrong = 0;
  for (std::size_t n = 0; n < want_w.size(); ++n)
    wrong += (got_w[n] != want_w[n]) + (got_m[n] != want_m[n]);
  std::printf("result check: %s (%zu of %zu values wrong)\n", wrong ? "FAILED" : "ok", wrong,
              2 * want_w.size());
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
