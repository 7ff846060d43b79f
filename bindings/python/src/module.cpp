// The _stubjit extension: stubjit's C++ runtime for Python (bindings/python/stubjit
// re-exports it with the error classes). Every class and function has a docstring.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "errors.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::python {
namespace {

// --- domains --------------------------------------------------------------------------

Order order_of(const std::string& order) {
  if (order == "C" || order == "c") return Order::c;
  if (order == "F" || order == "f" || order == "fortran") return Order::fortran;
  throw py::value_error("order is \"C\" or \"F\", not \"" + order + "\"");
}

// A domain from what Python callers write: a stubjit.Domain, an int, or a sequence of
// counts (a numpy shape).
Domain domain_of(const py::handle& value) {
  if (py::isinstance<Domain>(value)) return value.cast<Domain>();
  if (py::isinstance<py::int_>(value))
    return Domain(std::vector<Dim>{{0, value.cast<std::int64_t>(), 1}});
  std::vector<Dim> dims;
  for (const py::handle count : value) dims.push_back({0, count.cast<std::int64_t>(), 1});
  return Domain(dims);
}

// --- kernel parameters ----------------------------------------------------------------

Param make_param(ParamKind kind, const std::string& name, const py::handle& dtype, int rank,
                 Access access) {
  Param p;
  p.kind = kind;
  p.name = name;
  p.type = dtype.is_none() ? ElementType::f32 : element_type_of(dtype);
  p.rank = rank;
  p.access = access;
  return p;
}

Combiner combiner_of(const std::string& name) {
  for (Combiner c :
       {Combiner::sum, Combiner::product, Combiner::min, Combiner::max, Combiner::bit_and,
        Combiner::bit_or, Combiner::bit_xor, Combiner::any, Combiner::all})
    if (name == name_of(c)) return c;
  throw py::value_error("no combiner is named \"" + name +
                        "\" (sum, product, min, max, bit_and, bit_or, bit_xor, any, all)");
}

Param result_param(const std::string& name, const py::handle& dtype, const std::string& combiner,
                   int rank, const std::optional<std::string>& combine,
                   const std::optional<std::string>& identity) {
  Param p = make_param(ParamKind::field, name, dtype, rank, Access::read_write);
  if (combine || identity) {
    if (!combine || !identity)
      throw py::value_error("a custom combiner needs both combine and identity");
    p.combiner = Combiner::custom;
    p.combine = *combine;
    p.identity = *identity;
  } else {
    p.combiner = combiner_of(combiner);
  }
  return p;
}

// --- launches ---------------------------------------------------------------------------

std::optional<Mode> mode_of(const std::optional<std::string>& mode) {
  if (!mode) return std::nullopt;
  for (Mode m : {Mode::direct, Mode::spread, Mode::multi})
    if (*mode == name_of(m)) return m;
  throw py::value_error("mode is \"direct\", \"spread\" or \"multi\", not \"" + *mode + "\"");
}

LaunchOptions launch_options(const py::kwargs& options) {
  LaunchOptions o;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (name == "mode") {
      o.mode = mode_of(value.cast<std::optional<std::string>>());
    } else if (name == "stream") {
      if (!value.is_none()) o.stream = &value.cast<const Stream&>();
    } else if (name == "group_size") {
      o.group_size = value.cast<std::uint32_t>();
    } else if (name == "tile") {
      if (!value.is_none()) {
        Tile tile;
        for (const py::handle extent : value) {
          if (tile.rank < tile.extents.size())
            tile.extents[tile.rank] = extent.cast<std::uint32_t>();
          ++tile.rank;
        }
        o.tile = tile;
      }
    } else if (name == "reduce_dimension") {
      o.reduce_dimension = value.cast<int>();
    } else if (name == "reduce_update") {
      const std::string update = py::str(value);
      if (update != "combine" && update != "assign")
        throw py::value_error("reduce_update is \"combine\" or \"assign\"");
      o.reduce_update = update == "assign" ? ReduceUpdate::assign : ReduceUpdate::combine;
    } else {
      throw py::type_error("unknown launch option '" + name +
                           "' (mode, stream, group_size, tile, reduce_dimension, "
                           "reduce_update)");
    }
  }
  return o;
}

// The arguments of a launch: one per parameter that takes one, in order, each converted
// for its parameter. `held` keeps the wrapped arrays alive for the call.
struct Held {
  std::vector<Field> fields;     // the wrapped arrays' fields
  std::vector<py::object> keep;  // their buffer exports or device arrays
};

std::vector<Arg> arguments(Runtime& runtime, const Kernel& kernel, const py::args& values,
                           Held& held, bool without_result) {
  std::vector<const Param*> takes;
  for (const Param& p : kernel.signature())
    if (takes_argument(p) && !(without_result && p.is_result())) takes.push_back(&p);
  if (values.size() != takes.size())
    throw ArgumentError("", "kernel '" + kernel.name() + "' takes " + std::to_string(takes.size()) +
                                " arguments, got " + std::to_string(values.size()));
  // Sized once: each Arg points at its Field.
  held.fields.resize(values.size());
  held.keep.resize(values.size());
  std::vector<Arg> args;
  for (std::size_t i = 0; i < values.size(); ++i)
    args.push_back(argument(runtime, *takes[i], values[i], held.fields[i], held.keep[i]));
  return args;
}

// A kernel with the runtime it was made by (needed to wrap arrays).
struct PyKernel {
  Runtime runtime;
  Kernel kernel;
};

LaunchSummary launch(PyKernel& k, const py::object& domain, const py::args& values,
                     const py::kwargs& options) {
  Held held;  // the wrapped arrays, alive until the call returns
  const std::vector<Arg> args = arguments(k.runtime, k.kernel, values, held, false);
  const Domain d = domain_of(domain);
  const LaunchOptions o = launch_options(options);
  py::gil_scoped_release unlocked;
  return k.kernel.launch_args(d, args.data(), args.size(), o);
}

py::object reduce_value(PyKernel& k, const py::object& domain, const py::args& values,
                        const py::kwargs& options) {
  const Param* result = nullptr;
  for (const Param& p : k.kernel.signature())
    if (p.is_result()) result = &p;
  if (result == nullptr)
    throw ArgumentError("", "kernel '" + k.kernel.name() + "' has no result to reduce");
  Held held;  // the wrapped arrays, alive until the call returns
  const std::vector<Arg> args = arguments(k.runtime, k.kernel, values, held, true);
  alignas(16) unsigned char value[16] = {};
  const Domain d = domain_of(domain);
  const LaunchOptions o = launch_options(options);
  {
    py::gil_scoped_release unlocked;
    k.kernel.reduce_args(d, args.data(), args.size(), o, result->type, value);
  }
  // The value as a numpy scalar of the result's type.
  const py::object dtype = dtype_of(result->type);
  const py::bytes raw(reinterpret_cast<const char*>(value), size_of(result->type));
  return py::module_::import("numpy").attr("frombuffer")(raw, dtype)[py::int_(0)];
}

// --- fields -----------------------------------------------------------------------------

// A numpy array laid out as the field is (its strides), so that the field's bytes copy
// straight in or out: a column-major field gives a Fortran-ordered array.
py::array array_like(const Field& field) {
  const auto itemsize = static_cast<py::ssize_t>(size_of(field.type()));
  std::vector<py::ssize_t> shape, strides;
  for (int d = 0; d < field.rank(); ++d) {
    shape.push_back(field.extent(d));
    strides.push_back(field.stride(d) * itemsize);
  }
  return py::array(dtype_of(field.type()), shape, strides);
}

py::object to_numpy(const Field& field) {
  if (!field.dense())
    throw FieldError(
        "to_numpy copies a dense field; this one is a view with gaps or "
        "negative strides (copy it with a kernel first)");
  py::array out = array_like(field);
  field.copy_to_bytes(out.mutable_data(), static_cast<std::size_t>(out.nbytes()));
  return std::move(out);
}

void copy_from_numpy(Field& field, const py::handle& values) {
  const py::array array = py::array::ensure(values);
  if (!array) throw py::type_error("copy_from takes an array");
  if (element_type_of(array.dtype()) != field.type())
    throw FieldError("copy_from: the array's dtype is " + std::string(py::str(array.dtype())) +
                     ", the field's " + name_of(field.type()));
  std::vector<std::int64_t> shape(array.shape(), array.shape() + array.ndim());
  if (shape != field.extents())
    throw FieldError("copy_from: the array's shape " + std::string(py::str(py::cast(shape))) +
                     " is not the field's " + std::string(py::str(py::cast(field.extents()))));
  if (!field.dense())
    throw FieldError("copy_from fills a dense field; this one is a view with gaps");
  py::array staging = array_like(field);  // in the field's order, element for element
  py::module_::import("numpy").attr("copyto")(staging, array);
  field.copy_from_bytes(staging.data(), static_cast<std::size_t>(staging.nbytes()));
}

// Limits to plan with instead of the device's (RuntimeOptions::limits): a dict of some of
// max_grid, max_block (3 each), max_threads_per_block, warp_size, max_shared_bytes; the
// others keep DeviceLimits' defaults.
DeviceLimits limits_of(const py::dict& given) {
  DeviceLimits l;
  for (const auto& [key, value] : given) {
    const std::string name = py::str(key);
    if (name == "max_grid") {
      l.max_grid = value.cast<std::array<std::uint64_t, 3>>();
    } else if (name == "max_block") {
      l.max_block = value.cast<std::array<std::uint32_t, 3>>();
    } else if (name == "max_threads_per_block") {
      l.max_threads_per_block = value.cast<std::uint32_t>();
    } else if (name == "warp_size") {
      l.warp_size = value.cast<std::uint32_t>();
    } else if (name == "max_shared_bytes") {
      l.max_shared_bytes = value.cast<std::uint32_t>();
    } else {
      throw py::type_error("unknown limit '" + name +
                           "' (max_grid, max_block, max_threads_per_block, warp_size, "
                           "max_shared_bytes)");
    }
  }
  return l;
}

RuntimeOptions runtime_options(const py::kwargs& options) {
  RuntimeOptions o;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;
    if (name == "backend")
      o.backend = value.cast<std::string>();
    else if (name == "target")
      o.target = value.cast<std::string>();
    else if (name == "device")
      o.device = value.cast<int>();
    else if (name == "cache_dir")
      o.cache_dir = value.cast<std::string>();
    else if (name == "cache_layers")
      o.cache_layers = value.cast<std::vector<std::string>>();
    else if (name == "disk_cache")
      o.disk_cache = value.cast<bool>();
    else if (name == "cache_max_bytes")
      o.cache_max_bytes = value.cast<std::uint64_t>();
    else if (name == "compile_timeout")
      o.compile_timeout =
          std::chrono::milliseconds(static_cast<std::int64_t>(value.cast<double>() * 1000.0));
    else if (name == "memory_cache_stubs")
      o.memory_cache_stubs = value.cast<std::size_t>();
    else if (name == "cpu_threads")
      o.cpu_threads = value.cast<unsigned>();
    else if (name == "fuse_dimensions")
      o.fuse_dimensions = value.cast<bool>();
    else if (name == "specialize_short_rows")
      o.specialize_short_rows = value.cast<bool>();
    else if (name == "compiler_options")
      o.compiler_options = value.cast<std::vector<std::string>>();
    else if (name == "include_directories")
      o.include_directories = value.cast<std::vector<std::string>>();
    else if (name == "dump_dir")
      o.dump_dir = value.cast<std::string>();
    else if (name == "limits")
      o.limits = limits_of(value.cast<py::dict>());
    else
      throw py::type_error("unknown runtime option '" + name + "' (docs/python.md)");
  }
  return o;
}

}  // namespace
}  // namespace stubjit::python

using namespace stubjit;
using namespace stubjit::python;

PYBIND11_MODULE(_stubjit, m) {
  m.doc() = "stubjit: run-time kernel specialization (the C++ runtime; import stubjit).";
  register_error_translation();

  py::class_<Domain>(m, "Domain", R"(A compute domain: an N-D box of logical indices.

Domain(dims, order="C"): dims is a sequence of counts (first 0, step 1) or of
(first, count, step) tuples; order "C" makes the last dimension fastest (row-major
arrays), "F" the first (column-major). Dimension d binds dimension d of the arrays the
kernel projects, whatever the order. Domain.loops takes a loop nest as written.)")
      .def(py::init([](const py::sequence& dims, const std::string& order) {
             std::vector<Dim> converted;
             for (const py::handle d : dims) {
               if (py::isinstance<py::int_>(d)) {
                 converted.push_back({0, d.cast<std::int64_t>(), 1});
               } else {
                 const auto t = d.cast<std::vector<std::int64_t>>();
                 if (t.size() != 3)
                   throw py::value_error("a dimension is a count or (first, count, step)");
                 converted.push_back({t[0], t[1], t[2]});
               }
             }
             return Domain(converted, order_of(order));
           }),
           py::arg("dims"), py::arg("order") = "C")
      .def_static(
          "loops",
          [](const std::vector<std::vector<std::int64_t>>& loops, const std::string& order) {
            std::vector<Loop> converted;
            for (const auto& l : loops) {
              if (l.size() != 2 && l.size() != 3)
                throw py::value_error("a loop is (first, last) or (first, last, step)");
              converted.push_back({l[0], l[1], l.size() == 3 ? l[2] : 1});
            }
            return Domain::loops(converted, order_of(order));
          },
          py::arg("loops"), py::arg("order") = "C",
          R"(A loop nest as written, outermost loop first: each (first, last[, step]) with
last inclusive, as Fortran's DO. In order "F" the dimensions are the loops innermost first
(the index token's i[0] is the innermost loop's index).)")
      .def_property_readonly("rank", &Domain::rank, "The number of dimensions.")
      .def_property_readonly("size", &Domain::size, "The number of indices.")
      .def("__repr__", [](const Domain& d) { return "stubjit.Domain(" + d.to_string() + ")"; });

  py::class_<Param>(m, "Param", "A kernel parameter; made by scalar(), in_(), inout(), ...")
      .def_readonly("name", &Param::name)
      .def_readonly("rank", &Param::rank)
      .def("__repr__", [](const Param& p) { return to_string(p); });

  m.def(
      "scalar",
      [](const std::string& name, const py::object& dtype) {
        return make_param(ParamKind::scalar, name, dtype, 0, Access::read_only);
      },
      py::arg("name"), py::arg("dtype"), "A scalar broadcast to every index: T name.");
  m.def(
      "specialized",
      [](const std::string& name, const py::object& dtype) {
        Param p = make_param(ParamKind::scalar, name, dtype, 0, Access::read_only);
        p.specialized = true;
        return p;
      },
      py::arg("name"), py::arg("dtype"),
      "A scalar compiled into the stub as a constant: one stub per value.");
  m.def(
      "in_",
      [](const std::string& name, const py::object& dtype, int rank) {
        return make_param(ParamKind::field, name, dtype, rank, Access::read_only);
      },
      py::arg("name"), py::arg("dtype"), py::arg("rank") = 0,
      "A read-only array parameter; rank 0: one element per index (the body sees T), "
      "rank R: a view of R dimensions (name(i, j), name.extent(d)).");
  m.def(
      "inout",
      [](const std::string& name, const py::object& dtype, int rank) {
        return make_param(ParamKind::field, name, dtype, rank, Access::read_write);
      },
      py::arg("name"), py::arg("dtype"), py::arg("rank") = 0,
      "A read-write array parameter; rank 0: one element per index (T&).");
  m.def(
      "mask",
      [](const std::string& name, const py::object& dtype) {
        Param p = make_param(ParamKind::field, name, dtype, 0, Access::read_only);
        p.mask = true;
        return p;
      },
      py::arg("name"), py::arg("dtype"),
      "A read-only array whose zero elements filter their indices out.");
  m.def("index", &stubjit::index, py::arg("name"),
        "The logical index of the point: name[d], name.rank. Takes no argument.");
  m.def("tile_index", &stubjit::tile_index, py::arg("name"),
        "A tiled launch's tile index. Takes no argument.");
  m.def("local_index", &stubjit::local_index, py::arg("name"),
        "A tiled launch's position in the tile. Takes no argument.");
  m.def("group", &stubjit::group, py::arg("name"),
        "The work-group handle: makes the kernel a group kernel (docs/groups.md).");
  m.def(
      "shared",
      [](const std::string& name, const py::object& dtype, const py::sequence& extents) {
        Param p = make_param(ParamKind::shared, name, dtype, 0, Access::read_write);
        for (const py::handle e : extents) p.extents.push_back(py::str(e));
        p.rank = static_cast<int>(p.extents.size());
        return p;
      },
      py::arg("name"), py::arg("dtype"), py::arg("extents"),
      "A group-shared array of a group kernel; extents are integers or names of integer "
      "scalar parameters.");
  m.def("result", &result_param, py::arg("name"), py::arg("dtype"), py::arg("combiner") = "sum",
        py::arg("rank") = 0, py::arg("combine") = py::none(), py::arg("identity") = py::none(),
        "A reduction's result: combiner sum, product, min, max, bit_and, bit_or, bit_xor, "
        "any or all, or combine and identity expressions; rank 0 (the whole domain) or the "
        "domain's rank - 1.");
  m.def(
      "scan",
      [](const std::string& name, const py::object& dtype, const std::string& combiner,
         const std::string& kind, const std::optional<std::string>& combine,
         const std::optional<std::string>& identity) {
        Param p = result_param(name, dtype, combiner, 0, combine, identity);
        if (kind != "inclusive" && kind != "exclusive")
          throw py::value_error("kind is \"inclusive\" or \"exclusive\"");
        p.scan = kind == "inclusive" ? ScanKind::inclusive : ScanKind::exclusive;
        return p;
      },
      py::arg("name"), py::arg("dtype"), py::arg("combiner") = "sum", py::arg("kind") = "inclusive",
      py::arg("combine") = py::none(), py::arg("identity") = py::none(),
      "A scan's output: each element receives its prefix.");
  m.def(
      "sort",
      [](const std::string& name, const py::object& dtype, const std::string& order,
         const std::optional<std::string>& less) {
        Param p = make_param(ParamKind::field, name, dtype, 0, Access::read_write);
        if (less) {
          p.sort = SortOrder::custom;
          p.less = *less;
        } else if (order == "ascending" || order == "descending") {
          p.sort = order == "ascending" ? SortOrder::ascending : SortOrder::descending;
        } else {
          throw py::value_error("order is \"ascending\" or \"descending\" (or give less)");
        }
        return p;
      },
      py::arg("name"), py::arg("dtype"), py::arg("order") = "ascending",
      py::arg("less") = py::none(), "A sort's keys: sorted along the domain's last dimension.");
  m.def(
      "payload",
      [](const std::string& name, const py::object& dtype) {
        Param p = make_param(ParamKind::field, name, dtype, 0, Access::read_write);
        p.payload = true;
        return p;
      },
      py::arg("name"), py::arg("dtype"), "A sort's payload: its elements move with the keys.");

  py::class_<Field>(m, "Field", R"(An array of the runtime's device (or host memory it
wraps). Runtime.allocate makes one, Runtime.wrap wraps an array without copying.)")
      .def_property_readonly("shape",
                             [](const Field& f) { return py::tuple(py::cast(f.extents())); })
      .def_property_readonly(
          "strides", [](const Field& f) { return py::tuple(py::cast(f.strides())); },
          "Strides in elements.")
      .def_property_readonly("dtype", [](const Field& f) { return dtype_of(f.type()); })
      .def_property_readonly("writable", &Field::writable)
      .def_property_readonly(
          "data_ptr", [](const Field& f) { return reinterpret_cast<std::uintptr_t>(f.data()); },
          "The address of the first element (device memory on a GPU backend).")
      .def("to_numpy", &to_numpy,
           "A copy of a dense field as a new numpy array in the field's own order.")
      .def("copy_from", &copy_from_numpy, py::arg("array"),
           "Copies an array of the field's dtype and shape (any order) into a dense field.")
      // A view keeps its field (and so the array it wraps) alive.
      .def("transpose", &Field::transpose, py::arg("d1"), py::arg("d2"), py::keep_alive<0, 1>(),
           "A transposed view.")
      .def("section", &Field::section, py::arg("dim"), py::arg("first"), py::arg("last"),
           py::arg("step") = 1, py::keep_alive<0, 1>(),
           "A view of first..last (inclusive) by step along dim.")
      .def("slice", &Field::slice, py::arg("dim"), py::arg("index"), py::keep_alive<0, 1>(),
           "A view of one index along dim, one rank lower.");

  py::class_<Stream>(m, "Stream", "An ordered queue of work; Runtime.create_stream makes one.")
      .def("synchronize", &Stream::synchronize, py::call_guard<py::gil_scoped_release>(),
           "Waits for the work queued on this stream.");

  py::class_<LaunchSummary>(m, "LaunchSummary", "What a launch did.")
      .def_property_readonly("mode", [](const LaunchSummary& s) { return name_of(s.mode); })
      .def_readonly("rank", &LaunchSummary::rank, "The rank the stub ran at (after fusion).")
      .def_readonly("dispatches", &LaunchSummary::dispatches)
      .def_readonly("compiled", &LaunchSummary::compiled,
                    "This launch ran the compiler (False: found in memory or on disk).")
      .def_readonly("group_size", &LaunchSummary::group_size)
      .def_readonly("reduce_parts", &LaunchSummary::reduce_parts);

  py::class_<Plan>(m, "Plan", "How a domain is dispatched.")
      .def_property_readonly("mode", [](const Plan& p) { return name_of(p.mode); })
      .def_readonly("rank", &Plan::rank)
      .def_property_readonly("dispatches", [](const Plan& p) { return p.dispatches.size(); })
      .def("describe", &Plan::describe);

  py::class_<PyKernel>(m, "Kernel", R"(A kernel of one runtime. Call it (or .launch) with a
domain and one argument per parameter that takes one: numpy arrays for array parameters
(wrapped without copying on the CPU backend), numbers for scalars (converted to the
parameter's type; a float for an integer parameter is refused).)")
      .def_property_readonly("name", [](const PyKernel& k) { return k.kernel.name(); })
      .def("launch", &launch, py::arg("domain"),
           "Launches over domain; options: mode (\"direct\", \"spread\", \"multi\"), stream, "
           "group_size, tile, reduce_dimension, reduce_update (\"combine\", \"assign\"). "
           "Nothing runs when it raises.")
      .def("__call__", &launch, py::arg("domain"), "The same as launch.")
      .def(
          "prepare",
          [](PyKernel& k, const py::object& domain, const py::args& values,
             const py::kwargs& options) {
            Held held;  // the wrapped arrays, alive until the call returns
            const std::vector<Arg> args = arguments(k.runtime, k.kernel, values, held, false);
            return k.kernel.prepare_args(domain_of(domain), args.data(), args.size(),
                                         launch_options(options));
          },
          py::arg("domain"), "Compiles (or finds) the stub a launch would run; runs nothing.")
      .def("reduce", &reduce_value, py::arg("domain"),
           "A reduce kernel whose result has rank 0: its value over the whole domain, as a "
           "numpy scalar. The arguments leave out the result.")
      .def(
          "plan",
          [](const PyKernel& k, const py::object& domain, const std::optional<std::string>& mode) {
            return k.kernel.plan(domain_of(domain), mode_of(mode));
          },
          py::arg("domain"), py::arg("mode") = py::none(), "The plan for a domain, not launched.")
      .def(
          "stub_source",
          [](PyKernel& k, const py::object& domain, const py::args& values,
             const py::kwargs& options) {
            Held held;  // the wrapped arrays, alive until the call returns
            const std::vector<Arg> args = arguments(k.runtime, k.kernel, values, held, false);
            return k.kernel.stub_source(domain_of(domain), args, launch_options(options));
          },
          py::arg("domain"), "The generated source a launch with these arguments compiles.");

  py::class_<Runtime>(m, "Runtime", R"(One backend (cpu, cuda or hip), its kernels, arrays and
caches. Keyword options (all optional): backend, target, device, cache_dir, cache_layers
(a list of read-only cache directories), disk_cache, cache_max_bytes, compile_timeout (seconds), memory_cache_stubs, cpu_threads,
fuse_dimensions, specialize_short_rows, compiler_options, include_directories, dump_dir,
limits (a dict of max_grid, max_block, max_threads_per_block, warp_size, max_shared_bytes:
limits to plan with instead of the device's)
(RuntimeOptions in include/stubjit/runtime.hpp).)")
      .def(py::init([](const py::kwargs& options) { return Runtime(runtime_options(options)); }))
      .def_property_readonly("backend", &Runtime::backend_name)
      .def_property_readonly("target", &Runtime::target_id)
      .def_property_readonly("compiler", &Runtime::compiler_id)
      .def_property_readonly("cache_dir", &Runtime::cache_dir,
                             "The disk cache's root; \"\" when memory-only.")
      .def(
          "kernel",
          [](Runtime& runtime, const std::string& name, const std::vector<Param>& signature,
             const std::string& body, const std::string& helpers, const std::string& filter) {
            KernelSource source{name, signature, body, helpers};
            source.filter = filter;
            return PyKernel{runtime, runtime.kernel(std::move(source))};
          },
          py::arg("name"), py::arg("signature"), py::arg("body"), py::arg("helpers") = "",
          py::arg("filter") = "",
          "A kernel from a name, a list of parameters and a body (C++ statements); nothing "
          "compiles until the first launch.")
      .def(
          "allocate",
          [](Runtime& runtime, const std::vector<std::int64_t>& shape, const py::object& dtype,
             const std::string& order) {
            return runtime.allocate(
                element_type_of(dtype), shape,
                order_of(order) == Order::c ? Layout::row_major : Layout::column_major);
          },
          py::arg("shape"), py::arg("dtype"), py::arg("order") = "C",
          "A new array of the runtime's device, row-major (\"C\") or column-major (\"F\").")
      .def(
          "wrap",
          [](Runtime& runtime, const py::object& array) {
            py::object keep;
            py::object field = py::cast(wrap_array(runtime, array, keep));
            // The field keeps the export (and through it the array) alive.
            py::detail::keep_alive_impl(field, keep);
            return field;
          },
          py::arg("array"),
          "A field over an array's memory, without copying (numpy on the CPU backend, "
          "__cuda_array_interface__ on CUDA); the field keeps the array alive.")
      .def("create_stream", &Runtime::create_stream)
      .def("synchronize", &Runtime::synchronize, py::call_guard<py::gil_scoped_release>(),
           "Waits for all work of this runtime.")
      .def(
          "counters",
          [](const Runtime& runtime) {
            const CacheCounters c = runtime.counters();
            py::dict out;
            out["compiles"] = c.compiles;
            out["compile_failures"] = c.compile_failures;
            out["memory_hits"] = c.memory_hits;
            out["launches"] = c.launches;
            out["disk_hits"] = c.disk_hits;
            out["disk_writes"] = c.disk_writes;
            out["disk_rejected"] = c.disk_rejected;
            out["layer_hits"] = c.layer_hits;
            return out;
          },
          "The stub caches' counters, as a dict (waits for pending disk writes).");

  m.def(
      "probe_backends",
      [] {
        py::list out;
        for (const BackendStatus& s : Runtime::probe_backends())
          out.append(py::make_tuple(s.name, s.available, s.detail));
        return out;
      },
      "The backends and whether each can be used here: [(name, available, detail)].");
}
