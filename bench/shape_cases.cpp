#include "shape_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace stubjit::bench {

const char* name_of(Kind k) { return k == Kind::saxpy ? "saxpy" : "stencil"; }

const char* name_of(FieldOrder o) {
  return o == FieldOrder::row ? "row" : o == FieldOrder::column ? "column" : "strided";
}

i64 env_or(const char* name, i64 fallback) {
  const char* text = std::getenv(name);
  return text ? std::atoll(text) : fallback;
}

int stencil_dims(int rank) { return rank < 3 ? rank : 3; }

namespace {

// Counts with the innermost `inner` and the rest as equal as they can be, about `total`
// elements in all (the stencil: counting its halos, so its arrays stay that size).
std::vector<i64> counts_for(Kind kind, int rank, i64 inner, i64 total) {
  if (rank == 1) return {kind == Kind::stencil ? total - 2 : total};
  const int halo_dims = kind == Kind::stencil ? stencil_dims(rank) : 0;
  auto allocated = [&](const std::vector<i64>& c) {
    double n = 1;
    for (int d = 0; d < rank; ++d) n *= double(c[std::size_t(d)] + (d >= rank - halo_dims ? 2 : 0));
    return n;
  };
  const auto halo = [&](int d) { return d >= rank - halo_dims ? 2 : 0; };
  std::vector<i64> c(std::size_t(rank), 1);
  c.back() = inner;
  // Equal outer extents, as large as fit; then the outermost takes what is left.
  i64 m = std::max<i64>(
      1, i64(std::pow(double(total) / double(inner + halo(rank - 1)), 1.0 / (rank - 1))));
  const auto set_outer = [&] {
    for (int d = 0; d + 1 < rank; ++d) c[std::size_t(d)] = m;
  };
  set_outer();
  while (m > 1 && allocated(c) > double(total)) {
    --m;
    set_outer();
  }
  const double rest = allocated(c) / double(c[0] + halo(0));
  c[0] = std::max<i64>(1, i64(double(total) / rest) - halo(0));
  return c;
}

}  // namespace

ShapeLayout layout_of(const Shape& s) {
  ShapeLayout r;
  const int rank = s.rank;
  const int halo_dims = s.kind == Kind::stencil ? stencil_dims(rank) : 0;
  for (int d = 0; d < rank; ++d)
    r.extents.push_back(s.counts[std::size_t(d)] + (d >= rank - halo_dims ? 2 : 0));
  r.strides.assign(std::size_t(rank), 0);
  i64 stride = s.order == FieldOrder::strided ? 2 : 1;
  for (int k = 0; k < rank; ++k) {
    const int d = s.order == FieldOrder::column ? k : rank - 1 - k;
    r.strides[std::size_t(d)] = stride;
    stride *= r.extents[std::size_t(d)];
  }
  r.elements = stride;
  // The hand-written side walks memory order: largest stride outermost.
  r.nest.rank = rank;
  for (int k = 0; k < rank; ++k) {
    const int d = s.order == FieldOrder::column ? rank - 1 - k : k;
    r.nest.count[k] = s.counts[std::size_t(d)];
    r.nest.stride_a[k] = r.strides[std::size_t(d)];
    r.nest.stride_b[k] = r.strides[std::size_t(d)];
  }
  for (int d = rank - halo_dims; d < rank; ++d) {
    r.first_point += r.strides[std::size_t(d)];
    r.neighbour.push_back(r.strides[std::size_t(d)]);
  }
  return r;
}

Domain domain_of(const Shape& s) {
  std::vector<Dim> dims;
  const int halo_dims = s.kind == Kind::stencil ? stencil_dims(s.rank) : 0;
  for (int d = 0; d < s.rank; ++d)
    dims.push_back(Dim{d >= s.rank - halo_dims ? 1 : 0, s.counts[std::size_t(d)], 1});
  return Domain(dims);
}

std::string key_of(const Shape& s) {
  std::string key = std::string(name_of(s.kind)) + "/" + name_of(s.order);
  for (i64 c : s.counts) key += "x" + std::to_string(c);
  return key;
}

i64 points_of(const Shape& s) {
  i64 points = 1;
  for (i64 c : s.counts) points *= c;
  return points;
}

double useful_bytes(const Shape& s) {
  return double(points_of(s)) * (s.kind == Kind::saxpy ? 12 : 8);
}

KernelSource saxpy_source() {
  return {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"};
}

KernelSource stencil_source(int rank) {
  const int dims = stencil_dims(rank);
  auto at = [&](int moved, int delta) {
    std::string call = "u(";
    for (int d = 0; d < rank; ++d) {
      call += (d ? ", i[" : "i[") + std::to_string(d) + "]";
      if (d == moved) call += delta > 0 ? " + 1" : " - 1";
    }
    return call + ")";
  };
  std::string body = "const float sum = ";
  for (int k = 0; k < dims; ++k) {
    const int d = rank - dims + k;
    body += std::string(k ? " + " : "") + "(" + at(d, -1) + " + " + at(d, +1) + ")";
  }
  body += ";\nout = " + std::to_string(stencil_c0) + "f * " + at(-1, 0) + " + " +
          std::to_string(stencil_c1) + "f * sum;";
  return {"stencil_r" + std::to_string(rank),
          {index("i"), in<float>("u", rank), inout<float>("out")},
          body};
}

void register_cases(i64 iterations, const CaseRunner& run) {
  const i64 total = env_or("STUBJIT_SHAPES_TOTAL", i64(1) << 25);
  iterations = env_or("STUBJIT_SHAPES_ITERATIONS", iterations);
  for (Kind kind : {Kind::saxpy, Kind::stencil}) {
    for (int rank = 1; rank <= 8; ++rank) {
      for (i64 inner : {1, 3, 5, 7, 37, 64, 1000}) {
        if (rank == 1 && inner != 1) continue;  // one case: the whole domain
        for (FieldOrder order : {FieldOrder::row, FieldOrder::column, FieldOrder::strided}) {
          if (rank == 1 && order == FieldOrder::column) continue;  // the same as row
          const Shape shape{kind, rank, inner, order,
                            counts_for(kind, rank, rank == 1 ? total : inner, total)};
          std::vector<std::pair<std::string, std::optional<Mode>>> modes = {
              {"auto", std::nullopt}, {"spread", Mode::spread}, {"multi", Mode::multi}};
          if (rank <= 3) modes.insert(modes.begin() + 1, {"direct", Mode::direct});
          for (const auto& [mode_name, mode] : modes) {
            const std::string name = std::string(name_of(kind)) + "/r" + std::to_string(rank) +
                                     "/" + (rank == 1 ? "all" : "inner" + std::to_string(inner)) +
                                     "/" + name_of(order) + "/" + mode_name;
            const std::optional<Mode> forced = mode;
            benchmark::RegisterBenchmark(
                name.c_str(),
                [run, shape, forced](benchmark::State& state) { run(state, shape, forced); })
                ->UseManualTime()
                ->Iterations(iterations)
                ->Unit(benchmark::kMillisecond);
          }
        }
      }
    }
  }
}

}  // namespace stubjit::bench
