// The C API's last error: each thread's own, holding the typed details of the C++
// error that ended the call, and the conversions of the C enums.
#include <exception>
#include <new>
#include <string>

#include "capi/capi_handles.hpp"
#include "stubjit/error.hpp"

namespace stubjit::capi {
namespace {

// The strings stubjit_error points into.
struct LastError {
  stubjit_error view{};
  std::string message, parameter, other_parameter, limit, kernel, log, source;

  LastError() {
    reset(STUBJIT_OK, "");
    publish();  // "" before anything has failed, never NULL
  }

  void reset(stubjit_status status, std::string text) {
    message = std::move(text);
    parameter.clear();
    other_parameter.clear();
    limit.clear();
    kernel.clear();
    log.clear();
    source.clear();
    view = stubjit_error{};
    view.status = status;
    view.dimension = -1;
  }

  // After the strings are set: the pointers the caller reads.
  void publish() {
    view.message = message.c_str();
    view.parameter = parameter.c_str();
    view.other_parameter = other_parameter.c_str();
    view.limit = limit.c_str();
    view.kernel = kernel.c_str();
    view.log = log.c_str();
    view.source = source.c_str();
  }
};

LastError& last_error() {
  thread_local LastError error;
  return error;
}

}  // namespace

stubjit_status record_invalid(const std::string& message) noexcept {
  try {
    LastError& error = last_error();
    error.reset(STUBJIT_INVALID_ARGUMENT, message);
    error.publish();
  } catch (...) {  // out of memory for the message itself: the status still says it
  }
  return STUBJIT_INVALID_ARGUMENT;
}

stubjit_status record_current_exception() noexcept {
  LastError& error = last_error();
  try {
    try {
      throw;
    } catch (const InvalidArgument& invalid) {
      error.reset(STUBJIT_INVALID_ARGUMENT, invalid.message);
      // The most derived kinds first.
    } catch (const AliasError& alias) {
      error.reset(STUBJIT_ALIAS_ERROR, alias.what());
      error.parameter = alias.parameter();
      error.other_parameter = alias.other_parameter();
    } catch (const ArgumentError& argument) {
      error.reset(STUBJIT_ARGUMENT_ERROR, argument.what());
      error.parameter = argument.parameter();
    } catch (const LaunchError& launch) {
      error.reset(STUBJIT_LAUNCH_ERROR, launch.what());
      error.view.dispatches_issued = launch.issued();
      error.view.dispatches_total = launch.total();
    } catch (const BackendError& backend) {
      error.reset(STUBJIT_BACKEND_ERROR, backend.what());
    } catch (const PlanError& plan) {
      error.reset(STUBJIT_PLAN_ERROR, plan.what());
      error.limit = plan.limit();
      error.view.limit_value = plan.limit_value();
    } catch (const CompileError& compile) {
      error.reset(STUBJIT_COMPILE_ERROR, compile.what());
      error.kernel = compile.kernel();
      error.log = compile.log();
      error.source = compile.source();
    } catch (const DomainError& domain) {
      error.reset(STUBJIT_DOMAIN_ERROR, domain.what());
      error.view.dimension = domain.dimension();
    } catch (const SignatureError& signature) {
      error.reset(STUBJIT_SIGNATURE_ERROR, signature.what());
    } catch (const FieldError& field) {
      error.reset(STUBJIT_FIELD_ERROR, field.what());
    } catch (const Error& other) {
      error.reset(STUBJIT_ERROR, other.what());
    } catch (const std::bad_alloc&) {
      error.reset(STUBJIT_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& unexpected) {
      error.reset(STUBJIT_INTERNAL_ERROR, unexpected.what());
    } catch (...) {
      error.reset(STUBJIT_INTERNAL_ERROR, "an exception of unknown type");
    }
    error.publish();
  } catch (...) {
    // Copying the details ran out of memory: the status alone, no detail of an earlier
    // error left beside it (reset allocates nothing for an empty message).
    error.reset(STUBJIT_OUT_OF_MEMORY, std::string());
    error.publish();
  }
  return error.view.status;
}

// The C enums are compared as ints: a caller's value outside an enum's range must not be
// used as that enum in C++.
ElementType element_type(stubjit_type type) {
  switch (static_cast<int>(type)) {
    case STUBJIT_F32:
      return ElementType::f32;
    case STUBJIT_F64:
      return ElementType::f64;
    case STUBJIT_I32:
      return ElementType::i32;
    case STUBJIT_I64:
      return ElementType::i64;
    case STUBJIT_U32:
      return ElementType::u32;
    case STUBJIT_I8:
      return ElementType::i8;
    case STUBJIT_U8:
      return ElementType::u8;
    case STUBJIT_I16:
      return ElementType::i16;
    case STUBJIT_U16:
      return ElementType::u16;
    case STUBJIT_U64:
      return ElementType::u64;
    case STUBJIT_BOOL:
      return ElementType::boolean;
    case STUBJIT_FLOAT16:
      return ElementType::float16;
    case STUBJIT_BFLOAT16:
      return ElementType::bfloat16;
    case STUBJIT_COMPLEX_F32:
      return ElementType::complex_f32;
    case STUBJIT_COMPLEX_F64:
      return ElementType::complex_f64;
  }
  throw InvalidArgument{"unknown stubjit_type " + std::to_string(static_cast<int>(type))};
}

stubjit_type c_type(ElementType type) {
  for (int t = STUBJIT_F32; t <= STUBJIT_COMPLEX_F64; ++t)
    if (element_type(static_cast<stubjit_type>(t)) == type) return static_cast<stubjit_type>(t);
  throw InvalidArgument{"an element type the C API does not know"};
}

std::optional<Mode> forced_mode(stubjit_mode mode) {
  switch (static_cast<int>(mode)) {
    case STUBJIT_MODE_AUTO:
      return std::nullopt;
    case STUBJIT_MODE_DIRECT:
      return Mode::direct;
    case STUBJIT_MODE_SPREAD:
      return Mode::spread;
    case STUBJIT_MODE_MULTI:
      return Mode::multi;
  }
  throw InvalidArgument{"unknown stubjit_mode " + std::to_string(static_cast<int>(mode))};
}

stubjit_mode c_mode(Mode mode) {
  switch (mode) {
    case Mode::direct:
      return STUBJIT_MODE_DIRECT;
    case Mode::spread:
      return STUBJIT_MODE_SPREAD;
    case Mode::multi:
      return STUBJIT_MODE_MULTI;
  }
  return STUBJIT_MODE_AUTO;
}

Layout layout(stubjit_layout layout) {
  if (static_cast<int>(layout) == STUBJIT_ROW_MAJOR) return Layout::row_major;
  if (static_cast<int>(layout) == STUBJIT_COLUMN_MAJOR) return Layout::column_major;
  throw InvalidArgument{"unknown stubjit_layout " + std::to_string(static_cast<int>(layout))};
}

Order order(stubjit_order order) {
  if (static_cast<int>(order) == STUBJIT_ORDER_C) return Order::c;
  if (static_cast<int>(order) == STUBJIT_ORDER_FORTRAN) return Order::fortran;
  throw InvalidArgument{"unknown stubjit_order " + std::to_string(static_cast<int>(order))};
}

}  // namespace stubjit::capi

using namespace stubjit::capi;

extern "C" {

const stubjit_error* stubjit_last_error(void) { return &last_error().view; }

void stubjit_clear_error(void) {
  LastError& error = last_error();
  error.reset(STUBJIT_OK, "");
  error.publish();
}

const char* stubjit_status_name(stubjit_status status) {
  switch (status) {
    case STUBJIT_OK:
      return "STUBJIT_OK";
    case STUBJIT_ERROR:
      return "STUBJIT_ERROR";
    case STUBJIT_DOMAIN_ERROR:
      return "STUBJIT_DOMAIN_ERROR";
    case STUBJIT_SIGNATURE_ERROR:
      return "STUBJIT_SIGNATURE_ERROR";
    case STUBJIT_ARGUMENT_ERROR:
      return "STUBJIT_ARGUMENT_ERROR";
    case STUBJIT_ALIAS_ERROR:
      return "STUBJIT_ALIAS_ERROR";
    case STUBJIT_PLAN_ERROR:
      return "STUBJIT_PLAN_ERROR";
    case STUBJIT_COMPILE_ERROR:
      return "STUBJIT_COMPILE_ERROR";
    case STUBJIT_BACKEND_ERROR:
      return "STUBJIT_BACKEND_ERROR";
    case STUBJIT_LAUNCH_ERROR:
      return "STUBJIT_LAUNCH_ERROR";
    case STUBJIT_FIELD_ERROR:
      return "STUBJIT_FIELD_ERROR";
    case STUBJIT_INVALID_ARGUMENT:
      return "STUBJIT_INVALID_ARGUMENT";
    case STUBJIT_OUT_OF_MEMORY:
      return "STUBJIT_OUT_OF_MEMORY";
    case STUBJIT_INTERNAL_ERROR:
      return "STUBJIT_INTERNAL_ERROR";
  }
  return "unknown status";
}

const char* stubjit_version(void) { return STUBJIT_VERSION; }

size_t stubjit_type_size(stubjit_type type) {
  try {
    return stubjit::size_of(element_type(type));
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
