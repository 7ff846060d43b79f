# Finds what stubjit builds with. Everything comes from the system (Debian packages);
# nothing is downloaded or vendored. GPU toolkits are not build dependencies: the
# CUDA and HIP backends load their libraries at run time.

# LLVM, Clang and lld: only the CPU backend's compiler plugin uses them. Without the CPU
# backend (-DSTUBJIT_CPU_BACKEND=OFF, e.g. scripts/gpu-check.sh on a GPU machine without
# a package registry) none is needed.
if(STUBJIT_CPU_BACKEND)
  # LLVM, Clang and lld 14..18. The newest version with all three CMake packages installed wins,
  # unless STUBJIT_LLVM_VERSION names one.
  set(STUBJIT_LLVM_VERSION "" CACHE STRING "LLVM/Clang major version to use (14-18); empty: newest found")
  if(STUBJIT_LLVM_VERSION)
    set(_stubjit_llvm_candidates ${STUBJIT_LLVM_VERSION})
  else()
    set(_stubjit_llvm_candidates 18 17 16 15 14)
  endif()
  foreach(_v IN LISTS _stubjit_llvm_candidates)
    if(EXISTS /usr/lib/llvm-${_v}/lib/cmake/llvm/LLVMConfig.cmake
       AND EXISTS /usr/lib/llvm-${_v}/lib/cmake/clang/ClangConfig.cmake
       AND EXISTS /usr/lib/llvm-${_v}/lib/cmake/lld/LLDConfig.cmake)
      set(LLVM_DIR /usr/lib/llvm-${_v}/lib/cmake/llvm CACHE PATH "")
      set(Clang_DIR /usr/lib/llvm-${_v}/lib/cmake/clang CACHE PATH "")
      set(LLD_DIR /usr/lib/llvm-${_v}/lib/cmake/lld CACHE PATH "")
      break()
    endif()
  endforeach()
  find_package(LLVM CONFIG REQUIRED)
  find_package(Clang CONFIG REQUIRED)
  # lld as a library (Debian liblld-<v>-dev): links the CPU compiler plugin's objects into
  # shared objects the core library loads without LLVM.
  find_package(ZLIB REQUIRED)  # lldELF links it
  find_package(LLD CONFIG REQUIRED)
  if(LLVM_VERSION_MAJOR LESS 14 OR LLVM_VERSION_MAJOR GREATER 18)
    message(FATAL_ERROR "stubjit needs LLVM/Clang 14 to 18; found ${LLVM_PACKAGE_VERSION}")
  endif()
  message(STATUS "stubjit: LLVM/Clang ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
  separate_arguments(STUBJIT_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  # The in-process Clang driver locates its resource directory (builtin headers) from
  # the path of the clang executable it pretends to be.
  set(STUBJIT_CLANG_DRIVER_PATH "${LLVM_TOOLS_BINARY_DIR}/clang")
endif()

find_package(Threads REQUIRED)
find_package(spdlog CONFIG REQUIRED)
# spdlog and fmt header-only, xxHash inlined: three shared libraries fewer for the
# dynamic loader to map and relocate when a process starts (about 1 ms here,
# bench/results/startup.md), which is most of what a warm start costs.
# Every file that logs sees fmt's core header only (stubjit_fmt_core); spdlog and fmt's
# implementation are compiled in src/support/log.cpp alone (STUBJIT_SPDLOG_DEFINITIONS),
# which formats the messages (support/log.hpp says why).
add_library(stubjit_fmt_core INTERFACE)
get_target_property(_stubjit_fmt_include fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_stubjit_spdlog_include spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(stubjit_fmt_core SYSTEM INTERFACE ${_stubjit_fmt_include}
                                                              ${_stubjit_spdlog_include})
target_link_libraries(stubjit_fmt_core INTERFACE Threads::Threads)
set(STUBJIT_SPDLOG_DEFINITIONS FMT_HEADER_ONLY=1 SPDLOG_FMT_EXTERNAL)
find_package(OpenMP REQUIRED COMPONENTS CXX)
# xxHash is used inline (headers only): its pkg-config file where pkg-config is there,
# else the header itself (a GPU machine's unpacked bundle has no pkg-config).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(xxhash QUIET libxxhash)
endif()
if(NOT xxhash_FOUND)
  find_path(xxhash_INCLUDE_DIRS xxhash.h REQUIRED)
endif()
add_library(stubjit_xxhash_inline INTERFACE)
target_include_directories(stubjit_xxhash_inline SYSTEM INTERFACE ${xxhash_INCLUDE_DIRS})
target_compile_definitions(stubjit_xxhash_inline INTERFACE XXH_INLINE_ALL)
