// Names that reach generated source must be plain identifiers that cannot collide
// with the language, the GPU dialects or stubjit's own names.
#pragma once

#include <string>
#include <string_view>

#include "stubjit/kernel.hpp"

namespace stubjit::detail {

// Empty when `name` is usable; otherwise why not.
std::string identifier_problem(std::string_view name);

// Throws SignatureError on a bad kernel name, a bad or duplicate parameter name, or
// an unsupported rank.
void validate_kernel_source(const KernelSource& source);

// Whether the kernel has a group parameter (its body runs once per group).
bool is_group_kernel(const KernelSource& source);

// The parameter a reduce, scan or sort kernel works on (result<T>, scan<T>, sort<T>),
// nullptr when none.
const Param* result_param(const KernelSource& source);

}  // namespace stubjit::detail
