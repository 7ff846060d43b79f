#include "codegen/identifier.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "stubjit/error.hpp"
#include "support/enums.hpp"

namespace stubjit::detail {
namespace {

// C++17 keywords and alternative tokens, plus the names CUDA and HIP predefine in
// device code that a parameter would shadow.
constexpr std::array<std::string_view, 99> reserved_words = {"alignas",      "alignof",
                                                             "and",          "and_eq",
                                                             "asm",          "auto",
                                                             "bitand",       "bitor",
                                                             "bool",         "break",
                                                             "case",         "catch",
                                                             "char",         "char16_t",
                                                             "char32_t",     "class",
                                                             "compl",        "const",
                                                             "constexpr",    "const_cast",
                                                             "continue",     "decltype",
                                                             "default",      "delete",
                                                             "do",           "double",
                                                             "dynamic_cast", "else",
                                                             "enum",         "explicit",
                                                             "export",       "extern",
                                                             "false",        "float",
                                                             "for",          "friend",
                                                             "goto",         "if",
                                                             "inline",       "int",
                                                             "long",         "mutable",
                                                             "namespace",    "new",
                                                             "noexcept",     "not",
                                                             "not_eq",       "nullptr",
                                                             "operator",     "or",
                                                             "or_eq",        "private",
                                                             "protected",    "public",
                                                             "register",     "reinterpret_cast",
                                                             "return",       "short",
                                                             "signed",       "sizeof",
                                                             "static",       "static_assert",
                                                             "static_cast",  "struct",
                                                             "switch",       "template",
                                                             "this",         "thread_local",
                                                             "throw",        "true",
                                                             "try",          "typedef",
                                                             "typeid",       "typename",
                                                             "union",        "unsigned",
                                                             "using",        "virtual",
                                                             "void",         "volatile",
                                                             "wchar_t",      "while",
                                                             "xor",          "xor_eq",
                                                             "char8_t",      "concept",
                                                             "requires",     "co_await",
                                                             "co_return",    "co_yield",
                                                             "consteval",    "constinit",
                                                             "import",       "module",
                                                             "threadIdx",    "blockIdx",
                                                             "blockDim",     "gridDim",
                                                             "warpSize"};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

std::string identifier_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > 128) return "is longer than 128 characters";
  if (!is_ident_start(name[0]) || !std::all_of(name.begin(), name.end(), is_ident_char))
    return "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (name.size() >= 2 && name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
    return "is reserved (names starting with __ or _ and a capital belong to the implementation)";
  if (name.substr(0, 7) == "stubjit")
    return "is reserved (names starting with 'stubjit' are stubjit's)";
  if (std::find(reserved_words.begin(), reserved_words.end(), name) != reserved_words.end())
    return "is a reserved word";
  return {};
}

void validate_kernel_source(const KernelSource& source) {
  if (const std::string problem = identifier_problem(source.name); !problem.empty())
    throw SignatureError("kernel name '" + source.name + "' " + problem);
  if (!source.filter.empty() &&
      source.filter.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    throw SignatureError("kernel '" + source.name +
                         "': the filter is blank (leave it empty to run every point)");
  }
  if (source.signature.size() > max_kernel_parameters) {
    throw SignatureError("kernel '" + source.name + "' has " +
                         std::to_string(source.signature.size()) + " parameters; at most " +
                         std::to_string(max_kernel_parameters) + " are allowed");
  }
  std::set<std::string> seen;
  std::size_t specialized = 0;
  if (!is_valid(source.specialize)) {
    throw SignatureError("kernel '" + source.name + "': specialize is " +
                         number_of(source.specialize) + ", which is no Specialize");
  }
  for (const Param& param : source.signature) {
    const std::string where = "kernel '" + source.name + "': parameter '" + param.name + "'";
    if (const std::string problem = identifier_problem(param.name); !problem.empty())
      throw SignatureError(where + " " + problem);
    if (!seen.insert(param.name).second) throw SignatureError(where + " appears twice");
    if (!is_valid(param.kind))
      throw SignatureError(where + " has kind " + number_of(param.kind) +
                           ", which is no ParamKind");
    if (!is_valid(param.type)) {
      throw SignatureError(where + " has element type " + number_of(param.type) +
                           ", which is no ElementType");
    }
    if (!is_valid(param.access))
      throw SignatureError(where + " has access " + number_of(param.access) +
                           ", which is no Access");
    if (param.name == source.name) throw SignatureError(where + " has the kernel's own name");
    if (param.specialized && param.kind != ParamKind::scalar)
      throw SignatureError(where + " is marked specialized; only scalar parameters can be");
    if (param.specialized && ++specialized > max_specialized_parameters) {
      throw SignatureError(where + " is specialized parameter " + std::to_string(specialized) +
                           "; at most " + std::to_string(max_specialized_parameters) +
                           " are allowed");
    }
    if (param.mask &&
        (param.kind != ParamKind::field || param.rank != 0 || param.access != Access::read_only)) {
      throw SignatureError(where + " is marked a mask; a mask is a read-only rank-0 field " +
                           "(mask<T>)");
    }
    if (param.mask &&
        (param.type == ElementType::complex_f32 || param.type == ElementType::complex_f64)) {
      throw SignatureError(where + " is a mask of " + name_of(param.type) +
                           "; a mask's elements compare with zero: a real type or bool");
    }
    switch (param.kind) {
      case ParamKind::field:
        if (param.rank < 0 || param.rank > max_field_rank)
          throw SignatureError(where + " has rank " + std::to_string(param.rank) +
                               "; field parameters have rank 0.." + std::to_string(max_field_rank));
        break;
      case ParamKind::scalar:
      case ParamKind::index:
        if (param.rank != 0) throw SignatureError(where + " is not a field and must have rank 0");
        break;
    }
  }
}

}  // namespace stubjit::detail
