// The group and tiled stubs the NVRTC and hipRTC compile tests build (nvrtc_group_
// compile_test.cpp, hip/group_compile_test.cpp): one kernel per construct of
// cuda/group_kernels.hpp with the bindings the GPU suites launch it with, the stub's
// pattern (group, or tiled with its tile), its rank, and what its code must show once
// compiled (a group barrier, a warp barrier, dynamic group-shared memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/stub_request.hpp"
#include "cuda/group_kernels.hpp"

namespace stubjit::test::groups {

struct GroupStubCase {
  std::string name;  // the test's name for it
  KernelSource kernel;
  std::vector<Binding> bindings;
  int rank = 1;
  Tile tile{};  // rank 0: a group kernel
  std::vector<std::uint64_t> specialized_values{};
  // What the compiled code must hold: __syncthreads (fence), __syncwarp
  // (vector_fence), a dynamic group-shared array (shared<T>).
  bool group_barrier = false;
  bool warp_barrier = false;
  bool group_memory = false;
};

inline std::vector<GroupStubCase> group_stub_cases() {
  constexpr Binding I = Binding::index, S = Binding::scalar, P = Binding::projection,
                    B = Binding::broadcast;
  std::vector<GroupStubCase> cases;
  const auto add = [&](std::string name, KernelSource kernel, std::vector<Binding> bindings,
                       int rank) -> GroupStubCase& {
    GroupStubCase c;
    c.name = std::move(name);
    c.kernel = std::move(kernel);
    c.bindings = std::move(bindings);
    c.rank = rank;
    cases.push_back(std::move(c));
    return cases.back();
  };
  add("inner1", inner_kernel(), {I, S, S, B}, 1);
  add("inner2", inner2_kernel(), {I, I, S, S, B}, 1);
  add("inner3", inner3_kernel(), {I, S, S, S, B}, 2);
  add("single", single_kernel(), {I, P}, 1);
  add("fence", fence_kernel(), {I, S, P, P}, 2).group_barrier = true;
  {
    GroupStubCase& c = add("worker_vector", gang_worker_vector_kernel(), {I, S, S, B, B, B, I}, 1);
    c.warp_barrier = true;
    c.group_memory = true;
  }
  {
    GroupStubCase& c = add("shared_scalar_extent", reverse_kernel(), {I, I, S, P, P, P, I}, 1);
    c.group_barrier = true;
    c.group_memory = true;
  }
  {
    GroupStubCase& c = add("two_shared", two_shared_kernel(), {I, S, S, P, P, I, I}, 1);
    c.group_barrier = true;
    c.group_memory = true;
  }
  add("index_token", index_token_kernel(), {I, I, P}, 3);
  {
    GroupStubCase& c = add("specialized", specialized_kernel(), {I, S, P, P, I}, 1);
    c.specialized_values = {64};
    c.group_barrier = true;
    c.group_memory = true;
  }
  add("yakl_column", column_kernel(), {I, S, P, P, P, P}, 2).group_barrier = true;
  {
    GroupStubCase& c = add("shared_literal_extents", transpose_kernel(), {I, I, S, S, B, B, I}, 2);
    c.group_barrier = true;
    c.group_memory = true;
  }
  add("tiled_rank2", mark_tiles_kernel(), {I, I, I, P, P, P}, 2).tile = Tile{8, 32};
  add("tiled_rank2_over_rank3", mark_tiles_kernel(), {I, I, I, P, P, P}, 3).tile = Tile{8, 32};
  add("tiled_rank1", mark_tiles_kernel(), {I, I, I, P, P, P}, 2).tile = Tile{6};
  add("tiled_rank4", mark4_kernel(), {I, P, P}, 4).tile = Tile{2, 3, 2, 3};
  return cases;
}

// The request a CUDA or HIP runtime makes for the case's stub: spread numbering,
// launch bounds of the device's most threads per group (1024 on every target tested),
// the device's warp width.
inline detail::StubRequest group_request(const GroupStubCase& c, const std::string& emitter,
                                         int index_bits, std::uint32_t warp_size,
                                         std::uint32_t launch_bounds = 1024) {
  detail::StubRequest request;
  request.emitter = emitter;
  request.pattern = c.tile.rank ? detail::Pattern::tiled : detail::Pattern::group;
  request.tile_rank = c.tile.rank;
  request.tile = c.tile.extents;
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
inline std::string group_entry(const GroupStubCase& c) {
  return "stubjit_" + c.kernel.name + (c.tile.rank ? "_tiled_r" : "_group_r") +
         std::to_string(c.rank);
}

// The stub positions its groups in the index width asked for: each group's (or tile's)
// position along dimension 0 is a local of that type.
inline std::string group_position_local(const GroupStubCase& c, int index_bits) {
  return std::string("const ") + (index_bits == 32 ? "stubjit::i32" : "stubjit::i64") +
         (c.tile.rank ? " stubjit_t0 = " : " stubjit_p0 = ");
}

}  // namespace stubjit::test::groups
