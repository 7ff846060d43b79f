// Every failure stubjit reports is a stubjit::Error, so one catch clause covers the
// library; the derived types carry what a user needs to act on the failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "stubjit/export.hpp"

namespace stubjit {

class STUBJIT_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

// An invalid compute domain: rank out of range, negative count, zero step, or
// extents whose product or logical indices overflow 64 bits.
class STUBJIT_API DomainError : public Error {
 public:
  DomainError(int dimension, const std::string& message);
  // The offending dimension, or -1 when the domain as a whole is at fault.
  int dimension() const noexcept { return dimension_; }

 private:
  int dimension_;
};

// An invalid kernel description: a name that is not a safe identifier, a duplicate
// parameter, an unsupported rank.
class STUBJIT_API SignatureError : public Error {
 public:
  using Error::Error;
};

// An argument that does not match its parameter: count, kind, element type, rank,
// access, bounds of a projection.
class STUBJIT_API ArgumentError : public Error {
 public:
  ArgumentError(std::string parameter, const std::string& message);
  // Name of the parameter that did not match ("" when the argument count is wrong).
  const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string parameter_;
};

// A field bound to a read-write parameter that is also bound to another parameter
// of the same launch (the at-most-one-writable-alias rule).
class STUBJIT_API AliasError : public ArgumentError {
 public:
  AliasError(std::string parameter, std::string other_parameter, const std::string& message);
  const std::string& other_parameter() const noexcept { return other_; }

 private:
  std::string other_;
};

// The domain cannot be covered within the device limits, or a forced mode cannot
// cover it.
class STUBJIT_API PlanError : public Error {
 public:
  PlanError(std::string limit, std::uint64_t limit_value, const std::string& message);
  // Name of the limit that was exceeded, e.g. "max_grid[y]" or "max_dispatches".
  const std::string& limit() const noexcept { return limit_; }
  std::uint64_t limit_value() const noexcept { return limit_value_; }

 private:
  std::string limit_;
  std::uint64_t limit_value_;
};

// The run-time compiler rejected a stub. log() is the compiler's own output; lines
// inside the user's body are reported as "<kernel>.body:<line>:<col>", lines in the
// helper source as "<kernel>.helpers:<line>:<col>", lines in the filter as
// "<kernel>.filter:<line>:<col>".
class STUBJIT_API CompileError : public Error {
 public:
  CompileError(std::string kernel, std::string log, std::string source);
  const std::string& kernel() const noexcept { return kernel_; }
  const std::string& log() const noexcept { return log_; }
  // The complete generated source that failed, for reproduction.
  const std::string& source() const noexcept { return source_; }

 private:
  std::string kernel_;
  std::string log_;
  std::string source_;
};

// A backend could not be selected, loaded or driven.
class STUBJIT_API BackendError : public Error {
 public:
  using Error::Error;
};

// A dispatch failed after earlier dispatches of the same launch were issued: those
// ran, or are queued and will run, and cannot be taken back. Only a launch of several
// dispatches can end this way; stubjit checks every dispatch against the device and
// the loaded stub before issuing the first (docs/architecture.md, "All or nothing"),
// so it takes a failure of the driver itself.
class STUBJIT_API LaunchError : public BackendError {
 public:
  LaunchError(std::size_t issued, std::size_t total, const std::string& message);
  // Dispatches issued before the one that failed (they are the plan's first `issued`).
  std::size_t issued() const noexcept { return issued_; }
  std::size_t total() const noexcept { return total_; }

 private:
  std::size_t issued_;
  std::size_t total_;
};

// Misuse of a field: copy of the wrong size, a null field, a field of another runtime.
class STUBJIT_API FieldError : public Error {
 public:
  using Error::Error;
};

}  // namespace stubjit
