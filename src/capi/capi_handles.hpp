// The C API's handles, the thread's last error and the guard every entry point runs
// its C++ body in (src/capi/*.cpp): no exception crosses into C.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "stubjit/runtime.hpp"
#include "stubjit/stubjit.h"

struct stubjit_runtime_s {
  explicit stubjit_runtime_s(stubjit::Runtime made) : runtime(std::move(made)) {}
  stubjit::Runtime runtime;
  // What the const char* getters return: kept with the handle so that they live as
  // long as it. The cache directory is asked once (it opens the cache), by the first
  // caller of any thread.
  std::string backend, target, compiler, cache_dir;
  std::once_flag cache_dir_once;
};
struct stubjit_kernel_s {
  stubjit::Kernel kernel;
};
struct stubjit_field_s {
  stubjit::Field field;
};
struct stubjit_stream_s {
  stubjit::Stream stream;
};
struct stubjit_binary_s {
  stubjit::StubBinary binary;
};
struct stubjit_domain_s {
  stubjit::Domain domain;
};

namespace stubjit::capi {

// A misuse of the C API itself (a NULL handle, an enum value out of range): reported
// as STUBJIT_INVALID_ARGUMENT.
struct InvalidArgument {
  std::string message;
};

// Records the exception in flight as this thread's last error; returns its status.
stubjit_status record_current_exception() noexcept;
stubjit_status record_invalid(const std::string& message) noexcept;

// Runs `body` (which returns nothing or throws) and turns what it throws into a status.
template <class Body>
stubjit_status guarded(Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return STUBJIT_OK;
  } catch (...) {
    return record_current_exception();
  }
}

template <class T>
T& require(T* handle, const char* what) {
  if (handle == nullptr) throw InvalidArgument{std::string(what) + " is NULL"};
  return *handle;
}

template <class T>
void require_out(T* out, const char* what) {
  if (out == nullptr) throw InvalidArgument{std::string("the output pointer ") + what + " is NULL"};
}

// Takes back a handle the caller gave up (NULL is nothing): the _destroy functions.
template <class Handle>
void release(Handle* handle) noexcept {
  std::unique_ptr<Handle> owned(handle);
}

// Whether the caller's build of a struct that begins with struct_size has `member`: a
// program compiled with an older header passes a shorter struct.
template <class Struct, class Member>
bool has_member(const Struct& s, const Member& member) {
  const auto end =
      reinterpret_cast<const char*>(&member) + sizeof(Member) - reinterpret_cast<const char*>(&s);
  return s.struct_size >= static_cast<std::size_t>(end);
}

// An _init_sized function's write: the defaults of the first `size` bytes of *out (at
// most the library's struct), struct_size set to that, so that a caller built with an
// older, shorter struct is not written past its end. Nothing for a NULL out or a size
// that cannot hold struct_size.
template <class Struct>
void init_prefix(Struct* out, std::size_t size, Struct defaults) {
  if (out == nullptr || size < sizeof(std::size_t)) return;
  const std::size_t written = std::min(size, sizeof(Struct));
  defaults.struct_size = written;
  std::memcpy(static_cast<void*>(out), &defaults, written);
}

// A C string that may be NULL, as a std::string ("" for NULL).
inline std::string text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

// The C enums, checked and converted.
ElementType element_type(stubjit_type type);
stubjit_type c_type(ElementType type);
std::optional<Mode> forced_mode(stubjit_mode mode);
stubjit_mode c_mode(Mode mode);
Layout layout(stubjit_layout layout);
Order order(stubjit_order order);

}  // namespace stubjit::capi
