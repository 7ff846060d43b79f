#include "stubjit/signature.hpp"

#include <string>

namespace stubjit {

Param index(std::string name) {
  return Param{ParamKind::index, std::move(name), ElementType::i64, 0, Access::read_only};
}

Param tile_index(std::string name) {
  return Param{ParamKind::tile_index, std::move(name), ElementType::i64, 0, Access::read_only};
}

Param local_index(std::string name) {
  return Param{ParamKind::local_index, std::move(name), ElementType::i64, 0, Access::read_only};
}

Param group(std::string name) {
  return Param{ParamKind::group, std::move(name), ElementType::i64, 0, Access::read_only};
}

const char* name_of(ScanKind kind) noexcept {
  switch (kind) {
    case ScanKind::none:
      return "none";
    case ScanKind::inclusive:
      return "inclusive";
    case ScanKind::exclusive:
      return "exclusive";
  }
  return "?";
}

const char* name_of(SortOrder order) noexcept {
  switch (order) {
    case SortOrder::none:
      return "none";
    case SortOrder::ascending:
      return "ascending";
    case SortOrder::descending:
      return "descending";
    case SortOrder::custom:
      return "custom";
  }
  return "?";
}

const char* name_of(Combiner combiner) noexcept {
  switch (combiner) {
    case Combiner::none:
      return "none";
    case Combiner::sum:
      return "sum";
    case Combiner::product:
      return "product";
    case Combiner::min:
      return "min";
    case Combiner::max:
      return "max";
    case Combiner::bit_and:
      return "bit_and";
    case Combiner::bit_or:
      return "bit_or";
    case Combiner::bit_xor:
      return "bit_xor";
    case Combiner::any:
      return "any";
    case Combiner::all:
      return "all";
    case Combiner::custom:
      return "custom";
  }
  return "?";
}

namespace {

// A custom combiner's expressions, length-prefixed: the text is part of the kernel's
// identity, and no expression can read as another's end.
std::string length_prefixed(const std::string& text) {
  return std::to_string(text.size()) + ":" + text;
}

}  // namespace

std::string to_string(const Param& param) {
  if (param.kind == ParamKind::field && param.is_result()) {
    // A scan's kind where a result has its rank (a scan's field has the domain's).
    std::string text = param.is_scan()
                           ? std::string("scan<") + name_of(param.type) + ", " +
                                 name_of(param.combiner) + ", " + name_of(param.scan)
                           : std::string("result<") + name_of(param.type) + ", " +
                                 name_of(param.combiner) + ", rank " + std::to_string(param.rank);
    if (param.combiner == Combiner::custom)
      text += ", " + length_prefixed(param.combine) + ", " + length_prefixed(param.identity);
    return text + "> " + param.name;
  }
  if (param.kind == ParamKind::field && param.is_sort()) {
    std::string text = std::string("sort<") + name_of(param.type) + ", " + name_of(param.sort);
    if (param.sort == SortOrder::custom) text += ", " + length_prefixed(param.less);
    return text + "> " + param.name;
  }
  if (param.kind == ParamKind::field && param.payload)
    return std::string("payload<") + name_of(param.type) + "> " + param.name;
  switch (param.kind) {
    case ParamKind::scalar:
      return std::string(param.specialized ? "specialized<" : "scalar<") + name_of(param.type) +
             "> " + param.name;
    case ParamKind::field:
      if (param.mask) return std::string("mask<") + name_of(param.type) + "> " + param.name;
      return std::string("field<") + name_of(param.type) + ", rank " + std::to_string(param.rank) +
             ", " + (param.access == Access::read_write ? "read_write" : "read_only") + "> " +
             param.name;
    case ParamKind::index:
      return "index " + param.name;
    case ParamKind::tile_index:
      return "tile_index " + param.name;
    case ParamKind::local_index:
      return "local_index " + param.name;
    case ParamKind::group:
      return "group " + param.name;
    case ParamKind::shared: {
      std::string text = std::string("shared<") + name_of(param.type) + ">";
      for (const std::string& extent : param.extents) text += "[" + extent + "]";
      return text + " " + param.name;
    }
  }
  return param.name;
}

const char* name_of(Binding binding) noexcept {
  switch (binding) {
    case Binding::scalar:
      return "scalar";
    case Binding::broadcast:
      return "broadcast";
    case Binding::projection:
      return "projection";
    case Binding::index:
      return "index";
  }
  return "?";
}

}  // namespace stubjit
