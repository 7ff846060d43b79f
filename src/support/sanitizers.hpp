// Whether the process runs under a sanitizer whose runtime refuses something a backend
// needs: AddressSanitizer, ThreadSanitizer and MemorySanitizer abort a dlopen with
// RTLD_DEEPBIND, which the HIP backend needs to keep comgr's LLVM apart from
// stubjit's. Asked of the process at run time, so it also holds when only the
// application, not stubjit, was built with the sanitizer.
#pragma once

#include <dlfcn.h>

namespace stubjit::detail {

// The name of the loaded sanitizer that refuses RTLD_DEEPBIND, or nullptr.
inline const char* sanitizer_refusing_deepbind() {
  static const char* const name = [] {
    if (::dlsym(RTLD_DEFAULT, "__asan_init") != nullptr) return "AddressSanitizer";
    if (::dlsym(RTLD_DEFAULT, "__tsan_init") != nullptr) return "ThreadSanitizer";
    if (::dlsym(RTLD_DEFAULT, "__msan_init") != nullptr) return "MemorySanitizer";
    return static_cast<const char*>(nullptr);
  }();
  return name;
}

}  // namespace stubjit::detail
