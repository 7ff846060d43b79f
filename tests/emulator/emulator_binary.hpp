// What an emulated stub's shared object exports for the emulator's device: the
// toolchain appends these definitions, the device looks them up.
#pragma once

namespace stubjit::test::emulator {

inline constexpr const char* emulator_binary_format = "emulated-gpu-shared-object";
// stubjit_emulator::ThreadEntry: one GPU thread.
inline constexpr const char* thread_entry_symbol = "stubjit_emulator_thread";
// unsigned: STUBJIT_MAX_GROUP_THREADS (the launch bounds), 0 without.
inline constexpr const char* max_threads_symbol = "stubjit_emulator_max_group_threads";
// unsigned: STUBJIT_WARP_SIZE (the warp width the plan assumed), 0 without.
inline constexpr const char* warp_size_symbol = "stubjit_emulator_warp_size";
// int: 1 when the stub uses barriers or warp intrinsics (its threads run as fibers).
inline constexpr const char* cooperative_symbol = "stubjit_emulator_cooperative";

}  // namespace stubjit::test::emulator
