// The reduce stubs the NVRTC and hipRTC compile tests build (nvrtc_reduce_compile_
// test.cpp, hip/reduce_compile_test.cpp): every combiner over every element type that
// takes it (a rank-1 domain reduced whole: `v = x`), the whole domain of rank 2 and 4,
// a dimension (first, middle, last) of rank 2 and 3 domains, an index token, a
// projected field with a broadcast one and a scalar, custom combiners (whole and along
// a dimension) and a specialized scalar; each with the bindings a launch gives it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/stub_request.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::test::reduce {

struct ReduceStubCase {
  std::string name;  // the test's name for it
  KernelSource kernel;
  std::vector<Binding> bindings;
  int rank = 1;
  int reduce_dimension = -1;  // the request's: -1, the whole domain
  std::vector<std::uint64_t> specialized_values{};
  bool another_combiner = false;  // a matrix case after the first of its element type
};

// The element types of the matrix, and the combiners each takes (signature.hpp's
// Combiner, written out here rather than asked of the library).
inline std::vector<ElementType> reduce_element_types() {
  return {ElementType::f32,      ElementType::f64,         ElementType::i32,
          ElementType::i64,      ElementType::u8,          ElementType::i16,
          ElementType::u64,      ElementType::boolean,     ElementType::float16,
          ElementType::bfloat16, ElementType::complex_f32, ElementType::complex_f64};
}

inline std::vector<Combiner> builtin_combiners() {
  return {Combiner::sum,    Combiner::product, Combiner::min, Combiner::max, Combiner::bit_and,
          Combiner::bit_or, Combiner::bit_xor, Combiner::any, Combiner::all};
}

inline std::vector<Combiner> combiners_of(ElementType type) {
  switch (type) {
    case ElementType::f32:
    case ElementType::f64:
    case ElementType::float16:
    case ElementType::bfloat16:
      return {Combiner::sum, Combiner::product, Combiner::min, Combiner::max};
    case ElementType::complex_f32:
    case ElementType::complex_f64:
      return {Combiner::sum, Combiner::product};
    case ElementType::boolean:
      return {Combiner::bit_and, Combiner::bit_or, Combiner::bit_xor, Combiner::any, Combiner::all};
    default:  // the integers
      return {Combiner::sum,     Combiner::product, Combiner::min,    Combiner::max,
              Combiner::bit_and, Combiner::bit_or,  Combiner::bit_xor};
  }
}

// A result parameter of any element type (result<T> spells it for a host type).
inline Param result_param(std::string name, ElementType type, Combiner combiner, int rank = 0) {
  Param param{ParamKind::field, std::move(name), type, rank, Access::read_write};
  param.combiner = combiner;
  return param;
}

// An identifier's spelling of a type: "complex<float>" -> "complex_float".
inline std::string type_word(ElementType type) {
  std::string word;
  for (const char* c = name_of(type); *c; ++c)
    if (*c != '>') word += (*c == '<' ? '_' : *c);
  return word;
}

// The cases that a toolkit's further compile checks take (another index width, another
// processor): every shape case, and of the matrix the first combiner of each element
// type. The first check of each test (sm_90 or gfx90a) compiles the whole matrix;
// what a combiner adds to a stub is the same text for every target and width, while
// what they change (index arithmetic, the warp's shuffles of each type's width) each
// element type still meets. One hipRTC or NVRTC compile of a case is 0.3 to 0.5 s here.
template <class Case>
std::vector<Case> one_combiner_per_type(std::vector<Case> cases) {
  cases.erase(
      std::remove_if(cases.begin(), cases.end(), [](const Case& c) { return c.another_combiner; }),
      cases.end());
  return cases;
}

// The request a CUDA or HIP runtime makes for a stage of a scan's or sort's case (a
// struct with kernel, bindings, rank, dimension and specialized_values): spread
// numbering, launch bounds of 1024 threads per group, the device's warp width.
template <class Case>
detail::StubRequest stage_request(const Case& c, detail::Pattern stage, const std::string& emitter,
                                  int index_bits, std::uint32_t warp_size) {
  detail::StubRequest request;
  request.emitter = emitter;
  request.pattern = stage;
  request.reduce_dimension = c.dimension;
  request.mode = Mode::spread;
  request.rank = c.rank;
  request.index_bits = index_bits;
  request.kernel = &c.kernel;
  request.bindings = c.bindings;
  request.max_threads_per_group = 1024;
  request.warp_size = warp_size;
  request.specialized_values = c.specialized_values;
  return request;
}

inline std::vector<ReduceStubCase> reduce_stub_cases() {
  constexpr Binding I = Binding::index, S = Binding::scalar, P = Binding::projection,
                    B = Binding::broadcast;
  std::vector<ReduceStubCase> cases;
  const auto add = [&](std::string name, KernelSource kernel, std::vector<Binding> bindings,
                       int rank, int dimension = -1) -> ReduceStubCase& {
    ReduceStubCase c;
    c.name = std::move(name);
    c.kernel = std::move(kernel);
    c.bindings = std::move(bindings);
    c.rank = rank;
    c.reduce_dimension = dimension;
    cases.push_back(std::move(c));
    return cases.back();
  };
  // Every combiner over every type that takes it: each element's value is its x.
  for (const ElementType type : reduce_element_types())
    for (const Combiner combiner : combiners_of(type)) {
      const std::string name = std::string(name_of(combiner)) + "_" + type_word(type);
      add(name,
          {"reduce_" + name,
           {Param{ParamKind::field, "x", type, 0, Access::read_only},
            result_param("v", type, combiner)},
           "v = x;"},
          {P, B}, 1)
          .another_combiner = combiner != combiners_of(type).front();
    }
  // The whole domain of rank 2 and 4.
  const KernelSource whole{
      "whole_sum", {in<double>("x"), result<double>("v", Combiner::sum)}, "v = x;"};
  add("whole_r2", whole, {P, B}, 2);
  add("whole_r4", whole, {P, B}, 4);
  // One dimension of a rank-2 domain (first, last) and of a rank-3 one (first, middle,
  // last): the result has one dimension fewer.
  const KernelSource along2{
      "along_sum_r2", {in<double>("x"), result<double>("v", Combiner::sum, 1)}, "v = x;"};
  add("along_r2_d0", along2, {P, B}, 2, 0);
  add("along_r2_d1", along2, {P, B}, 2, 1);
  const KernelSource along3{"along_max_r3",
                            {in<std::int32_t>("x"), result<std::int32_t>("v", Combiner::max, 2)},
                            "v = x;"};
  add("along_r3_d0", along3, {P, B}, 3, 0);
  add("along_r3_d1", along3, {P, B}, 3, 1);
  add("along_r3_d2", along3, {P, B}, 3, 2);
  // The index token, whole and along a dimension.
  add("index_whole",
      {"index_sum",
       {index("i"), result<std::int64_t>("v", Combiner::sum)},
       "v = stubjit::i64(i[0]) * 1000 + i[1];"},
      {I, B}, 2);
  add("index_along",
      {"index_min",
       {index("i"), result<std::int64_t>("v", Combiner::min, 2)},
       "v = stubjit::i64(i[0]) - i[1] * 7 + i[2];"},
      {I, B}, 3, 1);
  // A projected field, a broadcast one and a scalar together.
  add("projected_and_broadcast",
      {"weighted_sum",
       {in<float>("x"), in<float>("w", 1), scalar<std::int64_t>("n"),
        result<float>("v", Combiner::sum)},
       "v = x * w(n % 4);"},
      {P, B, S, B}, 2);
  add("projected_and_broadcast_along",
      {"weighted_rows",
       {in<double>("x"), in<double>("w", 1), result<double>("v", Combiner::sum, 1)},
       "v = x * w(1);"},
      {P, B, B}, 2, 1);
  // Custom combiners: over doubles (the whole domain) and over int64 along a dimension.
  add("custom_whole",
      {"custom_max", {in<double>("x"), result<double>("v", "a > b ? a : b", "-1e300")}, "v = x;"},
      {P, B}, 1);
  add("custom_along",
      {"custom_product_plus",
       {in<std::int64_t>("x"), result<std::int64_t>("v", "a + b + a * b", "0", 1)},
       "v = x;"},
      {P, B}, 2, 0);
  // A specialized scalar, compiled in.
  add("specialized",
      {"scaled_max",
       {specialized<std::int32_t>("k"), in<std::int32_t>("x"),
        result<std::int32_t>("v", Combiner::max)},
       "v = x * k;"},
      {S, P, B}, 1)
      .specialized_values = {3};
  return cases;
}

// The request a CUDA or HIP runtime makes for the case's stub: spread numbering,
// launch bounds of the device's most threads per group (1024 on every target tested),
// the device's warp width.
inline detail::StubRequest reduce_request(const ReduceStubCase& c, const std::string& emitter,
                                          int index_bits, std::uint32_t warp_size,
                                          std::uint32_t launch_bounds = 1024) {
  detail::StubRequest request;
  request.emitter = emitter;
  request.pattern = detail::Pattern::reduce;
  request.reduce_dimension = c.reduce_dimension;
  request.mode = Mode::spread;
  request.rank = c.rank;
  request.index_bits = index_bits;
  request.kernel = &c.kernel;
  request.bindings = c.bindings;
  request.max_threads_per_group = launch_bounds;
  request.warp_size = warp_size;
  request.specialized_values = c.specialized_values;
  return request;
}

// The entry of the case's stub (stub_request.hpp: entry_name).
inline std::string reduce_entry(const ReduceStubCase& c) {
  return "stubjit_" + c.kernel.name + "_reduce_r" + std::to_string(c.rank);
}

}  // namespace stubjit::test::reduce
