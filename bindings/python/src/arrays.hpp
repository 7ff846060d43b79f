// Python objects as launch arguments and fields: numpy arrays (zero-copy through the
// buffer protocol on the CPU backend), objects with __cuda_array_interface__ on CUDA,
// stubjit fields, and Python or numpy scalars converted to their parameter's type.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "stubjit/kernel.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::python {

namespace py = pybind11;

// The element type a numpy dtype (or anything numpy.dtype() takes: "float32", float,
// numpy.int64) names; TypeError for one stubjit has no element type for.
ElementType element_type_of(const py::handle& dtype);
// The numpy dtype of an element type (complex types too; float16 as numpy's float16,
// bfloat16 as uint16 bits).
py::object dtype_of(ElementType type);

// A field over the memory of `array` (never copied): a numpy array or anything with the
// buffer protocol on a CPU runtime, an object with __cuda_array_interface__ on a CUDA
// runtime. Strides in bytes must be whole elements, the byte order the machine's. A
// read-only buffer gives a read-only field. `keep` receives what must stay alive as
// long as the field is used: the buffer's export (a memoryview, which also keeps the
// object from being resized) or the device array itself.
Field wrap_array(Runtime& runtime, const py::handle& array, py::object& keep);

// A launch argument for the parameter `param` from a Python object: a Field, an array
// (wrapped; `keep` as for wrap_array), or a scalar converted to the parameter's type.
Arg argument(Runtime& runtime, const Param& param, const py::handle& value, Field& holder,
             py::object& keep);

}  // namespace stubjit::python
