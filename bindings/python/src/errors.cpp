// stubjit's C++ errors as Python exceptions: each a subclass of stubjit.Error
// (stubjit/_errors.py) carrying the same details as attributes.
#include "errors.hpp"

#include <string>

#include "stubjit/error.hpp"

namespace stubjit::python {
namespace {

// Raises stubjit._errors.<name>(message) with the given attributes set.
template <class SetDetails>
void raise(const char* name, const std::exception& error, SetDetails&& set_details) {
  const py::object type = py::module_::import("stubjit._errors").attr(name);
  py::object instance = type(std::string(error.what()));
  set_details(instance);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void no_details(py::object&) {}

}  // namespace

void register_error_translation() {
  py::register_exception_translator([](std::exception_ptr thrown) {
    if (!thrown) return;
    try {
      std::rethrow_exception(thrown);
    } catch (const AliasError& e) {
      raise("AliasError", e, [&](py::object& o) {
        o.attr("parameter") = e.parameter();
        o.attr("other_parameter") = e.other_parameter();
      });
    } catch (const ArgumentError& e) {
      raise("ArgumentError", e, [&](py::object& o) { o.attr("parameter") = e.parameter(); });
    } catch (const LaunchError& e) {
      raise("LaunchError", e, [&](py::object& o) {
        o.attr("issued") = e.issued();
        o.attr("total") = e.total();
      });
    } catch (const BackendError& e) {
      raise("BackendError", e, no_details);
    } catch (const PlanError& e) {
      raise("PlanError", e, [&](py::object& o) {
        o.attr("limit") = e.limit();
        o.attr("limit_value") = e.limit_value();
      });
    } catch (const CompileError& e) {
      raise("CompileError", e, [&](py::object& o) {
        o.attr("kernel") = e.kernel();
        o.attr("log") = e.log();
        o.attr("source") = e.source();
      });
    } catch (const DomainError& e) {
      raise("DomainError", e, [&](py::object& o) { o.attr("dimension") = e.dimension(); });
    } catch (const SignatureError& e) {
      raise("SignatureError", e, no_details);
    } catch (const FieldError& e) {
      raise("FieldError", e, no_details);
    } catch (const Error& e) {
      raise("Error", e, no_details);
    }
  });
}

}  // namespace stubjit::python
