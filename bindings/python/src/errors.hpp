#pragma once

#include <pybind11/pybind11.h>

namespace stubjit::python {

namespace py = pybind11;

// Makes every stubjit::Error that reaches Python an instance of its class in
// stubjit._errors, with the C++ error's details as attributes.
void register_error_translation();

}  // namespace stubjit::python
