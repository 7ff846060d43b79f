// The pieces of a combining stub's entry that reduce and scan stubs share
// (reduce_entries.cpp defines them): a group's segment and part, the positions of a
// segment's elements, and the lambda that runs the body for one of them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/dialect.hpp"

namespace stubjit::detail {

// float, double, float16 and bfloat16.
bool is_float_type(ElementType type);
// Qualifiers of a member function: the dialect's, less `static`.
std::string member_qualifiers(const DialectEmitter& dialect);

// The kernel's result or scan parameter (an Error without one).
const Param& result_of(const StubContext& context);
// The C++ entry's loop over its run of groups, opened: `for (...) {`, then the group's
// number stubjit_gid (the loop leaves at the launch's last group).
void emit_cpp_group_loop(const StubContext& context);
// const u64 stubjit_length: the values a segment combines.
void emit_length(const StubContext& context, int indent);
// The group's segment and part, and the positions [stubjit_lo, stubjit_hi) of its part,
// from the group's number `group` (a u64 local).
void emit_part(const StubContext& context, int indent, const std::string& group = "stubjit_gid");
// Along a dimension: the kept dimensions' positions stubjit_q<e> from the segment's
// number (row-major over them), once per group.
void emit_kept_positions(const StubContext& context, int indent);
// Along a dimension: the positions stubjit_p<d>, k along it and the segment's others.
void emit_along_positions(const StubContext& context, int indent);
// The stride locals of the projected fields along dimension d (stubjit_a<..>_s<d>).
std::vector<std::string> projected_strides(const StubContext& context, int d);
// The element at position `k` (a u64) of the segment: a lambda `name` returning its
// value (the identity, or a scan's field element, until the body sets it).
// `positions` writes the positions stubjit_p<d> from stubjit_k. With `unit` a
// dimension (the CPU's varying one), the lambda sees the domain's step along it and
// every projected field's stride along it as the constant 1 (the locals shadowed), so
// that the compiler can read a row's values as vectors: the caller runs it only where
// they are 1. `with_slot` (scans): the lambda takes a second argument, a
// `value_t*&` it sets to the scan field's element.
void emit_element(const StubContext& context, int indent, const std::function<void(int)>& positions,
                  const std::string& name = "stubjit_element", int unit = -1,
                  bool with_slot = false);

}  // namespace stubjit::detail
