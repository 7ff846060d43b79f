// Runs the threads of one emulated GPU block on the calling thread: one after the
// other, or as fibers that take turns at each barrier for a stub that uses barriers or
// warp intrinsics (the block services of emulator_context.h are backed here).
#pragma once

#include <cstdint>

#include "emulator/emulator_context.h"
#include "stubjit/launch.h"

namespace stubjit::test::emulator {

struct BlockLaunch {
  stubjit_emulator::ThreadEntry entry;
  void* const* params;               // the kernel-parameter array (backends/kernel_params.hpp)
  const LaunchParams* lp;            // the dispatch's (for its group-shared bytes)
  stubjit_emulator::Dim3 block;      // blockIdx
  stubjit_emulator::Dim3 block_dim;  // threads per block
  stubjit_emulator::Dim3 grid_dim;
  unsigned warp_size;
  unsigned scan_prefix_period;                  // Context::scan_prefix_period
  unsigned long long* scan_prefixes_published;  // Context::scan_prefixes_published
  bool cooperative;
};

void run_block(const BlockLaunch& launch);

}  // namespace stubjit::test::emulator
