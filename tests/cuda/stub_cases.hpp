// The stubs the CUDA compile tests build: every kernel of tests/common/kernels.hpp
// with the bindings the end-to-end suites give it, in every mode and rank.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/stub_request.hpp"
#include "common/kernels.hpp"

namespace stubjit::test {

// Bindings of each kernel's parameters as the CPU end-to-end tests launch them.
inline std::vector<Binding> launch_bindings(const KernelSource& kernel) {
  static const std::map<std::string, std::vector<Binding>> table = {
      {"saxpy", {Binding::scalar, Binding::projection, Binding::projection}},
      {"count_visits", {Binding::projection}},
      {"write_index", {Binding::index, Binding::projection}},
      {"mixed",
       {Binding::scalar, Binding::scalar, Binding::scalar, Binding::scalar, Binding::projection,
        Binding::projection, Binding::projection}},
      {"row_sum", {Binding::projection, Binding::projection}},
      {"lookup", {Binding::broadcast, Binding::projection, Binding::projection}},
      {"sum_all", {Binding::projection, Binding::broadcast}},
  };
  const auto found = table.find(kernel.name);
  if (found == table.end())
    throw std::logic_error("add the bindings of kernel '" + kernel.name + "' to stub_cases.hpp");
  return found->second;
}

struct ModeRank {
  Mode mode;
  int rank;
};

// direct for ranks 1..3, spread and multi for ranks 1..8.
inline std::vector<ModeRank> every_mode_and_rank() {
  std::vector<ModeRank> cases;
  for (Mode mode : {Mode::direct, Mode::spread, Mode::multi})
    for (int rank = 1; rank <= 8; ++rank)
      if (mode != Mode::direct || rank <= 3) cases.push_back({mode, rank});
  return cases;
}

// `bindings` empty: those of launch_bindings(kernel).
inline detail::StubRequest cuda_request(const KernelSource& kernel, ModeRank at, int index_bits,
                                        std::vector<Binding> bindings = {}) {
  detail::StubRequest request;
  request.emitter = "cuda";
  request.mode = at.mode;
  request.rank = at.rank;
  request.index_bits = index_bits;
  request.kernel = &kernel;
  request.bindings = bindings.empty() ? launch_bindings(kernel) : std::move(bindings);
  request.max_threads_per_group = 256;
  request.warp_size = 32;
  return request;
}

}  // namespace stubjit::test
