#include "stubjit/field.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "runtime/runtime_state.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/runtime.hpp"
#include "support/enums.hpp"

namespace stubjit {
namespace {

using wide = __int128;
constexpr wide int64_max = std::numeric_limits<std::int64_t>::max();

void check_shape(const std::vector<std::int64_t>& extents) {
  if (extents.size() > static_cast<std::size_t>(max_field_rank)) {
    throw FieldError("a field has rank 0.." + std::to_string(max_field_rank) + ", got " +
                     std::to_string(extents.size()));
  }
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] < 0) {
      throw FieldError("field extent " + std::to_string(d) + " is negative (" +
                       std::to_string(extents[d]) + ")");
    }
  }
}

// Number of elements; FieldError when the field's bytes would not fit in int64.
std::int64_t checked_size(const std::vector<std::int64_t>& extents, ElementType type) {
  wide size = 1;
  for (std::int64_t extent : extents) {
    size *= extent;
    if (size * static_cast<wide>(size_of(type)) > int64_max) {
      throw FieldError("field extents overflow: more than 2^63-1 bytes");
    }
  }
  return static_cast<std::int64_t>(size);
}

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& extents, Layout layout) {
  std::vector<std::int64_t> strides(extents.size());
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    const std::size_t d = layout == Layout::row_major ? extents.size() - 1 - k : k;
    strides[d] = stride;
    stride *= std::max<std::int64_t>(extents[d], 1);
  }
  return strides;
}

}  // namespace

bool Field::dense() const noexcept {
  if (size_ == 0) return true;
  std::vector<std::size_t> order(extents_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return strides_[a] < strides_[b]; });
  std::int64_t expected = 1;
  for (std::size_t d : order) {
    if (extents_[d] == 1) continue;  // a unit extent's stride is irrelevant
    if (strides_[d] != expected) return false;
    expected *= extents_[d];
  }
  return true;
}

void Field::check_host_type(ElementType host_type, std::size_t count) const {
  if (!*this) throw FieldError("copy with a null field");
  if (host_type != type_) {
    throw FieldError(std::string("copy between a field of ") + name_of(type_) + " and host " +
                     name_of(host_type) + " elements");
  }
  if (count != static_cast<std::size_t>(size_)) {
    throw FieldError("copy of " + std::to_string(count) + " elements; the field has " +
                     std::to_string(size_));
  }
}

void Field::check_copy(std::size_t bytes, bool into) const {
  if (!*this) throw FieldError(into ? "copy into a null field" : "copy from a null field");
  if (into && !writable_) throw FieldError("copy into a read-only field");
  if (!dense()) throw FieldError("copies need a dense field (strides without gaps)");
  if (bytes != static_cast<std::size_t>(size_) * size_of(type_)) {
    throw FieldError("copy of " + std::to_string(bytes) + " bytes " + (into ? "into" : "from") +
                     " a field of " +
                     std::to_string(static_cast<std::size_t>(size_) * size_of(type_)) + " bytes");
  }
}

void Field::check_stream(const Stream& stream) const {
  if (!stream) throw FieldError("asynchronous copy on a null stream");
  if (stream.owner() != runtime_.get())
    throw FieldError("asynchronous copy on a stream of another runtime than the field's");
}

void Field::copy_from_bytes(const void* host, std::size_t bytes) {
  check_copy(bytes, true);
  if (bytes) {
    runtime_->device_for("copy to the device")
        .copy_to_device(data_, host, bytes, runtime_->default_stream.get());
  }
}

void Field::copy_to_bytes(void* host, std::size_t bytes) const {
  check_copy(bytes, false);
  if (bytes) {
    runtime_->device_for("copy from the device")
        .copy_to_host(host, data_, bytes, runtime_->default_stream.get());
  }
}

void Field::copy_from_bytes_async(const void* host, std::size_t bytes, const Stream& stream) {
  check_copy(bytes, true);
  check_stream(stream);
  if (bytes) {
    runtime_->device_for("copy to the device")
        .copy_to_device_async(data_, host, bytes, stream.state());
  }
}

void Field::copy_to_bytes_async(void* host, std::size_t bytes, const Stream& stream) const {
  check_copy(bytes, false);
  check_stream(stream);
  if (bytes) {
    runtime_->device_for("copy from the device")
        .copy_to_host_async(host, data_, bytes, stream.state());
  }
}

Field Runtime::allocate(ElementType type, const std::vector<std::int64_t>& extents, Layout layout) {
  return detail::allocate_field(state_, type, extents, layout);
}

namespace detail {

Field allocate_field(std::shared_ptr<RuntimeState> runtime, ElementType type,
                     const std::vector<std::int64_t>& extents, Layout layout) {
  if (!is_valid(type))
    throw FieldError("allocate: element type " + number_of(type) + " is no ElementType");
  if (!is_valid(layout))
    throw FieldError("allocate: layout " + number_of(layout) + " is no Layout");
  check_shape(extents);
  const std::int64_t size = checked_size(extents, type);
  const std::size_t bytes = static_cast<std::size_t>(size) * size_of(type);
  Field field;
  Device& device = runtime->device_for("allocate device memory");
  field.memory_ = std::shared_ptr<void>(device.allocate(bytes),
                                        [runtime](void* p) { runtime->device->deallocate(p); });
  field.runtime_ = runtime;
  field.data_ = field.memory_.get();
  field.type_ = type;
  field.extents_ = extents;
  field.strides_ = dense_strides(extents, layout);
  field.size_ = size;
  field.writable_ = true;
  return field;
}

}  // namespace detail

Field Runtime::wrap_memory(void* data, ElementType type, const std::vector<std::int64_t>& extents,
                           const std::vector<std::int64_t>& strides, bool writable) {
  if (!detail::is_valid(type))
    throw FieldError("wrap: element type " + detail::number_of(type) + " is no ElementType");
  if (!data) throw FieldError("wrap of a null pointer");
  check_shape(extents);
  if (!strides.empty() && strides.size() != extents.size()) {
    throw FieldError("wrap with " + std::to_string(strides.size()) + " strides for " +
                     std::to_string(extents.size()) + " extents");
  }
  const std::int64_t size = checked_size(extents, type);
  wide reach = 0;
  const std::vector<std::int64_t> used =
      strides.empty() ? dense_strides(extents, Layout::row_major) : strides;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    reach +=
        wide(extents[d] > 0 ? extents[d] - 1 : 0) * (used[d] < 0 ? -wide(used[d]) : wide(used[d]));
    if (reach * static_cast<wide>(size_of(type)) > int64_max) {
      throw FieldError("field strides overflow: an element lies more than 2^63-1 bytes away");
    }
  }
  Field field;
  field.runtime_ = state_;
  field.data_ = data;
  field.type_ = type;
  field.extents_ = extents;
  field.strides_ = used;
  field.size_ = size;
  field.writable_ = writable;
  return field;
}

}  // namespace stubjit
