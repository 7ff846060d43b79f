// The scan stubs the NVRTC and hipRTC compile tests build (nvrtc_scan_compile_test.cpp,
// hip/scan_compile_test.cpp): the scan stage of every combiner over every element type
// that takes it (a rank-1 pencil: `y = x`, inclusive and exclusive in turn), and that
// of the shapes: each dimension of rank-2 and rank-3 domains, an in-place scan
// (an empty body), an index token with a mask, a projected field with a broadcast one
// and a scalar, a custom combiner and a specialized scalar; each with the bindings a
// launch gives it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/reduce_stub_cases.hpp"

namespace stubjit::test::scan {

struct ScanStubCase {
  std::string name;  // the test's name for it
  KernelSource kernel;
  std::vector<Binding> bindings;
  int rank = 1;
  int dimension = 0;    // the request's, in the run's numbering
  bool matrix = false;  // a (type, combiner) case: its scan stage alone
  std::vector<std::uint64_t> specialized_values{};
  bool another_combiner = false;  // a matrix case after the first of its element type
};

// A scan parameter of any element type (scan<T> spells it for a host type).
inline Param scan_param(std::string name, ElementType type, Combiner combiner, ScanKind kind) {
  Param param = reduce::result_param(std::move(name), type, combiner);
  param.scan = kind;
  return param;
}

inline std::vector<ScanStubCase> scan_stub_cases() {
  constexpr Binding I = Binding::index, S = Binding::scalar, P = Binding::projection,
                    B = Binding::broadcast;
  std::vector<ScanStubCase> cases;
  const auto add = [&](std::string name, KernelSource kernel, std::vector<Binding> bindings,
                       int rank, int dimension) -> ScanStubCase& {
    ScanStubCase c;
    c.name = std::move(name);
    c.kernel = std::move(kernel);
    c.bindings = std::move(bindings);
    c.rank = rank;
    c.dimension = dimension;
    cases.push_back(std::move(c));
    return cases.back();
  };
  // Inclusive and exclusive in turn along each type's combiners, the first combiner's
  // kind in turn along the types: the cases of one_combiner_per_type hold both kinds.
  const std::vector<ElementType> types = reduce::reduce_element_types();
  for (std::size_t t = 0; t < types.size(); ++t) {
    const ElementType type = types[t];
    const std::vector<Combiner> combiners = reduce::combiners_of(type);
    for (std::size_t k = 0; k < combiners.size(); ++k) {
      const Combiner combiner = combiners[k];
      const std::string name = std::string(name_of(combiner)) + "_" + reduce::type_word(type);
      const ScanKind kind = (t + k) % 2 ? ScanKind::exclusive : ScanKind::inclusive;
      add(name,
          {"scan_" + name,
           {Param{ParamKind::field, "x", type, 0, Access::read_only},
            scan_param("y", type, combiner, kind)},
           "y = x;"},
          {P, P}, 1, 0);
      cases.back().matrix = true;
      cases.back().another_combiner = k > 0;
    }
  }
  const KernelSource sum2{
      "rows_sum", {in<double>("x"), stubjit::scan<double>("y", Combiner::sum)}, "y = x;"};
  add("r2_d0", sum2, {P, P}, 2, 0);
  add("r2_d1", sum2, {P, P}, 2, 1);
  const KernelSource max3{
      "cube_max",
      {in<std::int32_t>("x"), stubjit::scan<std::int32_t>("y", Combiner::max, ScanKind::exclusive)},
      "y = x;"};
  add("r3_d0", max3, {P, P}, 3, 0);
  add("r3_d1", max3, {P, P}, 3, 1);
  add("r3_d2", max3, {P, P}, 3, 2);
  add("in_place", {"in_place_sum", {stubjit::scan<std::int64_t>("y", Combiner::sum)}, ""}, {P}, 1,
      0);
  add("index_and_mask",
      {"masked_index_sum",
       {index("i"), mask<std::int32_t>("keep"), stubjit::scan<std::int64_t>("y", Combiner::sum)},
       "y = stubjit::i64(i[0]) * 1000 + i[1];"},
      {I, P, P}, 2, 1);
  add("projected_and_broadcast",
      {"weighted_scan",
       {in<float>("x"), in<float>("w", 1), scalar<std::int64_t>("n"),
        stubjit::scan<float>("y", Combiner::sum)},
       "y = x * w(n % 4);"},
      {P, B, S, P}, 2, 0);
  add("custom",
      {"custom_scan",
       {in<double>("x"),
        stubjit::scan<double>("y", "a > b ? a : b", "-1e300", ScanKind::exclusive)},
       "y = x;"},
      {P, P}, 1, 0);
  add("specialized",
      {"scaled_scan",
       {specialized<std::int32_t>("k"), in<std::int32_t>("x"),
        stubjit::scan<std::int32_t>("y", Combiner::min)},
       "y = x * k;"},
      {S, P, P}, 1, 0)
      .specialized_values = {3};
  return cases;
}

// The request a CUDA or HIP runtime makes for a stage of the case's scan: spread
// numbering, launch bounds of 1024 threads per group, the device's warp width.
inline detail::StubRequest scan_request(const ScanStubCase& c, detail::Pattern stage,
                                        const std::string& emitter, int index_bits,
                                        std::uint32_t warp_size) {
  return reduce::stage_request(c, stage, emitter, index_bits, warp_size);
}

// The stages a case compiles on a GPU: its one (a GPU scan runs in one pass, with no
// partials stage).
inline std::vector<detail::Pattern> stages_of(const ScanStubCase&) {
  return {detail::Pattern::scan};
}

}  // namespace stubjit::test::scan
