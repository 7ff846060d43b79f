// The fixed flags of the CPU backend's compiler and linker, in one place: the plugin
// passes them, and the core library names them in the compiler id that every CPU
// cache key holds, so a change of flags is a change of keys.
#pragma once

namespace stubjit::detail {

// Clang, before the runtime's own compiler options.
inline constexpr const char* cpu_compile_flags[] = {
    "-c",
    "-x",
    "c++",
    "-std=c++17",
    "-O3",
    "-march=native",
    "-fPIC",
    "-fno-exceptions",
    "-fno-math-errno",
#if defined(__x86_64__)
    // LLVM 14 takes 512-bit vectors on
    // AVX-512 hosts it does not know;
    // the shape matrix's saxpy cases
    // ran 4 to 9% slower (geometric
    // mean) with them than with 256
    // (bench/results/shapes.md).
    "-mprefer-vector-width=256",
#endif
};

// lld: a shared object whose own references bind to its own definitions
// (-Bsymbolic: an application's function of the same name never replaces a kernel's),
// every symbol bound at load (-z now), read-only data in the code's segment
// (--no-rosegment: one mapping less per stub).
inline constexpr const char* cpu_link_flags[] = {"-shared", "-Bsymbolic",     "--hash-style=gnu",
                                                 "-z",      "noexecstack",    "-z",
                                                 "now",     "--no-rosegment", "--threads=1"};

}  // namespace stubjit::detail
