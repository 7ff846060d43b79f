#include "bind/bind.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>

#include "bind/arg_layout.hpp"
#include "bind/overlap.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();

std::string quoted(const Param& param) { return "parameter '" + param.name + "'"; }

std::string describe_arg(const Arg& arg) {
  if (arg.kind() == Arg::Kind::scalar) return std::string("a scalar ") + name_of(arg.type());
  return std::string("a field<") + name_of(arg.type()) + ", rank " +
         std::to_string(arg.field()->rank()) + ">";
}

// Byte range a field's elements occupy: the aliasing rule's first test (overlap.hpp
// decides for fields whose ranges meet).
// No default member initializers: a launch keeps one per parameter on its stack,
// written only for fields.
struct ByteRange {
  std::uintptr_t begin;
  std::uintptr_t end;
};

ByteRange byte_range(const Field& field) {
  if (field.size() == 0) return {};
  std::int64_t low = 0;
  std::int64_t high = 0;
  const std::int64_t* extents = field.extents().data();
  const std::int64_t* strides = field.strides().data();
  for (int d = 0; d < field.rank(); ++d) {
    const std::int64_t reach = (extents[d] - 1) * strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(field.data());
  const auto element = static_cast<std::int64_t>(size_of(field.type()));
  return {base + static_cast<std::uintptr_t>(low * element),
          base + static_cast<std::uintptr_t>((high + 1) * element)};
}

bool overlap(const ByteRange& a, const ByteRange& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

// The lowest and highest logical index of each dimension of a non-empty domain:
// what a projected field must hold.
struct DomainBounds {
  std::array<std::int64_t, Domain::max_rank> low;
  std::array<std::int64_t, Domain::max_rank> high;
};

DomainBounds bounds_of(const Domain& domain) {
  DomainBounds bounds;
  int d = 0;
  for (const Dim& dim : domain.dims()) {
    const std::int64_t last = dim.at(dim.count - 1);
    bounds.low[static_cast<std::size_t>(d)] = std::min(dim.first, last);
    bounds.high[static_cast<std::size_t>(d)] = std::max(dim.first, last);
    ++d;
  }
  return bounds;
}

Binding check_field(const Param& param, const Arg& arg, const Domain& domain,
                    const DomainBounds* bounds, const RuntimeState* owner) {
  if (arg.kind() != Arg::Kind::field) {
    throw ArgumentError(param.name,
                        quoted(param) + " is " + to_string(param) + "; got " + describe_arg(arg));
  }
  const Field& field = *arg.field();
  if (!field) throw ArgumentError(param.name, quoted(param) + ": got a null field");
  if (field.owner() != owner) {
    throw ArgumentError(param.name, quoted(param) + ": the field belongs to another runtime");
  }
  if (field.type() != param.type) {
    throw ArgumentError(param.name,
                        quoted(param) + " is " + to_string(param) + "; got " + describe_arg(arg));
  }
  Binding binding;
  // A scan's field, a sort's keys and payloads: one element per index of the domain.
  if ((param.is_scan() || param.is_sort() || param.payload) && field.rank() != domain.rank()) {
    throw ArgumentError(param.name, quoted(param) + " is " + to_string(param) +
                                        ": it takes a field of the domain's rank (" +
                                        std::to_string(domain.rank()) +
                                        "), one element per index; got " + describe_arg(arg));
  }
  if (param.is_result() && !param.is_scan() && field.rank() != param.rank) {
    throw ArgumentError(param.name, quoted(param) + " is " + to_string(param) +
                                        ": it takes a field of rank " + std::to_string(param.rank) +
                                        "; got " + describe_arg(arg));
  }
  if (field.rank() == param.rank) {
    binding = Binding::broadcast;
  } else if (field.rank() == domain.rank() + param.rank) {
    binding = Binding::projection;
  } else {
    throw ArgumentError(param.name, quoted(param) + " is " + to_string(param) + "; got " +
                                        describe_arg(arg) + ": over a rank-" +
                                        std::to_string(domain.rank()) + " domain it takes rank " +
                                        std::to_string(param.rank) + " (broadcast) or rank " +
                                        std::to_string(domain.rank() + param.rank) +
                                        " (projection)");
  }
  if (param.access == Access::read_write && !field.writable()) {
    throw ArgumentError(param.name, quoted(param) + " is read-write; got a read-only field");
  }
  if (param.access == Access::read_write && field.size() > 0) {
    // Many indices, one element: writes through it would race (a spread view).
    for (int d = 0; d < field.rank(); ++d) {
      if (field.stride(d) == 0 && field.extent(d) > 1) {
        throw ArgumentError(param.name, quoted(param) + " is read-write; dimension " +
                                            std::to_string(d) + " of its field has stride 0 (" +
                                            std::to_string(field.extent(d)) +
                                            " indices, one element): such a dimension is "
                                            "read-only");
      }
    }
  }
  if (param.mask && binding != Binding::projection) {
    throw ArgumentError(param.name, quoted(param) +
                                        " is a mask: it takes a field of the domain's "
                                        "rank, one element per index; got " +
                                        describe_arg(arg));
  }
  if (binding == Binding::projection && bounds) {
    const std::int64_t* extents = field.extents().data();
    for (int d = 0; d < domain.rank(); ++d) {
      const std::int64_t low = bounds->low[static_cast<std::size_t>(d)];
      const std::int64_t high = bounds->high[static_cast<std::size_t>(d)];
      if (low < 0 || high >= extents[d]) {
        throw ArgumentError(param.name,
                            quoted(param) + ": domain dimension " + std::to_string(d) +
                                " reaches logical index " + std::to_string(low < 0 ? low : high) +
                                ", outside the field's extent " + std::to_string(field.extent(d)) +
                                " (valid 0.." + std::to_string(field.extent(d) - 1) + ")");
      }
    }
  }
  return binding;
}

bool same_view(const Field& a, const Field& b) {
  return a.data() == b.data() && a.type() == b.type() && a.extents() == b.extents() &&
         a.strides() == b.strides();
}

std::string hex_address(std::uintptr_t address) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), digits[address % 16]);
    address /= 16;
  } while (address != 0);
  return "0x" + text;
}

std::string describe_range(const ByteRange& range) {
  return "[" + hex_address(range.begin) + ", " + hex_address(range.end) + ")";
}

// `ranges[i]`: the byte range of parameter i's field, `arg_of[i]` its argument (field
// parameters only).
void check_aliasing(const Signature& signature, const ByteRange* ranges, const Arg* args,
                    const std::uint16_t* arg_of) {
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (signature[i].kind != ParamKind::field || signature[i].access != Access::read_write)
      continue;
    for (std::size_t j = 0; j < signature.size(); ++j) {
      if (j == i || signature[j].kind != ParamKind::field) continue;
      if (!overlap(ranges[i], ranges[j])) continue;
      const Field& written = *args[arg_of[i]].field();
      const Field& other = *args[arg_of[j]].field();
      const std::string rule = " (memory bound read-write may be bound only once per launch)";
      if (same_view(written, other)) {
        throw AliasError(signature[i].name, signature[j].name,
                         "the field bound to read-write parameter '" + signature[i].name +
                             "' is also bound to parameter '" + signature[j].name + "'" + rule);
      }
      // Strided views whose ranges meet may still share no element (overlap.hpp).
      const std::optional<SharedElement> shared = shared_element(written, other);
      if (!shared) continue;
      const std::string which =
          shared->proven ? "both hold the element at byte " + hex_address(shared->address)
                         : "not proven apart in " + std::to_string(overlap_step_limit) +
                               " steps, so taken to share an element";
      throw AliasError(signature[i].name, signature[j].name,
                       "the memory of the field bound to read-write parameter '" +
                           signature[i].name + "', bytes " + describe_range(ranges[i]) +
                           ", overlaps that of the field bound to parameter '" + signature[j].name +
                           "', bytes " + describe_range(ranges[j]) + ": " + which + rule);
    }
  }
}

bool fits_int32(__int128 value) { return value >= int32_min && value <= int32_max; }

// A 32-bit stub narrows every extent, stride, element offset and View::size() of the
// field to int32: all of them must fit (a stride-0 view can be huge yet reach nothing).
bool field_fits_int32(const Field& field) {
  __int128 reach = 0;
  __int128 elements = 1;
  for (int d = 0; d < field.rank(); ++d) {
    const __int128 extent = field.extent(d);
    const __int128 stride = field.stride(d) < 0 ? -__int128(field.stride(d)) : field.stride(d);
    if (!fits_int32(extent) || !fits_int32(stride)) return false;
    elements *= extent;
    reach += (extent > 0 ? extent - 1 : 0) * stride;
    if (!fits_int32(elements) || !fits_int32(reach)) return false;
  }
  return true;
}

// Positions, logical indices and first + step * position must stay in int32: besides
// both ends of every dimension, the step and the distance between the ends.
bool domain_fits_int32(const Domain& domain) {
  if (!fits_int32(domain.size())) return false;
  for (const Dim& dim : domain.dims()) {
    if (dim.count == 0) continue;
    const __int128 last = dim.at(dim.count - 1);
    if (!fits_int32(dim.first) || !fits_int32(last) || !fits_int32(dim.step) ||
        !fits_int32(last - dim.first)) {
      return false;
    }
  }
  return true;
}

void put(unsigned char* out, std::size_t offset, std::uint64_t value) {
  std::memcpy(out + offset, &value, sizeof value);
}

}  // namespace

void bind_arguments(const Signature& signature, const Domain& domain, const Arg* args,
                    std::size_t count, const RuntimeState* owner, BoundArgs& out,
                    bool check_int32) {
  const Param* params = signature.data();
  const std::size_t n = signature.size();
  std::size_t expected = 0;
  for (std::size_t i = 0; i < n; ++i) expected += takes_argument(params[i]) ? 1 : 0;
  if (count != expected) {
    std::string names;
    for (const Param& p : signature) {
      if (!takes_argument(p)) continue;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    throw ArgumentError("", "the kernel takes " + std::to_string(expected) + " argument" +
                                (expected == 1 ? "" : "s") + " (" + names + "), got " +
                                std::to_string(count));
  }

  out.bindings.resize(n);
  out.uses_index = false;
  // Which argument each parameter takes (index tokens take none), and the bytes each
  // field spans. Signatures have at most max_kernel_parameters parameters (checked
  // when the kernel was made); entries of other parameters stay unwritten and unread.
  std::array<std::uint16_t, max_kernel_parameters> arg_of;
  std::array<ByteRange, max_kernel_parameters> ranges;
  bool any_writable = false;
  const DomainBounds bounds = domain.empty() ? DomainBounds{} : bounds_of(domain);
  const DomainBounds* projected_bounds = domain.empty() ? nullptr : &bounds;
  out.fits_int32 = check_int32 && domain_fits_int32(domain);
  out.specialized_count = 0;
  // The packed block's size (the layout of arg_layout.hpp), found on the way.
  const int rank = domain.rank();
  std::size_t size = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Param& param = params[i];
    if (!takes_argument(param)) {
      out.bindings.set(i, Binding::index);
      out.uses_index = out.uses_index || param.kind == ParamKind::index;
      continue;
    }
    const Arg& arg = args[next];
    arg_of[i] = static_cast<std::uint16_t>(next++);
    if (param.kind == ParamKind::scalar) {
      if (arg.kind() != Arg::Kind::scalar || arg.type() != param.type) {
        throw ArgumentError(
            param.name, quoted(param) + " is " + to_string(param) + "; got " + describe_arg(arg));
      }
      out.bindings.set(i, Binding::scalar);
      // validate_kernel_source allows at most max_specialized_parameters, two words each.
      if (param.specialized && out.specialized_count + 2u <= out.specialized.size()) {
        out.specialized[out.specialized_count++] = arg.bits();
        if (scalar_words(param.type) == 2)
          out.specialized[out.specialized_count++] = arg.high_bits();
      }
      size += scalar_slot_size(param.type);
      continue;
    }
    const Binding binding = check_field(param, arg, domain, projected_bounds, owner);
    out.bindings.set(i, binding);
    const Field& field = *arg.field();
    if (out.fits_int32) out.fits_int32 = field_fits_int32(field);
    ranges[i] = byte_range(field);
    any_writable = any_writable || param.access == Access::read_write;
    size += 8 + 16 * static_cast<std::size_t>(actual_rank(param, binding, rank));
  }
  if (any_writable) check_aliasing(signature, ranges.data(), args, arg_of.data());

  out.packed.reset(size == 0 ? 8 : size);
  unsigned char* packed = out.packed.data();
  if (size == 0) put(packed, 0, 0);  // the block is never empty; its one slot is unused
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Binding binding = out.bindings[i];
    if (binding == Binding::index) continue;
    const Arg& arg = args[arg_of[i]];
    if (binding == Binding::scalar) {
      put(packed, at, arg.bits());
      if (scalar_words(arg.type()) == 2) put(packed, at + 8, arg.high_bits());
      at += scalar_slot_size(arg.type());
      continue;
    }
    // Every byte of a field slot is written: pointer, extents, strides.
    const Field& field = *arg.field();
    const std::size_t field_rank = field.extents().size();
    put(packed, at, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(field.data())));
    if (field_rank != 0) {  // a rank-0 field's empty extents may hold no pointer at all
      std::memcpy(packed + at + 8, field.extents().data(), 8 * field_rank);
      std::memcpy(packed + at + 8 + 8 * field_rank, field.strides().data(), 8 * field_rank);
    }
    at += 8 + 16 * field_rank;
  }
}

}  // namespace stubjit::detail
