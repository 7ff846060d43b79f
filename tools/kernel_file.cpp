#include "kernel_file.hpp"

#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

namespace stubjit::tool {
namespace {

using json = nlohmann::ordered_json;

ElementType element_type(const std::string& name, const std::string& where) {
  if (name == "float" || name == "f32") return ElementType::f32;
  if (name == "double" || name == "f64") return ElementType::f64;
  if (name == "int32" || name == "i32") return ElementType::i32;
  if (name == "int64" || name == "i64") return ElementType::i64;
  if (name == "uint32" || name == "u32") return ElementType::u32;
  if (name == "int8" || name == "i8") return ElementType::i8;
  if (name == "uint8" || name == "u8") return ElementType::u8;
  if (name == "int16" || name == "i16") return ElementType::i16;
  if (name == "uint16" || name == "u16") return ElementType::u16;
  if (name == "uint64" || name == "u64") return ElementType::u64;
  if (name == "bool") return ElementType::boolean;
  if (name == "float16" || name == "f16" || name == "half") return ElementType::float16;
  if (name == "bfloat16" || name == "bf16") return ElementType::bfloat16;
  if (name == "complex<float>" || name == "complex64") return ElementType::complex_f32;
  if (name == "complex<double>" || name == "complex128") return ElementType::complex_f64;
  throw KernelFileError(where + ": unknown type '" + name +
                        "' (float, double, float16, bfloat16, complex<float>, complex<double>, "
                        "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)");
}

// A string, or an array of lines joined with newlines (long bodies read better so).
std::string text_of(const json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array()) throw KernelFileError(where + ": expected a string or an array of lines");
  std::string text;
  for (const json& line : value) {
    if (!line.is_string()) throw KernelFileError(where + ": every line must be a string");
    text += line.get<std::string>() + "\n";
  }
  return text;
}

std::string string_field(const json& object, const char* name, const std::string& where) {
  if (!object.contains(name) || !object[name].is_string()) {
    throw KernelFileError(where + ": '" + name + "' must be a string");
  }
  return object[name].get<std::string>();
}

// A whole number in [0, max]. nlohmann's own conversions would cast a float out of
// the target's range (undefined) and wrap a negative integer, so neither is used.
std::uint64_t count_of(const json& value, std::uint64_t max, const std::string& where) {
  if (!value.is_number_unsigned()) {
    throw KernelFileError(where + ": expected a whole number from 0 to " + std::to_string(max));
  }
  const std::uint64_t number = value.get<std::uint64_t>();
  if (number > max) {
    throw KernelFileError(where + ": " + std::to_string(number) + " is more than " +
                          std::to_string(max));
  }
  return number;
}

std::uint64_t count_field(const json& object, const char* name, std::uint64_t max,
                          const std::string& where) {
  if (!object.contains(name)) return 0;
  return count_of(object[name], max, where + ": " + name);
}

// A combiner by its name (name_of(Combiner)).
Combiner combiner_named(const std::string& name, const std::string& where) {
  for (const Combiner combiner :
       {Combiner::sum, Combiner::product, Combiner::min, Combiner::max, Combiner::bit_and,
        Combiner::bit_or, Combiner::bit_xor, Combiner::any, Combiner::all, Combiner::custom}) {
    if (name == name_of(combiner)) return combiner;
  }
  throw KernelFileError(where +
                        ": combiner must be sum, product, min, max, bit_and, bit_or, "
                        "bit_xor, any, all or custom, not '" +
                        name + "'");
}

void read_param(const json& p, const std::string& where, KernelDescription& out) {
  if (!p.is_object()) throw KernelFileError(where + ": expected an object");
  Param param;
  param.name = string_field(p, "name", where);
  const std::string kind = string_field(p, "kind", where);
  Binding binding = Binding::scalar;
  if (kind == "index") {
    param = index(param.name);
    binding = Binding::index;
  } else if (kind == "scalar") {
    param.kind = ParamKind::scalar;
    param.type = element_type(string_field(p, "type", where), where);
  } else if (kind == "in" || kind == "inout") {
    param.kind = ParamKind::field;
    param.type = element_type(string_field(p, "type", where), where);
    param.access = kind == "in" ? Access::read_only : Access::read_write;
    param.rank = static_cast<int>(count_field(p, "rank", std::numeric_limits<int>::max(), where));
    const std::string how = p.value("binding", std::string("projection"));
    if (how != "projection" && how != "broadcast") {
      throw KernelFileError(where + ": binding must be projection or broadcast");
    }
    binding = how == "broadcast" ? Binding::broadcast : Binding::projection;
  } else if (kind == "mask") {
    // A mask is one element per index: no rank, always projected.
    if (p.contains("rank") &&
        !(p["rank"].is_number_unsigned() && p["rank"].get<std::uint64_t>() == 0))
      throw KernelFileError(where + ": a mask has rank 0");
    if (p.contains("binding") && p["binding"] != "projection")
      throw KernelFileError(where + ": a mask is always a projection");
    param = in<float>(param.name);
    param.type = element_type(string_field(p, "type", where), where);
    param.mask = true;
    binding = Binding::projection;
  } else if (kind == "result" || kind == "scan") {
    param.kind = ParamKind::field;
    param.type = element_type(string_field(p, "type", where), where);
    param.access = Access::read_write;
    param.combiner = combiner_named(string_field(p, "combiner", where), where);
    if (param.combiner == Combiner::custom) {
      param.combine = string_field(p, "combine", where);
      param.identity = string_field(p, "identity", where);
    } else if (p.contains("combine") || p.contains("identity")) {
      throw KernelFileError(where + ": 'combine' and 'identity' are for a custom combiner");
    }
    if (kind == "result" && p.contains("scan"))
      throw KernelFileError(where + ": 'scan' is for a scan (kind scan)");
    if (kind == "scan") {
      // One element per index: always projected, rank 0 (as a mask).
      if ((p.contains("rank") &&
           !(p["rank"].is_number_unsigned() && p["rank"].get<std::uint64_t>() == 0)) ||
          (p.contains("binding") && p["binding"] != "projection"))
        throw KernelFileError(where +
                              ": a scan has rank 0 and is a projection (one element "
                              "per index)");
      const std::string which = p.value("scan", std::string("inclusive"));
      if (which != "inclusive" && which != "exclusive")
        throw KernelFileError(where + ": scan must be inclusive or exclusive, not '" + which + "'");
      param.scan = which == "exclusive" ? ScanKind::exclusive : ScanKind::inclusive;
      binding = Binding::projection;
    } else {
      if (p.contains("binding"))
        throw KernelFileError(where + ": a result has no binding (always broadcast)");
      param.rank = static_cast<int>(count_field(p, "rank", std::numeric_limits<int>::max(), where));
      binding = Binding::broadcast;
    }
  } else if (kind == "sort" || kind == "payload") {
    // One element per index: always projected, rank 0 (as a scan).
    if ((p.contains("rank") &&
         !(p["rank"].is_number_unsigned() && p["rank"].get<std::uint64_t>() == 0)) ||
        (p.contains("binding") && p["binding"] != "projection"))
      throw KernelFileError(where + ": a " + kind +
                            " has rank 0 and is a projection (one element per index)");
    param.kind = ParamKind::field;
    param.type = element_type(string_field(p, "type", where), where);
    param.access = Access::read_write;
    binding = Binding::projection;
    if (kind == "payload") {
      if (p.contains("order") || p.contains("less"))
        throw KernelFileError(where + ": 'order' and 'less' are for the keys (kind sort)");
      param.payload = true;
    } else if (p.contains("less")) {
      if (p.contains("order"))
        throw KernelFileError(where + ": a sort has an 'order' or a 'less' expression, not both");
      param.sort = SortOrder::custom;
      param.less = string_field(p, "less", where);
    } else {
      const std::string order = p.value("order", std::string("ascending"));
      if (order != "ascending" && order != "descending")
        throw KernelFileError(where + ": order must be ascending or descending, not '" + order +
                              "'");
      param.sort = order == "descending" ? SortOrder::descending : SortOrder::ascending;
    }
  } else {
    throw KernelFileError(
        where +
        ": kind must be scalar, in, inout, mask, index, result, scan, sort or payload, not '" +
        kind + "'");
  }
  if (p.contains("specialized")) {
    if (!p["specialized"].is_boolean())
      throw KernelFileError(where + ": 'specialized' must be true or false");
    if (p["specialized"].get<bool>() && kind != "scalar")
      throw KernelFileError(where + ": only a scalar can be specialized");
    param.specialized = p["specialized"].get<bool>();
  }
  out.source.signature.push_back(param);
  out.bindings.push_back(binding);
}

// A whole number that fits in int64 (negative allowed), read without nlohmann's casts.
std::int64_t integer_of(const json& value, const std::string& where) {
  if (value.is_number_unsigned()) {
    return static_cast<std::int64_t>(count_of(
        value, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), where));
  }
  if (!value.is_number_integer()) throw KernelFileError(where + ": expected a whole number");
  return value.get<std::int64_t>();
}

// A dimension: a count (first 0, step 1), or {"first", "count", "step"}.
Dim dim_of(const json& value, const std::string& where) {
  const std::uint64_t most = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!value.is_object()) return Dim{0, static_cast<std::int64_t>(count_of(value, most, where))};
  for (const auto& item : value.items()) {
    if (item.key() != "first" && item.key() != "count" && item.key() != "step")
      throw KernelFileError(where + ": unknown key '" + item.key() + "' (first, count, step)");
  }
  if (!value.contains("count")) throw KernelFileError(where + ": 'count' is missing");
  Dim dim;
  dim.count = static_cast<std::int64_t>(count_of(value["count"], most, where + ": count"));
  if (value.contains("first")) dim.first = integer_of(value["first"], where + ": first");
  if (value.contains("step")) dim.step = integer_of(value["step"], where + ": step");
  return dim;
}

LaunchDescription read_launch(const json& l, const std::string& where) {
  if (!l.is_object()) throw KernelFileError(where + ": expected an object");
  LaunchDescription launch;
  if (!l.contains("domain") || !l["domain"].is_array() || l["domain"].empty()) {
    throw KernelFileError(where + ": 'domain' must be a non-empty array of dimensions");
  }
  for (std::size_t d = 0; d < l["domain"].size(); ++d)
    launch.domain.push_back(dim_of(l["domain"][d], where + ": domain[" + std::to_string(d) + "]"));
  if (l.contains("order")) {
    const std::string order = string_field(l, "order", where);
    if (order != "c" && order != "fortran")
      throw KernelFileError(where + ": order must be c or fortran, not '" + order + "'");
    launch.order = order == "fortran" ? Order::fortran : Order::c;
  }
  if (l.contains("mode")) {
    const std::string mode = string_field(l, "mode", where);
    if (mode != "direct" && mode != "spread" && mode != "multi")
      throw KernelFileError(where + ": mode must be direct, spread or multi, not '" + mode + "'");
    launch.mode = parse_mode(mode);
  }
  if (l.contains("dimension")) {
    // A reduce or scan launch's LaunchOptions::reduce_dimension (-1: the last).
    const std::int64_t dimension = integer_of(l["dimension"], where + ": dimension");
    if (dimension < -1 || dimension >= std::int64_t(launch.domain.size())) {
      throw KernelFileError(where + ": dimension " + std::to_string(dimension) + " of a rank-" +
                            std::to_string(launch.domain.size()) + " domain (0 to " +
                            std::to_string(launch.domain.size() - 1) + ", or -1 for the last)");
    }
    launch.dimension = static_cast<int>(dimension);
  }
  if (l.contains("extents")) {
    const json& extents = l["extents"];
    if (!extents.is_object()) throw KernelFileError(where + ": 'extents' must be an object");
    const std::uint64_t most = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    for (const auto& item : extents.items()) {
      const std::string at = where + ": extents." + item.key();
      if (!item.value().is_array()) throw KernelFileError(at + ": expected an array");
      std::vector<std::int64_t>& shape = launch.extents[item.key()];
      for (std::size_t d = 0; d < item.value().size(); ++d) {
        shape.push_back(static_cast<std::int64_t>(
            count_of(item.value()[d], most, at + "[" + std::to_string(d) + "]")));
      }
    }
  }
  if (l.contains("values")) {
    const json& values = l["values"];
    if (!values.is_object()) throw KernelFileError(where + ": 'values' must be an object");
    for (const auto& item : values.items()) {
      const json& number = item.value();
      ScalarValue value;
      if (number.is_number_unsigned()) {
        value.kind = ScalarValue::Kind::unsigned_integer;
        value.unsigned_integer = number.get<std::uint64_t>();
      } else if (number.is_number_integer()) {
        value.integer = number.get<std::int64_t>();
      } else if (number.is_number_float()) {
        value.kind = ScalarValue::Kind::real;
        value.real = number.get<double>();
      } else if (number.is_boolean()) {
        value.kind = ScalarValue::Kind::boolean;  // for bool scalars only
        value.integer = number.get<bool>() ? 1 : 0;
      } else if (number.is_array() && number.size() == 2 && number[0].is_number() &&
                 number[1].is_number()) {
        value.kind = ScalarValue::Kind::complex;  // for complex scalars only
        value.real = number[0].get<double>();
        value.imaginary = number[1].get<double>();
      } else {
        throw KernelFileError(where + ": values." + item.key() +
                              ": expected a number (or [real, imaginary] for a complex)");
      }
      launch.values[item.key()] = value;
    }
  }
  return launch;
}

json parse_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& error) {  // not JSON, or a number out of range
    throw KernelFileError(origin + ": not JSON: " + error.what());
  }
}

std::string read_text(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw KernelFileError(path + ": cannot be read");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  return text;
}

KernelDescription description_of(const json& doc, const std::string& origin) {
  if (!doc.is_object()) throw KernelFileError(origin + ": expected a JSON object");
  KernelDescription out;
  try {
    out.source.name = string_field(doc, "name", origin);
    if (!doc.contains("params") || !doc["params"].is_array()) {
      throw KernelFileError(origin + ": 'params' must be an array");
    }
    for (std::size_t i = 0; i < doc["params"].size(); ++i) {
      read_param(doc["params"][i], origin + ": params[" + std::to_string(i) + "]", out);
    }
    if (!doc.contains("body")) throw KernelFileError(origin + ": 'body' is missing");
    out.source.body = text_of(doc["body"], origin + ": body");
    if (doc.contains("helpers")) out.source.helpers = text_of(doc["helpers"], origin + ": helpers");
    if (doc.contains("filter")) out.source.filter = text_of(doc["filter"], origin + ": filter");
    if (doc.contains("block")) {
      const json& block = doc["block"];
      if (!block.is_object()) throw KernelFileError(origin + ": 'block' must be an object");
      const std::uint64_t most = std::numeric_limits<std::uint32_t>::max();
      out.source.block.max_threads =
          static_cast<std::uint32_t>(count_field(block, "max_threads", most, origin + ": block"));
      if (block.contains("shape")) {
        const json& shape = block["shape"];
        if (!shape.is_array() || shape.size() != 3) {
          throw KernelFileError(origin + ": block.shape needs 3 numbers");
        }
        for (std::size_t p = 0; p < 3; ++p) {
          out.source.block.shape[p] = static_cast<std::uint32_t>(
              count_of(shape[p], most, origin + ": block.shape[" + std::to_string(p) + "]"));
        }
      }
    }
    if (doc.contains("launches")) {
      const json& launches = doc["launches"];
      if (!launches.is_array()) throw KernelFileError(origin + ": 'launches' must be an array");
      for (std::size_t i = 0; i < launches.size(); ++i) {
        out.launches.push_back(
            read_launch(launches[i], origin + ": launches[" + std::to_string(i) + "]"));
      }
    }
  } catch (const json::exception& error) {  // a value of the wrong JSON type
    throw KernelFileError(origin + ": " + error.what());
  }
  return out;
}

}  // namespace

KernelDescription parse_kernel_description(const std::string& text, const std::string& origin) {
  return description_of(parse_json(text, origin), origin);
}

KernelDescription read_kernel_description(const std::string& path) {
  return parse_kernel_description(read_text(path), path);
}

std::vector<KernelDescription> parse_kernel_list(const std::string& text,
                                                 const std::string& origin) {
  const json doc = parse_json(text, origin);
  if (!doc.is_object() || !doc.contains("kernels")) return {description_of(doc, origin)};
  const json& kernels = doc["kernels"];
  if (!kernels.is_array() || kernels.empty())
    throw KernelFileError(origin + ": 'kernels' must be a non-empty array");
  std::vector<KernelDescription> out;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    out.push_back(description_of(kernels[i], origin + ": kernels[" + std::to_string(i) + "]"));
  return out;
}

std::vector<KernelDescription> read_kernel_list(const std::string& path) {
  return parse_kernel_list(read_text(path), path);
}

}  // namespace stubjit::tool
