// A domain split across devices: Jacobi steps of the heat equation on a grid whose rows
// are cut between runtimes, one per device, each holding only its rows and a halo row on
// either side. Between steps the application exchanges the halo rows (here through host
// memory). The result is checked against one runtime over the whole grid.
//
//   split_domain [parts]     parts: how many runtimes (default 2). On a GPU backend
//                            runtime p takes device p (device 0 where p is missing);
//                            on the CPU each is a CPU runtime of its own.
#include <stubjit/stubjit.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using i64 = std::int64_t;

constexpr i64 rows = 60, columns = 40, steps = 25;  // interior; a boundary of 1 around it
constexpr i64 width = columns + 2;

stubjit::KernelSource jacobi() {
  return {"jacobi",
          {stubjit::index("i"), stubjit::in<double>("u", 2), stubjit::inout<double>("next")},
          "next = 0.25 * (u(i[0] - 1, i[1]) + u(i[0] + 1, i[1]) + u(i[0], i[1] - 1) + "
          "u(i[0], i[1] + 1));"};
}

// A hot left edge, a cold right one, a warm spot inside.
std::vector<double> initial_grid() {
  std::vector<double> grid((rows + 2) * width, 0.0);
  for (i64 r = 0; r < rows + 2; ++r) grid[r * width] = 100.0;
  for (i64 r = rows / 3; r < rows / 2; ++r)
    for (i64 c = columns / 3; c < columns / 2; ++c) grid[r * width + c] = 50.0;
  return grid;
}

// Runtime p of `parts`: device p where the backend has it, else device 0.
std::unique_ptr<stubjit::Runtime> runtime_for(int p, const std::string& backend) {
  stubjit::RuntimeOptions options;
  options.backend = backend;
  options.device = backend == "cpu" ? 0 : p;
  try {
    return std::make_unique<stubjit::Runtime>(options);
  } catch (const stubjit::BackendError&) {
    std::printf("  (no device %d: runtime %d uses device 0)\n", p, p);
    options.device = 0;
    return std::make_unique<stubjit::Runtime>(options);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const int parts = argc > 1 ? std::atoi(argv[1]) : 2;
  if (parts < 1 || parts > 20) {
    std::fprintf(stderr, "usage: split_domain [parts, 1 to 20]\n");
    return 2;
  }
  const std::vector<double> start = initial_grid();
  const stubjit::Domain interior({{1, rows, 1}, {1, columns, 1}});

  // One runtime over the whole grid: the reference.
  stubjit::Runtime reference;
  stubjit::Kernel whole_step = reference.kernel(jacobi());
  stubjit::Field a = reference.allocate<double>({rows + 2, width});
  stubjit::Field b = reference.allocate<double>({rows + 2, width});
  a.copy_from(start);
  b.copy_from(start);  // the boundary is in both buffers
  for (i64 s = 0; s < steps; ++s) {
    whole_step.launch(interior, a, b);
    std::swap(a, b);
  }
  const std::vector<double> expected = a.to_vector<double>();

  // The same over `parts` runtimes, the first part twice the weight of each other (a
  // device that is twice as fast), one halo row either side.
  std::vector<std::unique_ptr<stubjit::Runtime>> runtimes;
  std::vector<stubjit::Runtime*> pointers;
  std::vector<double> weights;
  for (int p = 0; p < parts; ++p) {
    runtimes.push_back(runtime_for(p, reference.backend_name()));
    pointers.push_back(runtimes.back().get());
    weights.push_back(p == 0 ? 2.0 : 1.0);
  }
  const std::vector<stubjit::DomainPart> split =
      stubjit::split_domain(interior, 0, weights, stubjit::Halo{1, 1});
  std::vector<stubjit::Field> now, next;
  for (int p = 0; p < parts; ++p) {
    const stubjit::DomainPart& part = split[p];
    std::printf("part %d on %s: rows %lld to %lld, fields of rows %lld to %lld\n", p,
                runtimes[p]->backend_name().c_str(), (long long)part.domain[0].first,
                (long long)(part.domain[0].first + part.domain[0].count - 1),
                (long long)part.field_first, (long long)(part.field_first + part.field_count - 1));
    // Rows field_first .. field_first + field_count - 1 of the whole grid (the halo at
    // the grid's edges is its boundary rows 0 and rows + 1).
    const std::vector<double> block(start.begin() + part.field_first * width,
                                    start.begin() + (part.field_first + part.field_count) * width);
    now.push_back(runtimes[p]->allocate<double>({part.field_count, width}));
    next.push_back(runtimes[p]->allocate<double>({part.field_count, width}));
    now.back().copy_from(block);
    next.back().copy_from(block);
  }
  stubjit::SplitKernel step(pointers, jacobi());
  std::vector<double> row(width);
  for (i64 s = 0; s < steps; ++s) {
    std::vector<stubjit::PartLaunch> launches;
    for (int p = 0; p < parts; ++p) launches.push_back({split[p].local, {now[p], next[p]}});
    step.launch(launches);
    // Halo exchange: part p's last own row is part p + 1's halo row below, and part
    // p + 1's first own row is part p's halo row above.
    for (int p = 0; p + 1 < parts; ++p) {
      const i64 lower_last = split[p].local[0].first + split[p].local[0].count - 1;
      const i64 upper_first = split[p + 1].local[0].first;
      next[p].section(0, lower_last, lower_last).copy_to(row.data(), row.size());
      next[p + 1].section(0, upper_first - 1, upper_first - 1).copy_from(row.data(), row.size());
      next[p + 1].section(0, upper_first, upper_first).copy_to(row.data(), row.size());
      next[p].section(0, lower_last + 1, lower_last + 1).copy_from(row.data(), row.size());
    }
    std::swap(now, next);
  }

  // The parts' own rows, back into one grid.
  std::vector<double> result = start;
  for (int p = 0; p < parts; ++p) {
    const std::vector<double> part_rows = now[p].to_vector<double>();
    const i64 own_first = split[p].local[0].first, own_count = split[p].local[0].count;
    for (i64 r = own_first; r < own_first + own_count; ++r)
      for (i64 c = 0; c < width; ++c)
        result[(split[p].field_first + r) * width + c] = part_rows[r * width + c];
  }
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < result.size(); ++k) wrong += result[k] != expected[k];
  std::printf("%lld Jacobi steps over %lldx%lld split %d ways, halo rows exchanged\n",
              (long long)steps, (long long)rows, (long long)columns, parts);
  std::printf("result check: %s (%zu differ from one runtime)\n", wrong ? "FAILED" : "ok", wrong);
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
