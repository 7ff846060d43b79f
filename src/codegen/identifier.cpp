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

bool is_integer_type(ElementType type) {
  switch (type) {
    case ElementType::i8:
    case ElementType::u8:
    case ElementType::i16:
    case ElementType::u16:
    case ElementType::i32:
    case ElementType::u32:
    case ElementType::i64:
    case ElementType::u64:
      return true;
    default:
      return false;
  }
}

// A shared array's extents: 1 to max_shared_rank, each a positive decimal literal below
// 2^31 or the name of an integer scalar parameter.
void check_shared(const KernelSource& source, const Param& param, const std::string& where) {
  if (param.extents.empty() || param.extents.size() > max_shared_rank) {
    throw SignatureError(where + " is a shared array with " + std::to_string(param.extents.size()) +
                         " extents; it needs 1 to " + std::to_string(max_shared_rank));
  }
  if (param.rank != static_cast<int>(param.extents.size()))
    throw SignatureError(where + " is a shared array whose rank is not its number of extents");
  if (param.access != Access::read_write)
    throw SignatureError(where + " is a shared array; shared arrays are read-write");
  for (const std::string& extent : param.extents) {
    const bool digits =
        !extent.empty() && extent.size() <= 10 &&
        std::all_of(extent.begin(), extent.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      const unsigned long long value = std::stoull(extent);
      if (value == 0 || value >= (1ULL << 31)) {
        throw SignatureError(where + " has extent " + extent +
                             "; a literal extent is 1 to 2147483647");
      }
      continue;
    }
    bool found = false;
    for (const Param& other : source.signature) {
      if (other.name != extent) continue;
      if (other.kind != ParamKind::scalar || !is_integer_type(other.type)) {
        throw SignatureError(where + " has extent '" + extent + "', which is " + to_string(other) +
                             "; an extent names an integer scalar parameter");
      }
      found = true;
    }
    if (!found) {
      throw SignatureError(where + " has extent '" + extent +
                           "': neither a positive integer nor a scalar parameter of the kernel");
    }
  }
}

bool is_blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n\f\v") == std::string::npos;
}

// The combiners each element type takes (signature.hpp's Combiner).
bool combiner_takes(Combiner combiner, ElementType type) {
  const bool complex = type == ElementType::complex_f32 || type == ElementType::complex_f64;
  const bool boolean = type == ElementType::boolean;
  switch (combiner) {
    case Combiner::sum:
    case Combiner::product:
      return !boolean;
    case Combiner::min:
    case Combiner::max:
      return !boolean && !complex;
    case Combiner::bit_and:
    case Combiner::bit_or:
    case Combiner::bit_xor:
      return boolean || is_integer_type(type);
    case Combiner::any:
    case Combiner::all:
      return boolean;
    case Combiner::custom:
      return true;
    case Combiner::none:
      return false;
  }
  return false;
}

// A reduction's result: a read-write field of rank 0 to max_field_rank - 1 (one less
// than a domain's), its combiner one its type takes, a custom one's expressions given.
void check_result(const Param& param, const std::string& where) {
  if (!is_valid(param.combiner)) {
    throw SignatureError(where + " has combiner " + number_of(param.combiner) +
                         ", which is no Combiner");
  }
  const bool custom = param.combiner == Combiner::custom;
  if (!param.is_result() || !custom) {
    if (!param.combine.empty() || !param.identity.empty()) {
      throw SignatureError(where +
                           " has a combine or identity expression; only a result with a custom "
                           "combiner has them");
    }
  }
  if (!is_valid(param.scan)) {
    throw SignatureError(where + " has scan kind " + number_of(param.scan) +
                         ", which is no ScanKind");
  }
  if (param.is_scan() && !param.is_result()) {
    throw SignatureError(where + " is a scan without a combiner (make it with scan<T>)");
  }
  if (!param.is_result()) return;
  if (param.is_scan() && param.rank != 0) {
    throw SignatureError(where + " is a scan of rank " + std::to_string(param.rank) +
                         "; a scan's parameter has rank 0 (its field has the domain's rank, one "
                         "element per index)");
  }
  if (param.kind != ParamKind::field || param.access != Access::read_write || param.mask) {
    throw SignatureError(where + " has a combiner; only a result (result<T>) has one");
  }
  if (param.rank >= max_field_rank) {
    throw SignatureError(where + " is a result of rank " + std::to_string(param.rank) +
                         "; a result has rank 0 (the whole domain) to " +
                         std::to_string(max_field_rank - 1) + " (one less than the domain's)");
  }
  if (!combiner_takes(param.combiner, param.type)) {
    throw SignatureError(where + " combines " + name_of(param.type) + " values with " +
                         name_of(param.combiner) + ", which does not take them");
  }
  if (custom && (is_blank(param.combine) || is_blank(param.identity))) {
    throw SignatureError(where +
                         " has a custom combiner; it needs a combine expression (over a and b) "
                         "and an identity expression");
  }
}

// A sort's keys: a read-write rank-0 field (not a mask or a result), its order one its
// type has, a custom one's expression given; a payload: a read-write rank-0 field.
void check_sort(const Param& param, const std::string& where) {
  if (!is_valid(param.sort)) {
    throw SignatureError(where + " has sort order " + number_of(param.sort) +
                         ", which is no SortOrder");
  }
  if (param.sort != SortOrder::custom && !param.less.empty()) {
    throw SignatureError(where +
                         " has a less expression; only a sort's keys with a custom order have one");
  }
  const bool plain_field = param.kind == ParamKind::field && param.access == Access::read_write &&
                           param.rank == 0 && !param.mask && !param.is_result();
  if (param.is_sort() && param.payload) {
    throw SignatureError(where + " is both a sort's keys and a payload");
  }
  if ((param.is_sort() || param.payload) && !plain_field) {
    throw SignatureError(where + (param.is_sort() ? " has a sort order" : " is marked a payload") +
                         " but is no read-write rank-0 field (" +
                         (param.is_sort() ? "sort<T>" : "payload<T>") + " makes one)");
  }
  const bool complex =
      param.type == ElementType::complex_f32 || param.type == ElementType::complex_f64;
  if ((param.sort == SortOrder::ascending || param.sort == SortOrder::descending) && complex) {
    throw SignatureError(where + " sorts " + name_of(param.type) + " keys " + name_of(param.sort) +
                         "; complex values have no order (give a less expression)");
  }
  if (param.sort == SortOrder::custom && is_blank(param.less)) {
    throw SignatureError(where +
                         " has a custom sort order; it needs a less expression (over a and b)");
  }
}

// A sort kernel: one sort parameter; payloads only beside it; no result, group, tile
// token, mask or filter (a sort moves every element of its pencils).
void check_sort_pattern(const KernelSource& source) {
  const Param* keys = nullptr;
  for (const Param& param : source.signature) {
    if (!param.is_sort()) continue;
    if (keys) {
      throw SignatureError("kernel '" + source.name + "' sorts two fields ('" + keys->name +
                           "' and '" + param.name + "'); a sort kernel has one sort<T>");
    }
    keys = &param;
  }
  for (const Param& param : source.signature) {
    const std::string where = "kernel '" + source.name + "': parameter '" + param.name + "'";
    if (!keys) {
      if (param.payload) {
        throw SignatureError(where +
                             " is a payload; payloads move with a sort's keys (add a sort<T>)");
      }
      continue;
    }
    if (param.is_result()) {
      throw SignatureError(where + " is a " + (param.is_scan() ? "scan" : "result") +
                           "; a sort kernel ('" + keys->name + "') has none");
    }
    if (param.kind == ParamKind::group || param.kind == ParamKind::tile_index ||
        param.kind == ParamKind::local_index) {
      throw SignatureError(where + " is a " + to_string(param) +
                           "; a sort kernel runs its body once per element, untiled");
    }
    if (param.mask) {
      throw SignatureError(where + " is a mask; a sort moves every element of its pencils");
    }
  }
  if (keys && !source.filter.empty()) {
    throw SignatureError("kernel '" + source.name +
                         "' has a filter; a sort moves every element of its pencils");
  }
}

// Which parameters go with which pattern: a group kernel (one group parameter) has no
// tile tokens, masks or filter; shared arrays belong to group kernels.
void check_pattern(const KernelSource& source) {
  const Param* group = nullptr;
  for (const Param& param : source.signature) {
    if (param.kind != ParamKind::group) continue;
    if (group) {
      throw SignatureError("kernel '" + source.name + "' has two group parameters ('" +
                           group->name + "' and '" + param.name + "'); a group kernel has one");
    }
    group = &param;
  }
  for (const Param& param : source.signature) {
    const std::string where = "kernel '" + source.name + "': parameter '" + param.name + "'";
    if (!group && param.kind == ParamKind::shared) {
      throw SignatureError(where +
                           " is a shared array; shared arrays belong to group kernels (add a "
                           "group parameter)");
    }
    if (group && (param.kind == ParamKind::tile_index || param.kind == ParamKind::local_index)) {
      throw SignatureError(where + " is a " + to_string(param) +
                           " token; a group kernel's groups are its domain's indices (tile "
                           "tokens are for tiled launches of per-element kernels)");
    }
    if (group && param.mask) {
      throw SignatureError(where +
                           " is a mask; masks filter the indices of per-element kernels, not "
                           "the groups of a group kernel");
    }
  }
  const Param* result = nullptr;
  for (const Param& param : source.signature) {
    if (!param.is_result()) continue;
    const std::string where = "kernel '" + source.name + "': parameter '" + param.name + "'";
    if (result) {
      throw SignatureError("kernel '" + source.name + "' has two results ('" + result->name +
                           "' and '" + param.name + "'); a reduce or scan kernel has one");
    }
    result = &param;
    if (group) {
      throw SignatureError(where +
                           " is a result; a reduce kernel runs its body per element, "
                           "and a group kernel per group: not both");
    }
  }
  for (const Param& param : source.signature) {
    // A split scan runs its body once per stage (docs/patterns.md): a write the body
    // made would be made twice, and a value it read back would differ between stages.
    if (result && result->is_scan() && &param != result && param.kind == ParamKind::field &&
        param.access == Access::read_write) {
      throw SignatureError("kernel '" + source.name + "': parameter '" + param.name +
                           "' is read-write; a scan kernel's body may run twice per index (once "
                           "per stage), so its only read-write parameter is its scan ('" +
                           result->name + "')");
    }
    if (result && (param.kind == ParamKind::tile_index || param.kind == ParamKind::local_index)) {
      throw SignatureError("kernel '" + source.name + "': parameter '" + param.name + "' is a " +
                           to_string(param) + " token; a reduce kernel is not tiled");
    }
  }
  if (group && !source.filter.empty()) {
    throw SignatureError("kernel '" + source.name +
                         "' has a filter; filters are for per-element kernels, not group kernels");
  }
}

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
      case ParamKind::tile_index:
      case ParamKind::local_index:
      case ParamKind::group:
        if (param.rank != 0) throw SignatureError(where + " is not a field and must have rank 0");
        break;
      case ParamKind::shared:
        check_shared(source, param, where);
        break;
    }
    if (param.kind != ParamKind::shared && !param.extents.empty())
      throw SignatureError(where + " has extents; only shared arrays have them");
    check_result(param, where);
    check_sort(param, where);
  }
  check_sort_pattern(source);
  check_pattern(source);
}

const Param* result_param(const KernelSource& source) {
  for (const Param& param : source.signature)
    if (param.is_result() || param.is_sort()) return &param;
  return nullptr;
}

bool is_group_kernel(const KernelSource& source) {
  for (const Param& param : source.signature)
    if (param.kind == ParamKind::group) return true;
  return false;
}

}  // namespace stubjit::detail
