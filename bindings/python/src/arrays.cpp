#include "arrays.hpp"

#include <pybind11/complex.h>
#include <pybind11/numpy.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/half.hpp"

namespace stubjit::python {
namespace {

struct TypeName {
  ElementType type;
  const char* numpy;
};
// numpy's names; bfloat16 has none (its bits travel as uint16).
constexpr TypeName type_names[] = {{ElementType::f32, "float32"},
                                   {ElementType::f64, "float64"},
                                   {ElementType::i32, "int32"},
                                   {ElementType::i64, "int64"},
                                   {ElementType::u32, "uint32"},
                                   {ElementType::i8, "int8"},
                                   {ElementType::u8, "uint8"},
                                   {ElementType::i16, "int16"},
                                   {ElementType::u16, "uint16"},
                                   {ElementType::u64, "uint64"},
                                   {ElementType::boolean, "bool"},
                                   {ElementType::float16, "float16"},
                                   {ElementType::complex_f32, "complex64"},
                                   {ElementType::complex_f64, "complex128"}};

py::module_ numpy() { return py::module_::import("numpy"); }

// numpy's array-interface type string ("<f4") as an element type.
ElementType type_of_typestr(const std::string& typestr) {
  return element_type_of(numpy().attr("dtype")(typestr));
}

std::vector<std::int64_t> element_strides(const std::vector<std::int64_t>& byte_strides,
                                          std::int64_t itemsize) {
  std::vector<std::int64_t> strides;
  for (std::int64_t bytes : byte_strides) {
    if (bytes % itemsize != 0)
      throw FieldError("an array whose strides (" + std::to_string(bytes) +
                       " bytes) are not whole elements of " + std::to_string(itemsize) +
                       " bytes cannot be wrapped");
    strides.push_back(bytes / itemsize);
  }
  return strides;
}

Field wrap_cuda_array(Runtime& runtime, const py::dict& interface) {
  if (interface.contains("mask") && !interface["mask"].is_none())
    throw ArgumentError("",
                        "a masked device array (__cuda_array_interface__ mask) cannot be "
                        "wrapped");
  if (runtime.backend_name() != "cuda")
    throw ArgumentError("", "an array with __cuda_array_interface__ (device memory) on a " +
                                runtime.backend_name() + " runtime: use a numpy array there");
  const py::tuple data = interface["data"].cast<py::tuple>();
  const auto pointer = data[0].cast<std::uintptr_t>();
  const bool read_only = data[1].cast<bool>();
  const ElementType type = type_of_typestr(interface["typestr"].cast<std::string>());
  const auto itemsize = static_cast<std::int64_t>(size_of(type));
  std::vector<std::int64_t> extents;
  for (const py::handle extent : interface["shape"].cast<py::tuple>())
    extents.push_back(extent.cast<std::int64_t>());
  std::vector<std::int64_t> strides;  // none: C-contiguous
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    std::vector<std::int64_t> bytes;
    for (const py::handle stride : interface["strides"].cast<py::tuple>())
      bytes.push_back(stride.cast<std::int64_t>());
    strides = element_strides(bytes, itemsize);
  }
  return runtime.wrap_memory(reinterpret_cast<void*>(pointer), type, extents, strides, !read_only);
}

// DLPack's C ABI: the members of DLManagedTensor this reads (the protocol's
// `dltensor` capsule, as every DLPack version before 1.0's versioned one lays it out).
struct DlDevice {
  std::int32_t device_type;  // 1: CPU, 2: CUDA, 3: CUDA host, 10: ROCm, 13: CUDA managed
  std::int32_t device_id;
};
struct DlDataType {
  std::uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DlTensor {
  void* data;
  DlDevice device;
  std::int32_t ndim;
  DlDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; NULL: compact, row-major
  std::uint64_t byte_offset;
};

ElementType dlpack_type(const DlDataType& t) {
  if (t.lanes != 1) throw FieldError("a DLPack tensor of vectors (lanes > 1) cannot be wrapped");
  const auto is = [&](std::uint8_t code, std::uint8_t bits) {
    return t.code == code && t.bits == bits;
  };
  if (is(0, 8)) return ElementType::i8;
  if (is(0, 16)) return ElementType::i16;
  if (is(0, 32)) return ElementType::i32;
  if (is(0, 64)) return ElementType::i64;
  if (is(1, 8)) return ElementType::u8;
  if (is(1, 16)) return ElementType::u16;
  if (is(1, 32)) return ElementType::u32;
  if (is(1, 64)) return ElementType::u64;
  if (is(2, 16)) return ElementType::float16;
  if (is(2, 32)) return ElementType::f32;
  if (is(2, 64)) return ElementType::f64;
  if (is(4, 16)) return ElementType::bfloat16;
  if (is(5, 64)) return ElementType::complex_f32;
  if (is(5, 128)) return ElementType::complex_f64;
  if (is(6, 8)) return ElementType::boolean;
  throw FieldError("a DLPack tensor of type code " + std::to_string(t.code) + ", " +
                   std::to_string(t.bits) + " bits has no stubjit element type");
}

// An object with __dlpack__ (PyTorch, JAX, CuPy, numpy): its tensor, where it lies. The
// capsule stays unconsumed in `keep`, so that its producer frees the tensor when the
// capsule goes (DLPack has no read-only flag: its producers refuse read-only arrays).
Field wrap_dlpack(Runtime& runtime, const py::handle& array, py::object& keep) {
  const py::object capsule = array.attr("__dlpack__")();
  auto* tensor = static_cast<const DlTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (tensor == nullptr) throw py::error_already_set();
  keep = capsule;
  const std::string backend = runtime.backend_name();
  const std::int32_t device = tensor->device.device_type;
  const bool fits = (backend == "cpu" && (device == 1 || device == 3)) ||
                    (backend == "cuda" && (device == 2 || device == 13)) ||
                    (backend == "hip" && device == 10);
  if (!fits)
    throw ArgumentError("", "a DLPack tensor on device type " + std::to_string(device) +
                                " cannot be used by a " + backend + " runtime");
  const ElementType type = dlpack_type(tensor->dtype);
  std::vector<std::int64_t> extents(tensor->shape, tensor->shape + tensor->ndim);
  std::vector<std::int64_t> strides;  // none: compact row-major
  if (tensor->strides != nullptr) strides.assign(tensor->strides, tensor->strides + tensor->ndim);
  return runtime.wrap_memory(static_cast<char*>(tensor->data) + tensor->byte_offset, type, extents,
                             strides, true);
}

template <class T>
Arg number_as(const py::handle& value) {
  return Arg(value.cast<T>());
}

// An integer of T's range, or a cast_error: pybind11 converts every int to the wider
// C types, so the range is checked here.
template <class T>
T checked(const py::int_& integer) {
  if constexpr (std::is_signed_v<T>) {
    const auto wide = integer.cast<long long>();
    if (wide < static_cast<long long>(std::numeric_limits<T>::min()) ||
        wide > static_cast<long long>(std::numeric_limits<T>::max()))
      throw py::cast_error("out of range");
    return static_cast<T>(wide);
  } else {
    if (py::int_(0).attr("__gt__")(integer).cast<bool>()) throw py::cast_error("negative");
    const auto wide = integer.cast<unsigned long long>();
    if (wide > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
      throw py::cast_error("out of range");
    return static_cast<T>(wide);
  }
}

}  // namespace

ElementType element_type_of(const py::handle& dtype_like) {
  const py::object dtype = numpy().attr("dtype")(dtype_like);
  const std::string name = py::str(dtype.attr("name"));
  // A big-endian float32 is named float32 too: stubjit reads memory in the machine's order.
  if (!dtype.attr("isnative").cast<bool>())
    throw FieldError("an array of " + std::string(py::str(dtype)) +
                     " is not in this machine's byte order (convert it with "
                     "astype(dtype.newbyteorder('=')))");
  for (const TypeName& t : type_names)
    if (name == t.numpy) return t.type;
  if (name == "bfloat16") return ElementType::bfloat16;
  throw py::type_error("stubjit has no element type for numpy dtype " + name);
}

py::object dtype_of(ElementType type) {
  if (type == ElementType::bfloat16) return numpy().attr("dtype")("uint16");
  for (const TypeName& t : type_names)
    if (t.type == type) return numpy().attr("dtype")(t.numpy);
  throw py::type_error("no numpy dtype for this element type");
}

Field wrap_array(Runtime& runtime, const py::handle& array, py::object& keep) {
  if (py::hasattr(array, "__cuda_array_interface__")) {
    keep = py::reinterpret_borrow<py::object>(array);
    return wrap_cuda_array(runtime, array.attr("__cuda_array_interface__").cast<py::dict>());
  }
  if (!PyObject_CheckBuffer(array.ptr()) && py::hasattr(array, "__dlpack__"))
    return wrap_dlpack(runtime, array, keep);
  if (runtime.backend_name() != "cpu")
    throw ArgumentError("", "a host array on a " + runtime.backend_name() +
                                " runtime: pass a device array (__cuda_array_interface__) "
                                "or a stubjit.Field");
  // The export stays alive with the field (`keep`): the memory cannot be freed or the
  // object resized while it is used. Writable if the object allows.
  const py::memoryview view(py::reinterpret_borrow<py::object>(array));
  keep = view;
  const py::buffer_info info = py::reinterpret_borrow<py::buffer>(view).request();
  const bool writable = !view.attr("readonly").cast<bool>();
  // numpy's own dtype: a buffer's format string does not name complex types ("Zf").
  const ElementType type = element_type_of(numpy().attr("asarray")(view).attr("dtype"));
  if (static_cast<std::int64_t>(size_of(type)) != info.itemsize)
    throw FieldError("the array's elements are " + std::to_string(info.itemsize) +
                     " bytes, its type's " + std::to_string(size_of(type)));
  const std::vector<std::int64_t> extents(info.shape.begin(), info.shape.end());
  const std::vector<std::int64_t> byte_strides(info.strides.begin(), info.strides.end());
  return runtime.wrap_memory(info.ptr, type, extents, element_strides(byte_strides, info.itemsize),
                             writable);
}

Arg argument(Runtime& runtime, const Param& param, const py::handle& value, Field& holder,
             py::object& keep) {
  if (py::isinstance<Field>(value)) {
    holder = value.cast<Field>();
    return Arg(holder);
  }
  if (param.kind == ParamKind::field) {
    if (!PyObject_CheckBuffer(value.ptr()) && !py::hasattr(value, "__cuda_array_interface__") &&
        !py::hasattr(value, "__dlpack__"))
      throw ArgumentError(param.name, "parameter '" + param.name + "' is " + to_string(param) +
                                          " and takes an array or a stubjit.Field, not " +
                                          std::string(py::str(py::repr(value))));
    holder = wrap_array(runtime, value, keep);
    return Arg(holder);
  }
  // A scalar: the parameter's type decides, as a C++ caller's cast would; a value of
  // another kind (a float for an integer) is refused rather than truncated.
  const py::module_ np = numpy();
  const bool is_bool = py::isinstance<py::bool_>(value) || py::isinstance(value, np.attr("bool_"));
  const bool is_integer =
      !is_bool && (py::isinstance<py::int_>(value) || py::isinstance(value, np.attr("integer")));
  // A bool is a bool: not a number for a float or integer parameter.
  const bool is_real =
      is_integer || py::isinstance<py::float_>(value) || py::isinstance(value, np.attr("floating"));
  const bool is_complex =
      is_real || py::isinstance(value, np.attr("complexfloating")) || PyComplex_Check(value.ptr());
  const auto refuse = [&](const std::string& wanted) {
    return ArgumentError(param.name, "parameter '" + param.name + "' is a scalar " +
                                         name_of(param.type) + " and takes " + wanted + ", not " +
                                         std::string(py::str(py::repr(value))));
  };
  try {
    switch (param.type) {
      case ElementType::f32:
        if (is_real) return number_as<float>(value);
        throw refuse("a real number");
      case ElementType::f64:
        if (is_real) return number_as<double>(value);
        throw refuse("a real number");
      case ElementType::float16:
        if (is_real) return Arg(float16(value.cast<float>()));
        throw refuse("a real number");
      case ElementType::bfloat16:
        if (is_real) return Arg(bfloat16(value.cast<float>()));
        throw refuse("a real number");
      case ElementType::boolean:
        if (is_bool) return number_as<bool>(value);
        throw refuse("a bool");
      case ElementType::complex_f32:
        if (is_complex) return number_as<std::complex<float>>(value);
        throw refuse("a complex number");
      case ElementType::complex_f64:
        if (is_complex) return number_as<std::complex<double>>(value);
        throw refuse("a complex number");
      default:
        break;
    }
    if (!is_integer) throw refuse("an integer");
    // An integer that does not fit the parameter's type is refused (cast_error below).
    const py::int_ integer = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!integer) throw py::error_already_set();
    switch (param.type) {
      case ElementType::i32:
        return Arg(checked<std::int32_t>(integer));
      case ElementType::i64:
        return Arg(checked<std::int64_t>(integer));
      case ElementType::u32:
        return Arg(checked<std::uint32_t>(integer));
      case ElementType::u64:
        return Arg(checked<std::uint64_t>(integer));
      case ElementType::i8:
        return Arg(checked<std::int8_t>(integer));
      case ElementType::u8:
        return Arg(checked<std::uint8_t>(integer));
      case ElementType::i16:
        return Arg(checked<std::int16_t>(integer));
      case ElementType::u16:
        return Arg(checked<std::uint16_t>(integer));
      default:
        break;
    }
  } catch (const py::cast_error&) {
    throw refuse(std::string("a value of ") + name_of(param.type) + "'s range");
  }
  throw refuse("a value");
}

}  // namespace stubjit::python
