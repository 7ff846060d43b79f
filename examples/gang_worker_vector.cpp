// OpenACC's gang, worker and vector levels, the way GPUFORT maps an OpenACC loop nest
// onto GPU blocks: gang = a group (a block), worker = a warp of it, vector = a lane.
// The Fortran original (arrays column-major, loops with arbitrary bounds and steps):
//
//   real(8) :: x(nm, nl, ni, nj), y(nm, nl, ni, nj), c(nl)
//   !$acc parallel loop gang collapse(2) num_workers(4) vector_length(32)
//   do j = 2, nj - 1, 3            ! every third column from the second
//     do i = ni, 1, -2             ! backwards, every other one
//       !$acc loop worker
//       do l = 1, nl
//         s = c(l) + i             ! once per (i, j, l): worker-partitioned, vector-single
//         !$acc loop vector
//         do m = 1, nm
//           y(m, l, i, j) = s * x(m, l, i, j) + j
//         end do
//       end do
//     end do
//   end do
//
// In stubjit the collapsed gang loops are the domain, built from the loops' bounds as
// written (Domain::loops, `last` inclusive, a negative step walking backwards): there
// is one group per iteration of the collapsed nest, and the index token gives the
// group its (i, j) as the loops' own values, so no index has to be recovered from a
// collapsed counter by hand. Order::fortran makes p[0] the innermost gang loop (i)
// and the fields column-major, so subscripts read as in Fortran (0-based here). The
// worker loop is g.worker_loop (spread over the group's warps on a GPU), the vector
// loop g.vector_loop (over the lanes of the warp). num_workers(4) vector_length(32)
// is a group of 128 threads (LaunchOptions::group_size) on warps of 32 lanes; on
// wavefronts of 64 the same group is 2 workers of 64 lanes (the hardware's warp is the
// vector: the loops stay right, the split changes). On the CPU one host thread
// runs a group and both loops are plain loops; the groups spread over the cores.
//
//   build/examples/gang_worker_vector
#include <stubjit/stubjit.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());

  stubjit::Kernel nest = runtime.kernel({
      "gang_worker_vector",
      {stubjit::group("g"), stubjit::index("p"), stubjit::scalar<std::int32_t>("nl"),
       stubjit::scalar<std::int32_t>("nm"), stubjit::in<double>("c", 1),
       stubjit::in<double>("x", 4), stubjit::inout<double>("y", 4)},
      R"(
const auto i = p[0], j = p[1];  // the gang loops' values
g.worker_loop(nl, [&](int l) {
  const double s = c(l) + double(i);
  g.vector_loop(nm, [&](int m) { y(m, l, i, j) = s * x(m, l, i, j) + double(j); });
});
)",
  });

  const std::int32_t nm = 48, nl = 6;  // nm: a warp and a half
  const std::int64_t ni = 25, nj = 30;
  const std::size_t total = std::size_t(nm) * nl * ni * nj;
  // Column-major host arrays: x(m, l, i, j) at m + nm * (l + nl * (i + ni * j)).
  auto at = [&](std::int64_t m, std::int64_t l, std::int64_t i, std::int64_t j) {
    return std::size_t(m + nm * (l + nl * (i + ni * j)));
  };
  std::vector<double> x(total), c(static_cast<std::size_t>(nl));
  // Quarters and small integers: every product and sum is exact, whichever way the
  // compilers contract them.
  for (std::size_t n = 0; n < total; ++n) x[n] = 0.25 * double(n % 61) - 5.0;
  for (std::int32_t l = 0; l < nl; ++l) c[std::size_t(l)] = double(l % 5 + 1);

  using stubjit::Layout;
  stubjit::Field f_c = runtime.allocate<double>({nl});
  stubjit::Field f_x = runtime.allocate<double>({nm, nl, ni, nj}, Layout::column_major);
  stubjit::Field f_y = runtime.allocate<double>({nm, nl, ni, nj}, Layout::column_major);
  f_c.copy_from(c);
  f_x.copy_from(x);
  f_y.copy_from(std::vector<double>(total, -1.0));  // what the nest does not visit stays -1

  // do j = 2, nj - 1, 3 and do i = ni, 1, -2, 0-based: j = 1 .. nj - 2 by 3 and
  // i = ni - 1 down to 0 by -2. Outermost loop first; p = (i, j) in Fortran order.
  const stubjit::Domain gangs =
      stubjit::Domain::loops({{1, nj - 2, 3}, {ni - 1, 0, -2}}, stubjit::Order::fortran);
  stubjit::LaunchOptions options;
  options.group_size = 4 * 32;  // num_workers(4) vector_length(32)
  const stubjit::LaunchSummary summary = nest.launch(options, gangs, nl, nm, f_c, f_x, f_y);
  std::printf("gang domain %s: %lld groups, %u thread(s) per group\n", gangs.to_string().c_str(),
              (long long)gangs.size(), summary.group_size);

  // The nest as written, on the host.
  std::vector<double> want(total, -1.0);
  std::size_t visited = 0;
  for (std::int64_t j = 1; j <= nj - 2; j += 3)
    for (std::int64_t i = ni - 1; i >= 0; i -= 2)
      for (std::int64_t l = 0; l < nl; ++l) {
        const double s = c[std::size_t(l)] + double(i);
        for (std::int64_t m = 0; m < nm; ++m, ++visited)
          want[at(m, l, i, j)] = s * x[at(m, l, i, j)] + double(j);
      }
  const std::vector<double> got = f_y.to_vector<double>();
  std::size_t wrong = 0;
  for (std::size_t n = 0; n < total; ++n) wrong += got[n] != want[n];
  std::printf("%zu of %zu elements in the nest\n", visited, total);
  std::printf("result check: %s (%zu of %zu elements wrong)\n", wrong ? "FAILED" : "ok", wrong,
              total);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
