// libamd_comgr, the code object manager hipRTC compiles through. stubjit touches it
// for two reasons only: to load it in its own symbol scope before hipRTC does, and to
// ask it whether it knows a target before hipRTC is handed one.
#pragma once

#include <string>

namespace stubjit::detail::hip {

// comgr carries its own clang and links its own LLVM. stubjit's CPU backend brings
// libclang-cpp (LLVM 14) into the global symbol scope, and that library exports
// unversioned instances of LLVM templates (pass models, vtables): comgr, loaded by the
// HIP library with a plain dlopen, binds to those and crashes inside the first hipRTC
// compile (seen with Debian's ROCm 5.2 and LLVM 14). Loading comgr first with
// RTLD_DEEPBIND makes its own definitions win; the HIP library's later dlopen of the
// same soname gets this instance. Loads exactly one comgr, the chosen ROCm root's.
// Idempotent; does nothing where comgr is not found.
void load_comgr_isolated();

// The comgr loaded (a path or soname from the chosen ROCm root, rocm_root.hpp), or ""
// when none was (none found, or the process runs under a sanitizer that refuses it).
std::string loaded_comgr();

// "" when the comgr loaded accepts `target_id` (or none can be asked); otherwise why
// not, with the processors it does know. ROCm 5.2's hipRTC aborts the process when
// given a target its comgr does not know (gfx942, gfx1100, gfx1030:xnack-), so the
// compiler asks first.
std::string comgr_target_problem(const std::string& target_id);

}  // namespace stubjit::detail::hip
