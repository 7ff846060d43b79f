#include "stubjit/error.hpp"

#include <utility>

namespace stubjit {

Error::Error(const std::string& message) : std::runtime_error(message) {}

DomainError::DomainError(int dimension, const std::string& message)
    : Error(message), dimension_(dimension) {}

ArgumentError::ArgumentError(std::string parameter, const std::string& message)
    : Error(message), parameter_(std::move(parameter)) {}

AliasError::AliasError(std::string parameter, std::string other_parameter,
                       const std::string& message)
    : ArgumentError(std::move(parameter), message), other_(std::move(other_parameter)) {}

PlanError::PlanError(std::string limit, std::uint64_t limit_value, const std::string& message)
    : Error(message), limit_(std::move(limit)), limit_value_(limit_value) {}

LaunchError::LaunchError(std::size_t issued, std::size_t total, const std::string& message)
    : BackendError(message), issued_(issued), total_(total) {}

CompileError::CompileError(std::string kernel, std::string log, std::string source)
    : Error("kernel '" + kernel + "' failed to compile:\n" + log),
      kernel_(std::move(kernel)),
      log_(std::move(log)),
      source_(std::move(source)) {}

}  // namespace stubjit
