// A kernel's parameters, in order. stubjit writes the kernel's C++ declaration from
// them; the user writes only the body.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/export.hpp"
#include "stubjit/types.hpp"

namespace stubjit {

enum class ParamKind : std::uint8_t {
  scalar,  // a value broadcast to every activity
  field,   // an array of the device, projected or broadcast
  index,   // the logical index of the activity; takes no argument at launch
  // A tiled launch (LaunchOptions::tile) of a per-element kernel: the index of the
  // activity's tile and its position in the tile. No argument at launch.
  tile_index,
  local_index,
  // The work-group handle: makes the kernel a group kernel, whose body runs once per
  // group (one group per index of the domain) with inner loops, fences, `single` and
  // group-shared arrays (docs/groups.md). No argument at launch.
  group,
  // A group-shared array of a group kernel (Param::extents). No argument at launch.
  shared,
};

enum class Access : std::uint8_t { read_only, read_write };

// How a reduction combines the values its kernel's elements yield (result<T>): an
// associative and commutative operation with an identity (docs/patterns.md).
//   sum, product         a + b, a * b (identity 0, 1); every element type
//   min, max             the smaller, the larger (a < b): real types (identity: the
//                        type's largest or smallest value, infinities for floats)
//   bit_and, bit_or,     a & b, a | b, a ^ b: integer types and bool (identity all
//   bit_xor              ones, 0, 0)
//   any, all             a || b, a && b: bool (identity false, true): IrGL's flags
//   custom               the expressions of Param::combine and Param::identity
// `none`: not a reduction (every parameter but a result).
enum class Combiner : std::uint8_t {
  none,
  sum,
  product,
  min,
  max,
  bit_and,
  bit_or,
  bit_xor,
  any,
  all,
  custom
};

STUBJIT_API const char* name_of(Combiner combiner) noexcept;

// Which prefix a scan writes at each position (scan<T>): inclusive, the combination
// of the values up to and including its own; exclusive, of those before it (the
// identity at the first). `none`: not a scan (every parameter but a scan's).
enum class ScanKind : std::uint8_t { none, inclusive, exclusive };

STUBJIT_API const char* name_of(ScanKind kind) noexcept;

// How a sort orders its keys (sort<T>): ascending or descending by the type's `<`
// (floating-point NaNs last either way; -0 and +0 equal), or by the expression of
// Param::less. `none`: not a sort's keys (every parameter but a sort's).
enum class SortOrder : std::uint8_t { none, ascending, descending, custom };

STUBJIT_API const char* name_of(SortOrder order) noexcept;

// How a parameter appears in the body:
//   scalar<T>                 T name
//   field<T> rank 0, read     T name            (the projected element)
//   field<T> rank 0, write    T& name
//   field<T> rank R, read     stubjit::View<const T, R> name   (name(i...), name.extent(d))
//   field<T> rank R, write    stubjit::View<T, R> name
//   index                     stubjit::Index<N> name   (name[d], N = domain rank)
//   tile_index, local_index   stubjit::Index<N> name   (positions: tile, and in the tile)
//   group                     stubjit::Group name      (group.inner(n, f), group.fence(), ...)
//   shared<T>                 stubjit::View<T, R> name (R = number of extents)
//   result<T>                 T& name                  (the element's value, the identity
//                                                       until the body sets it)
//   scan<T>                   T& name                  (the element's value, the field's
//                                                       element until the body sets it)
//   sort<T>                   T& name                  (the element's key, likewise)
//   payload<T>                T& name                  (the element, moved with its key)
struct STUBJIT_API Param {
  ParamKind kind = ParamKind::scalar;
  std::string name;
  ElementType type = ElementType::f32;
  int rank = 0;
  Access access = Access::read_only;
  // Scalars only: the value of each launch is compiled into the stub as a constant
  // (one stub per value; see specialized<T>).
  bool specialized = false;
  // Read-only rank-0 fields only: a mask (see mask<T>).
  bool mask = false;
  // Shared arrays only: the extents, outermost first (row-major), each a positive
  // integer literal ("32") or the name of an integer scalar parameter of the kernel,
  // read at each launch ("nz").
  std::vector<std::string> extents{};
  // A reduction's result (result<T>): a read-write field parameter whose combiner is
  // not `none`. Custom combiners only: `combine`, a C++ expression over `a` and `b`
  // (two values of the element type) giving their combination, and `identity`, an
  // expression giving the value that combines with any x to x.
  Combiner combiner = Combiner::none;
  std::string combine{};
  std::string identity{};
  // A scan's output (scan<T>): a result whose field has the domain's rank, and which
  // prefix each of its elements receives.
  ScanKind scan = ScanKind::none;
  // A sort's keys (sort<T>): a read-write rank-0 field parameter whose order is not
  // `none`. Custom orders only: `less`, a C++ expression over `a` and `b` (two keys)
  // that is true where a goes before b.
  SortOrder sort = SortOrder::none;
  std::string less{};
  // A sort's payload (payload<T>): a read-write rank-0 field parameter whose elements
  // move with the keys.
  bool payload = false;

  // A reduction's result or a scan's output: the parameter whose values the launch
  // combines.
  bool is_result() const noexcept { return combiner != Combiner::none; }
  bool is_scan() const noexcept { return scan != ScanKind::none; }
  bool is_sort() const noexcept { return sort != SortOrder::none; }
};

using Signature = std::vector<Param>;

// How one argument reaches the kernel in a launch (decided when binding):
//   scalar      a scalar broadcast by value
//   broadcast   a field of the parameter's own rank, seen whole by every activity
//   projection  a field of rank N + R for a rank-R parameter: the domain index
//               selects the leading N dimensions (elemental when R = 0)
//   index       the index token; no argument
//   index       a parameter that takes no argument: the index, tile_index and
//               local_index tokens, the group handle, a shared array
enum class Binding : std::uint8_t { scalar, broadcast, projection, index };

// Whether a launch passes an argument for the parameter (scalars and fields do).
inline bool takes_argument(const Param& param) noexcept {
  return param.kind == ParamKind::scalar || param.kind == ParamKind::field;
}

STUBJIT_API const char* name_of(Binding binding) noexcept;

// Most specialized scalar parameters a kernel may have.
inline constexpr std::size_t max_specialized_parameters = 8;

// Largest rank of a field parameter or of a field.
inline constexpr int max_field_rank = 8;
// Most parameters a kernel's signature may have (a launch keeps its bindings inline).
inline constexpr std::size_t max_kernel_parameters = 128;

template <class T>
Param scalar(std::string name) {
  return Param{ParamKind::scalar, std::move(name), element_type_v<T>, 0, Access::read_only};
}

// A scalar whose value is compiled into the stub as a constant (floats exactly, as
// hexadecimal literals): the compiler can then unroll a loop it bounds or fold it
// away. Each value gets a stub of its own, compiled on its first launch and cached
// (in memory and on disk) under that value; a kernel that runs with many values
// compiles as many stubs. The body sees an ordinary `T name`.
template <class T>
Param specialized(std::string name) {
  Param param = scalar<T>(std::move(name));
  param.specialized = true;
  return param;
}

template <class T>
Param field(std::string name, int rank, Access access) {
  return Param{ParamKind::field, std::move(name), element_type_v<T>, rank, access};
}

// A read-only field parameter of rank `rank` (0: one element per activity).
template <class T>
Param in(std::string name, int rank = 0) {
  return field<T>(std::move(name), rank, Access::read_only);
}

// A read-write field parameter of rank `rank` (0: one element per activity).
template <class T>
Param inout(std::string name, int rank = 0) {
  return field<T>(std::move(name), rank, Access::read_write);
}

// A mask: a read-only field projected over the domain (one element per index) whose
// zero elements filter their indices out. The body runs only where the element is
// nonzero, and sees it as an ordinary `T name`. A launch binds it like any field; a
// mask bound whole (broadcast) is an ArgumentError.
template <class T>
Param mask(std::string name) {
  Param param = in<T>(std::move(name));
  param.mask = true;
  return param;
}

STUBJIT_API Param index(std::string name);
// The tokens of a tiled launch: the tile's position in the domain's tiling and the
// activity's position in its tile, per dimension of the domain (counts from 0).
STUBJIT_API Param tile_index(std::string name);
STUBJIT_API Param local_index(std::string name);
// The group handle: the kernel becomes a group kernel (docs/groups.md).
STUBJIT_API Param group(std::string name);

// Most extents of a group-shared array.
inline constexpr std::size_t max_shared_rank = 8;

// A group-shared array of a group kernel: one per group, uninitialised at its start,
// row-major over `extents` (each a positive integer literal or the name of an integer
// scalar parameter, read at launch), e.g. shared<float>("tile", {"32", "33"}).
template <class T>
Param shared(std::string name, std::vector<std::string> extents) {
  Param param{ParamKind::shared, std::move(name), element_type_v<T>, 0, Access::read_write};
  param.rank = static_cast<int>(extents.size());
  param.extents = std::move(extents);
  return param;
}

// The result of a reduction (docs/patterns.md): the kernel becomes a reduce kernel.
// Its body runs once per index of the domain and sets `name` (a T&, the combiner's
// identity until set) to the element's value; a launch combines them all with
// `combiner`. The launch binds a read-write field of rank `rank` to it: rank 0 (one
// element) takes the whole domain's combination; rank N-1 over a rank-N domain takes,
// for each index of the other dimensions, the combination along the dimension
// LaunchOptions::reduce_dimension eliminates. Either way the launch combines into
// the field's existing values (c = c + sum, the patent's C += A*B), or overwrites
// them with ReduceUpdate::assign; Kernel::reduce returns the whole domain's value.
template <class T>
Param result(std::string name, Combiner combiner, int rank = 0) {
  Param param{ParamKind::field, std::move(name), element_type_v<T>, rank, Access::read_write};
  param.combiner = combiner;
  return param;
}

// A result with a combiner of the user's: `combine` an expression over `a` and `b`,
// `identity` one giving the identity, both of type T, e.g.
// result<double>("v", "a > b ? a : b", "-1e300"). The combination must be associative
// and commutative: the launch combines in an order of its plan (the same order each
// run of the same plan), not the domain's.
template <class T>
Param result(std::string name, std::string combine, std::string identity, int rank = 0) {
  Param param = result<T>(std::move(name), Combiner::custom, rank);
  param.combine = std::move(combine);
  param.identity = std::move(identity);
  return param;
}

// The output of a scan along one dimension (docs/patterns.md): the kernel becomes a scan
// kernel. Its body runs once per index of the domain and sets `name` (a T&, holding the
// field's own element until set: an empty body scans the field in place) to the
// element's value. The launch binds a read-write field of the domain's rank to it, one
// element per index as for a projected field (a larger or strided field is fine), and
// writes each of its elements the combination, with `combiner`, of the
// values along the dimension LaunchOptions::reduce_dimension names (-1: the last) up
// to its position: with it (ScanKind::inclusive) or before it (exclusive). Rank 1 is
// the plain prefix sum; over a higher rank every pencil is scanned on its own.
template <class T>
Param scan(std::string name, Combiner combiner, ScanKind kind = ScanKind::inclusive) {
  Param param = result<T>(std::move(name), combiner, 0);
  param.scan = kind;
  return param;
}

// A scan with a combiner of the user's: expressions as for result<T>'s.
template <class T>
Param scan(std::string name, std::string combine, std::string identity,
           ScanKind kind = ScanKind::inclusive) {
  Param param = result<T>(std::move(name), std::move(combine), std::move(identity), 0);
  param.scan = kind;
  return param;
}

// The keys of a sort along one dimension (docs/patterns.md): the kernel becomes a sort
// kernel. Its body runs once per index of the domain and may set `name` (a T&, holding
// the field's own element until set: an empty body sorts the field as it is) and its
// payloads. The launch binds a read-write field of the domain's rank to it, one element
// per index as for a projected field (a larger or strided field is fine: the elements
// outside the domain stay where they are), and sorts every pencil along the dimension
// LaunchOptions::reduce_dimension names (-1: the last) in place, stably: keys that compare equal
// keep their order, and the payloads' elements (payload<T>) move with their keys. Built-in orders
// take every element type but the complex ones; floating-point NaNs go last. SortOrder::none is a
// SignatureError (it would make the keys a plain read-write field).
template <class T>
Param sort(std::string name, SortOrder order = SortOrder::ascending) {
  if (order == SortOrder::none) {
    throw SignatureError("sort<T>(\"" + name +
                         "\", SortOrder::none): a sort's keys need an order (ascending, "
                         "descending, or a less expression)");
  }
  Param param{ParamKind::field, std::move(name), element_type_v<T>, 0, Access::read_write};
  param.sort = order;
  return param;
}

// A sort by a comparison of the user's: `less`, an expression over `a` and `b` (two
// keys of type T, the kernel's helpers in scope) true where a goes before b, e.g.
// "(a < 0 ? -a : a) < (b < 0 ? -b : b)". It must be a strict weak order; keys it
// calls equivalent keep their order.
template <class T>
Param sort(std::string name, std::string less) {
  Param param = sort<T>(std::move(name), SortOrder::custom);
  param.less = std::move(less);
  return param;
}

// A payload of a sort kernel: a read-write field of the domain's rank bound as the
// keys' is, whose elements move with the keys (the body sees the element, a
// T&, and may set it: e.g. `perm = i[0];` leaves the sorting permutation in it).
template <class T>
Param payload(std::string name) {
  Param param{ParamKind::field, std::move(name), element_type_v<T>, 0, Access::read_write};
  param.payload = true;
  return param;
}

// "scalar<float> a", "specialized<int32> n", "field<double, 2, read_write> y",
// "mask<int32> inside", "result<double, sum, rank 0> v", "scan<int64, sum, exclusive> y",
// "sort<float, descending> x", "payload<int64> perm", "index i", "tile_index t", "local_index l",
// "group g", "shared<float>[32][nz] tile".
STUBJIT_API std::string to_string(const Param& param);

}  // namespace stubjit
