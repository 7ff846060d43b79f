// What the host emulator (emulator_device.cpp) hands each emulated GPU thread: its
// coordinates, and the block-level services (barrier, warp exchange) that need the
// other threads of its block. Shared by the emulator's device, compiled into the test
// program, and by gpu_shim.h, compiled into every emulated stub; so it uses no
// standard headers (the stub's compile has the prelude's types only).
#ifndef STUBJIT_EMULATOR_CONTEXT_H
#define STUBJIT_EMULATOR_CONTEXT_H

namespace stubjit_emulator {

struct Dim3 {
  unsigned x, y, z;
};

struct Context {
  Dim3 thread;     // threadIdx
  Dim3 block;      // blockIdx
  Dim3 block_dim;  // blockDim
  Dim3 grid_dim;   // gridDim
  unsigned warp_size;
  unsigned lane;    // this thread's lane in its warp
  unsigned linear;  // this thread's position in its block, x fastest
  unsigned
      warp_lanes;  // lanes of this thread's warp that exist (the last warp of a block may be short)
  // Which parts of a one-pass scan publish their inclusive prefix (gpu_shim.h,
  // STUBJIT_SCAN_PUBLISHES_PREFIX): every this many of a segment, from its first; 0: none.
  unsigned scan_prefix_period;
  // Counts the parts that published it (the device's counter; __atomic builtins).
  unsigned long long* scan_prefixes_published;
  void* block_state;  // the device's per-block state, for the services below
  // The block's group-shared memory (LaunchParams::shared_bytes of it, 16-byte aligned;
  // filled with a pattern, as a GPU's holds whatever was there before).
  void* group_memory;
  // Waits until every thread of the block has called it (__syncthreads).
  void (*sync_block)(void* block_state);
  // Waits until every lane of the caller's warp has called it (__syncwarp).
  void (*sync_warp)(void* block_state, unsigned linear);
  // Every lane of the caller's warp publishes `value`; returns what lane `source`
  // (an index in the warp) published. All lanes of the warp must call it together.
  unsigned long long (*exchange)(void* block_state, unsigned linear, unsigned long long value,
                                 unsigned source);
  // Called by the entry with the address of the stub's `current` (gpu_shim.h): the
  // block's threads take turns on one host thread (block_runner.cpp), and each turn
  // sets it to the thread that resumes. The address escapes, so the stub reads
  // `current` again after each service call instead of keeping a copy.
  void (*attach)(void* block_state, const Context** current);
};

// The entry an emulated stub exports (the emulator's toolchain appends it): runs one
// GPU thread of the stub's entry with `params`, a driver's kernel-parameter array (one
// pointer per parameter of the entry, each read as the parameter's type, as
// cuLaunchKernel reads kernelParams).
typedef void (*ThreadEntry)(void* const* params, const Context* context);

}  // namespace stubjit_emulator

#endif  // STUBJIT_EMULATOR_CONTEXT_H
