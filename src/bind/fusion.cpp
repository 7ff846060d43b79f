#include "bind/fusion.hpp"

#include <array>
#include <cstring>
#include <limits>

#include "bind/arg_layout.hpp"
#include "bind/domain_order.hpp"

namespace stubjit::detail {
namespace {

using i64 = std::int64_t;
using wide = __int128;

constexpr int max_rank = Domain::max_rank;

bool fits_i64(wide value) {
  return value >= std::numeric_limits<i64>::min() && value <= std::numeric_limits<i64>::max();
}

// What fusion needs of one projected field: where its slot is, and per domain
// dimension the element step one position takes (logical step x stride).
struct ProjectedField {
  std::size_t param;
  std::size_t element_size;
  std::array<i64, max_rank> step;
  wide base;  // element offset of the domain's first index, then of the fused origin
};

// One dimension of the fused launch: a count and each field's element step.
struct Axis {
  int source;  // the domain dimension it starts from (for ordering)
  i64 count;
};

i64 read_i64(const unsigned char* at) {
  i64 value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

void write_i64(unsigned char* at, i64 value) { std::memcpy(at, &value, sizeof value); }

// A kernel that takes its index: the same dimensions, each with its own logical
// indices, put in the memory order of the reference field (a dimension of one index
// outermost, a descending one walked upwards); the stub gives the token its dimensions
// back in the kernel's order (bound.index_order).
std::optional<Domain> reorder(const Signature& signature, const Domain& domain, BoundArgs& bound) {
  const int rank = domain.rank();
  const DimRange dims = domain.dims();
  // The reference field's slot: the first written projected field, else the first.
  std::size_t reference_at = 0;
  int reference_rank = -1;
  bool reference_writes = false;
  {
    std::size_t at = 0;
    for (std::size_t i = 0; i < signature.size(); ++i) {
      const Param& p = signature[i];
      const Binding binding = bound.bindings[i];
      if (binding == Binding::projection &&
          (reference_rank < 0 || (!reference_writes && p.access == Access::read_write))) {
        reference_at = at;
        reference_rank = actual_rank(p, binding, rank);
        reference_writes = p.access == Access::read_write;
      }
      at += slot_size(p, binding, rank);
    }
  }
  if (reference_rank < 0) return std::nullopt;
  const unsigned char* strides =
      bound.packed.data() + reference_at + 8 + 8 * static_cast<std::size_t>(reference_rank);
  std::array<wide, max_rank> reach;  // element distance per position along each dimension
  for (int d = 0; d < rank; ++d) {
    const Dim& dim = dims[static_cast<std::size_t>(d)];
    reach[std::size_t(d)] = dim.count > 1 ? wide(dim.step) * read_i64(strides + 8 * std::size_t(d))
                                          : std::numeric_limits<i64>::max();  // outermost
  }
  const auto magnitude = [&](int d) {
    const wide r = reach[std::size_t(d)];
    return r < 0 ? -r : r;
  };
  DimOrder order{};  // order[q]: the domain dimension run as dimension q
  for (int d = 0; d < rank; ++d) order[std::size_t(d)] = d;
  for (int a = 1; a < rank; ++a) {  // insertion sort, stable, largest reach outermost
    const int moving = order[std::size_t(a)];
    int b = a;
    for (; b > 0 && magnitude(order[std::size_t(b - 1)]) < magnitude(moving); --b)
      order[std::size_t(b)] = order[std::size_t(b - 1)];
    order[std::size_t(b)] = moving;
  }
  bool changed = false;
  std::array<Dim, max_rank> run;
  for (int q = 0; q < rank; ++q) {
    const int d = order[std::size_t(q)];
    Dim dim = dims[static_cast<std::size_t>(d)];
    if (d != q) changed = true;
    if (dim.count > 1 && reach[std::size_t(d)] < 0 && dim.step != std::numeric_limits<i64>::min()) {
      dim = Dim{dim.at(dim.count - 1), dim.count, -dim.step};
      changed = true;
    }
    run[std::size_t(q)] = dim;
  }
  if (!changed) return std::nullopt;

  permute_domain_dims(signature, rank, order, true, bound);
  return Domain(DimRange(run.data(), run.data() + rank));
}

}  // namespace

std::optional<Domain> fuse_dimensions(const Signature& signature, const Domain& domain,
                                      BoundArgs& bound) {
  const int rank = domain.rank();
  if (rank < 2 || domain.empty()) return std::nullopt;
  if (bound.uses_index) return reorder(signature, domain, bound);

  const DimRange dims = domain.dims();
  std::array<ProjectedField, max_kernel_parameters> fields;
  std::size_t field_count = 0;
  std::size_t reference = max_kernel_parameters;  // the first written field, else the first
  {
    const unsigned char* packed = bound.packed.data();
    std::size_t at = 0;
    for (std::size_t i = 0; i < signature.size(); ++i) {
      const Param& p = signature[i];
      const Binding binding = bound.bindings[i];
      const std::size_t size = slot_size(p, binding, rank);
      if (binding == Binding::projection) {
        ProjectedField& f = fields[field_count];
        f.param = i;
        f.element_size = size_of(p.type);
        f.base = 0;
        const int slot_rank = actual_rank(p, binding, rank);
        const unsigned char* strides = packed + at + 8 + 8 * static_cast<std::size_t>(slot_rank);
        for (int d = 0; d < rank; ++d) {
          const i64 stride = read_i64(strides + 8 * static_cast<std::size_t>(d));
          const Dim& dim = dims[static_cast<std::size_t>(d)];
          const wide step = dim.count > 1 ? wide(dim.step) * stride : 0;
          if (!fits_i64(step)) return std::nullopt;
          f.step[static_cast<std::size_t>(d)] = static_cast<i64>(step);
          f.base += wide(dim.first) * stride;
        }
        if (reference == max_kernel_parameters ||
            (p.access == Access::read_write &&
             signature[fields[reference].param].access != Access::read_write)) {
          reference = field_count;
        }
        ++field_count;
      }
      at += size;
    }
  }

  // Dimensions of one index drop out; the others run outermost-first by the reference
  // field's step, each walked in the direction its elements ascend.
  std::array<Axis, max_rank> axes;
  int axis_count = 0;
  bool changed = false;
  for (int d = 0; d < rank; ++d) {
    const i64 count = dims[static_cast<std::size_t>(d)].count;
    if (count == 1) {
      changed = true;
      continue;
    }
    if (reference != max_kernel_parameters && fields[reference].step[std::size_t(d)] < 0) {
      for (std::size_t f = 0; f < field_count; ++f) {
        i64& step = fields[f].step[static_cast<std::size_t>(d)];
        fields[f].base += wide(count - 1) * step;
        if (step == std::numeric_limits<i64>::min()) return std::nullopt;
        step = -step;
      }
      changed = true;
    }
    axes[static_cast<std::size_t>(axis_count++)] = Axis{d, count};
  }
  if (reference != max_kernel_parameters) {
    const ProjectedField& ref = fields[reference];
    auto magnitude = [&](const Axis& a) {
      const i64 s = ref.step[static_cast<std::size_t>(a.source)];
      return s < 0 ? -wide(s) : wide(s);
    };
    // Insertion sort, stable: at most eight axes, and std::stable_sort may allocate.
    for (int a = 1; a < axis_count; ++a) {
      const Axis moving = axes[static_cast<std::size_t>(a)];
      int b = a;
      for (; b > 0 && magnitude(axes[static_cast<std::size_t>(b - 1)]) < magnitude(moving); --b)
        axes[static_cast<std::size_t>(b)] = axes[static_cast<std::size_t>(b - 1)];
      axes[static_cast<std::size_t>(b)] = moving;
    }
    for (int a = 0; a < axis_count; ++a)
      if (axes[static_cast<std::size_t>(a)].source != a) changed = true;
  }

  // Merge an axis into the one outside it where every field steps across the outer
  // one exactly as far as across all of the inner one.
  std::array<i64, max_rank> counts;
  std::array<std::array<i64, max_rank>, max_kernel_parameters> steps;
  int fused_rank = 0;
  for (int a = 0; a < axis_count; ++a) {
    const Axis& axis = axes[static_cast<std::size_t>(a)];
    const auto src = static_cast<std::size_t>(axis.source);
    bool merges = fused_rank > 0;
    for (std::size_t f = 0; merges && f < field_count; ++f) {
      const wide across = wide(axis.count) * fields[f].step[src];
      merges = across == steps[f][static_cast<std::size_t>(fused_rank - 1)];
    }
    if (merges) {
      counts[static_cast<std::size_t>(fused_rank - 1)] *= axis.count;  // <= domain.size()
      for (std::size_t f = 0; f < field_count; ++f)
        steps[f][static_cast<std::size_t>(fused_rank - 1)] = fields[f].step[src];
      changed = true;
      continue;
    }
    counts[static_cast<std::size_t>(fused_rank)] = axis.count;
    for (std::size_t f = 0; f < field_count; ++f)
      steps[f][static_cast<std::size_t>(fused_rank)] = fields[f].step[src];
    ++fused_rank;
  }
  if (fused_rank == 0) {  // every dimension has one index: one position
    counts[0] = 1;
    for (std::size_t f = 0; f < field_count; ++f) steps[f][0] = 0;
    fused_rank = 1;
  }
  if (!changed) return std::nullopt;
  for (std::size_t f = 0; f < field_count; ++f)
    if (!fits_i64(fields[f].base * wide(fields[f].element_size))) return std::nullopt;

  // Rewrite the packed block in place, front to back: each slot shrinks or keeps its
  // size, so its new place never reaches past its old end, and it is read whole first.
  unsigned char* packed = bound.packed.data();
  std::size_t from = 0;
  std::size_t to = 0;
  std::size_t next_field = 0;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const Param& p = signature[i];
    const Binding binding = bound.bindings[i];
    const std::size_t old_size = slot_size(p, binding, rank);
    const std::size_t new_size = slot_size(p, binding, fused_rank);
    if (binding != Binding::projection) {
      if (old_size != 0 && from != to) std::memmove(packed + to, packed + from, old_size);
      from += old_size;
      to += new_size;
      continue;
    }
    std::array<unsigned char, 8 + 16 * 2 * max_rank> slot;
    std::memcpy(slot.data(), packed + from, old_size);
    const std::size_t field = next_field++;
    const ProjectedField& f = fields[field];
    const std::size_t trailing = static_cast<std::size_t>(p.rank);
    const std::size_t old_rank = static_cast<std::size_t>(rank) + trailing;
    const std::size_t new_rank = static_cast<std::size_t>(fused_rank) + trailing;
    std::uintptr_t data;
    std::memcpy(&data, slot.data(), sizeof data);
    data += static_cast<std::uintptr_t>(static_cast<i64>(f.base * wide(f.element_size)));
    std::memcpy(packed + to, &data, sizeof data);
    unsigned char* extents = packed + to + 8;
    unsigned char* strides = extents + 8 * new_rank;
    for (int d = 0; d < fused_rank; ++d) {
      write_i64(extents + 8 * static_cast<std::size_t>(d), counts[static_cast<std::size_t>(d)]);
      write_i64(strides + 8 * static_cast<std::size_t>(d),
                steps[field][static_cast<std::size_t>(d)]);
    }
    for (std::size_t t = 0; t < trailing; ++t) {
      std::memcpy(extents + 8 * (static_cast<std::size_t>(fused_rank) + t),
                  slot.data() + 8 + 8 * (static_cast<std::size_t>(rank) + t), 8);
      std::memcpy(strides + 8 * (static_cast<std::size_t>(fused_rank) + t),
                  slot.data() + 8 + 8 * old_rank + 8 * (static_cast<std::size_t>(rank) + t), 8);
    }
    from += old_size;
    to += new_size;
  }
  bound.packed.shrink(to == 0 ? 8 : to);

  std::array<Dim, max_rank> fused;
  for (int d = 0; d < fused_rank; ++d)
    fused[static_cast<std::size_t>(d)] = Dim{0, counts[static_cast<std::size_t>(d)], 1};
  return Domain(DimRange(fused.data(), fused.data() + fused_rank));
}

}  // namespace stubjit::detail
