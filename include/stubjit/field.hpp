// Fields: N-dimensional arrays in a backend's device memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/export.hpp"
#include "stubjit/types.hpp"

namespace stubjit {

class Field;
class Stream;

enum class Layout : std::uint8_t { row_major, column_major };

namespace detail {
class RuntimeState;
// Runtime::allocate for code that holds the runtime's state, not a Runtime
// (Kernel::reduce's result field).
Field allocate_field(std::shared_ptr<RuntimeState> runtime, ElementType type,
                     const std::vector<std::int64_t>& extents, Layout layout);
}  // namespace detail

// A field is a pointer into a backend's memory plus element type, extents and
// strides (in elements). Copying a Field copies the handle, not the data; the
// memory of an allocated field lives until its last handle is gone. A wrapped
// field does not own its memory.
class STUBJIT_API Field {
 public:
  Field() = default;  // the null field: binds to nothing

  explicit operator bool() const noexcept { return data_ != nullptr; }
  ElementType type() const noexcept { return type_; }
  int rank() const noexcept { return static_cast<int>(extents_.size()); }
  std::int64_t extent(int d) const { return extents_.at(static_cast<std::size_t>(d)); }
  std::int64_t stride(int d) const { return strides_.at(static_cast<std::size_t>(d)); }
  const std::vector<std::int64_t>& extents() const noexcept { return extents_; }
  const std::vector<std::int64_t>& strides() const noexcept { return strides_; }
  std::int64_t size() const noexcept { return size_; }  // number of elements
  bool writable() const noexcept { return writable_; }
  // Device address of element (0, ..., 0).
  void* data() const noexcept { return data_; }
  // True when the elements occupy exactly size() consecutive slots (any order).
  bool dense() const noexcept;

  // Copies in storage order: the host buffer holds the elements exactly as the
  // field lays them out. The field must be dense, and `count` must equal size().
  template <class T>
  void copy_from(const T* host, std::size_t count) {
    check_host_type(element_type_v<T>, count);
    copy_from_bytes(host, count * sizeof(T));
  }
  template <class T>
  void copy_from(const std::vector<T>& host) {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits: no data()
      const std::unique_ptr<bool[]> bytes = std::make_unique<bool[]>(host.size());
      std::copy(host.begin(), host.end(), bytes.get());
      copy_from(bytes.get(), host.size());
    } else {
      copy_from(host.data(), host.size());
    }
  }
  template <class T>
  void copy_to(T* host, std::size_t count) const {
    check_host_type(element_type_v<T>, count);
    copy_to_bytes(host, count * sizeof(T));
  }
  template <class T>
  std::vector<T> to_vector() const {
    const auto count = static_cast<std::size_t>(size_);
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits: no data()
      const std::unique_ptr<bool[]> bytes = std::make_unique<bool[]>(count);
      copy_to(bytes.get(), count);
      return std::vector<bool>(bytes.get(), bytes.get() + count);
    } else {
      std::vector<T> host(count);
      copy_to(host.data(), host.size());
      return host;
    }
  }

  void copy_from_bytes(const void* host, std::size_t bytes);
  void copy_to_bytes(void* host, std::size_t bytes) const;

  // The same copies queued on `stream` (of this field's runtime), in order with the
  // launches on it: they may return before the copy is done, so `host` must stay
  // valid (and, for copy_from_async, unchanged) until stream.synchronize(). With
  // pageable host memory the GPU backends may still copy synchronously; the CPU
  // backend always does. FieldError for a null stream or one of another runtime.
  template <class T>
  void copy_from_async(const T* host, std::size_t count, const Stream& stream) {
    check_host_type(element_type_v<T>, count);
    copy_from_bytes_async(host, count * sizeof(T), stream);
  }
  template <class T>
  void copy_to_async(T* host, std::size_t count, const Stream& stream) const {
    check_host_type(element_type_v<T>, count);
    copy_to_bytes_async(host, count * sizeof(T), stream);
  }
  void copy_from_bytes_async(const void* host, std::size_t bytes, const Stream& stream);
  void copy_to_bytes_async(void* host, std::size_t bytes, const Stream& stream) const;

  // Views: a Field over the same memory and owner with other extents, strides and
  // offset. Nothing is copied or allocated on the device; a view of an allocated field
  // keeps its memory alive, as any handle does, and is writable where the field is.
  // Dimensions are numbered from 0; FieldError names a dimension or an index outside
  // the field. docs/views.md has the rules and examples.
  //
  // Dimensions d1 and d2 swapped: element (i, j) of a.transpose(0, 1) is a's (j, i).
  Field transpose(int d1, int d2) const;
  // Dimension k of the view is dimension order[k] of this field (a permutation of
  // 0..rank()-1).
  Field permute(const std::vector<int>& order) const;
  // A dummy dimension of `extent` inserted before dimension `dim` (0..rank()), with
  // stride 0: every index along it is the same element. Such a view may be bound only
  // read-only (ArgumentError otherwise): writes through it would race.
  Field spread(int dim, std::int64_t extent) const;
  // Fortran's a(first:last:step) along `dim`, 0-based and inclusive: the elements
  // first, first + step, ... up to last; a step running away from last gives extent 0.
  // A negative step walks backwards.
  Field section(int dim, std::int64_t first, std::int64_t last, std::int64_t step = 1) const;
  // The elements at index i of `dim`, that dimension dropped (rank() - 1).
  Field slice(int dim, std::int64_t i) const;

  // The runtime whose backend owns the memory (identity only).
  const detail::RuntimeState* owner() const noexcept { return runtime_.get(); }

 private:
  friend class Runtime;
  friend Field detail::allocate_field(std::shared_ptr<detail::RuntimeState> runtime,
                                      ElementType type, const std::vector<std::int64_t>& extents,
                                      Layout layout);
  void check_host_type(ElementType host_type, std::size_t count) const;
  // Everything a copy of `bytes` needs: a dense field of that size (and writable
  // when `into`).
  void check_copy(std::size_t bytes, bool into) const;
  void check_stream(const Stream& stream) const;
  // Throws FieldError naming `what` unless 0 <= d < limit.
  void check_dimension(const char* what, int d, int limit) const;
  // This field with other extents and strides, `offset` elements further on.
  Field view(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides,
             std::int64_t offset) const;

  std::shared_ptr<detail::RuntimeState> runtime_;
  std::shared_ptr<void> memory_;  // empty for wrapped memory
  void* data_ = nullptr;
  ElementType type_ = ElementType::f32;
  std::vector<std::int64_t> extents_;
  std::vector<std::int64_t> strides_;
  std::int64_t size_ = 0;
  bool writable_ = false;
};

}  // namespace stubjit
