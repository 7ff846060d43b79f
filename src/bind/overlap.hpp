// Whether two fields can share an element: the aliasing rule's test for strided views.
//
// A field's elements lie at base + sum over d of k_d * stride_d (k_d < extent_d), each
// element_size bytes long. Two fields whose byte ranges meet may still share no
// element: the even and odd elements of one buffer, two column blocks or every other
// row of one matrix. The rule (docs/views.md):
//   1. Disjoint byte ranges share nothing.
//   2. Residues: every address of both lies in base + g*Z, g the gcd of all strides
//      (in bytes) of both; when the two classes keep every pair of elements apart
//      (the even/odd case), they share nothing.
//   3. Otherwise split: when the largest strides of the two are equal, the pairs of
//      slices along that dimension that could meet are translates of one another, so
//      each offset between them is checked once; else the field with the larger stride
//      is split into its slices and only those whose bytes meet the other are checked.
//      Two single elements whose bytes meet share memory.
// The split is exact; it stops after a fixed number of steps, and then the fields are
// taken to share an element (conservative: a launch is refused, never run wrongly).
#pragma once

#include <cstdint>
#include <optional>

#include "stubjit/field.hpp"

namespace stubjit::detail {

struct SharedElement {
  bool proven;             // false: not decided within the step limit (taken as shared)
  std::uintptr_t address;  // when proven: a byte both fields' elements cover
};

// nullopt when `a` and `b` share no byte of any element.
std::optional<SharedElement> shared_element(const Field& a, const Field& b);

// The most steps shared_element takes before it gives up (and answers "shared").
inline constexpr int overlap_step_limit = 4096;

}  // namespace stubjit::detail
