// The sort stubs the NVRTC and hipRTC compile tests build (nvrtc_sort_compile_test.cpp,
// hip/sort_compile_test.cpp): both stages of a sort of every element type (ascending and
// descending in turn, the complex types by a less expression, each with a payload of
// another type), and of the shapes: each dimension of rank-2 and rank-3 domains, the
// sorting permutation from an index token, keys computed from projected and broadcast
// fields and a scalar, a custom order and a specialized scalar; each with the bindings
// a launch gives it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/reduce_stub_cases.hpp"

namespace stubjit::test::sort {

struct SortStubCase {
  std::string name;  // the test's name for it
  KernelSource kernel;
  std::vector<Binding> bindings;
  int rank = 1;
  int dimension = 0;  // the request's, in the run's numbering
  std::vector<std::uint64_t> specialized_values{};
};

// Sort keys and payloads of any element type (sort<T> and payload<T> spell them for a
// host type).
inline Param keys_param(std::string name, ElementType type, SortOrder order,
                        std::string less = {}) {
  Param param{ParamKind::field, std::move(name), type, 0, Access::read_write};
  param.sort = order;
  param.less = std::move(less);
  return param;
}
inline Param payload_param(std::string name, ElementType type) {
  Param param{ParamKind::field, std::move(name), type, 0, Access::read_write};
  param.payload = true;
  return param;
}

inline bool is_complex(ElementType type) {
  return type == ElementType::complex_f32 || type == ElementType::complex_f64;
}

inline std::vector<SortStubCase> sort_stub_cases() {
  constexpr Binding I = Binding::index, S = Binding::scalar, P = Binding::projection,
                    B = Binding::broadcast;
  std::vector<SortStubCase> cases;
  const auto add = [&](std::string name, KernelSource kernel, std::vector<Binding> bindings,
                       int rank, int dimension) -> SortStubCase& {
    SortStubCase c;
    c.name = std::move(name);
    c.kernel = std::move(kernel);
    c.bindings = std::move(bindings);
    c.rank = rank;
    c.dimension = dimension;
    cases.push_back(std::move(c));
    return cases.back();
  };
  const std::vector<ElementType> types = reduce::reduce_element_types();
  for (std::size_t t = 0; t < types.size(); ++t) {
    const ElementType type = types[t];
    const ElementType other = types[(t + 1) % types.size()];
    const std::string name = reduce::type_word(type);
    const Param keys =
        is_complex(type)
            ? keys_param("x", type, SortOrder::custom, "real(a) < real(b)")
            : keys_param("x", type, t % 2 ? SortOrder::descending : SortOrder::ascending);
    add(name, {"sort_" + name, {keys, payload_param("p", other)}, ""}, {P, P}, 1, 0);
  }
  const KernelSource rows{"rows_sort", {stubjit::sort<double>("x"), payload<float>("w")}, ""};
  add("r2_d0", rows, {P, P}, 2, 0);
  add("r2_d1", rows, {P, P}, 2, 1);
  const KernelSource cube{"cube_sort",
                          {stubjit::sort<std::int32_t>("x", SortOrder::descending),
                           payload<std::int64_t>("perm"), index("i")},
                          "perm = i[0] + i[1] + i[2];"};
  add("r3_d0", cube, {P, P, I}, 3, 0);
  add("r3_d1", cube, {P, P, I}, 3, 1);
  add("r3_d2", cube, {P, P, I}, 3, 2);
  add("argsort",
      {"argsort",
       {stubjit::sort<float>("x"), payload<std::int64_t>("perm"), index("i")},
       "perm = i[0];"},
      {P, P, I}, 1, 0);
  add("computed_keys",
      {"weighted_keys",
       {in<float>("x"), in<float>("w", 1), scalar<std::int64_t>("n"), stubjit::sort<float>("y"),
        payload<std::int32_t>("tag")},
       "y = x * w(n % 4); tag = 7;"},
      {P, B, S, P, P}, 2, 0);
  add("custom",
      {"custom_sort", {stubjit::sort<double>("x", "(a < 0 ? -a : a) < (b < 0 ? -b : b)")}, ""}, {P},
      1, 0);
  add("specialized",
      {"scaled_sort",
       {specialized<std::int32_t>("k"), stubjit::sort<std::int32_t>("x"), payload<double>("v")},
       "x = x * k;"},
      {S, P, P}, 1, 0)
      .specialized_values = {3};
  return cases;
}

// The request a CUDA or HIP runtime makes for a stage of the case's sort: spread
// numbering, launch bounds of 1024 threads per group, the device's warp width.
inline detail::StubRequest sort_request(const SortStubCase& c, detail::Pattern stage,
                                        const std::string& emitter, int index_bits,
                                        std::uint32_t warp_size) {
  return reduce::stage_request(c, stage, emitter, index_bits, warp_size);
}

inline std::vector<detail::Pattern> sort_stages() {
  return {detail::Pattern::sort_runs, detail::Pattern::sort_merge};
}

}  // namespace stubjit::test::sort
