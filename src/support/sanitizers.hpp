// Whether the process runs under a sanitizer whose runtime refuses something a backend
// needs (AddressSanitizer refuses dlopen with RTLD_DEEPBIND, which the HIP backend needs
// to keep comgr's LLVM apart from stubjit's). Asked of the process at run time, so it
// also holds when only the application, not stubjit, was built with the sanitizer.
#pragma once

#include <dlfcn.h>

namespace stubjit::detail {

inline bool address_sanitizer_loaded() {
  static const bool loaded = ::dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
  return loaded;
}

}  // namespace stubjit::detail
