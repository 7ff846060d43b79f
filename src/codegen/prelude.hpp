// The device-side prelude (kernels/stubjit/*.h), embedded at build time one header
// per string, and the choice of the headers one stub includes.
//
// A stub includes config.h always, and an optional header (launch.h, index.h,
// view.h, atomic.h, half.h, complex.h) only when its own code names something the header
// declares (the generator writes what it uses in full) or its user code may use it.
// Whether user code may use a header is a conservative text scan: a
// header is included when the body, the helpers or a compiler option contains one of
// the names it declares anywhere (inside another identifier, a comment or a literal
// too), and whenever the text could name something the scan cannot see (token
// pasting, line splices, universal character names, includes). An unused header
// still costs the compiler its parse (bench/results/cuda.md has the shares).
//
// The choice is a function of the request alone (kernel, signature, bindings, compiler
// options: the stub's own code is generated from it), all of which are in the stub's
// identity; the generator fingerprint hashes
// every header, so a changed header changes every key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/stub_request.hpp"
#include "support/name_scan.hpp"

namespace stubjit::detail {

struct PreludeHeader {
  std::string_view name;  // "config.h"
  std::string_view text;  // "// ---- stubjit/config.h ----\n..."
};

// Every header, in the order they are prepended (each may use the ones before it).
const std::vector<PreludeHeader>& prelude_headers();

// The names and texts of every header, in order: what the generator fingerprint hashes.
const std::string& prelude_fingerprint_text();

// An optional header and every name it declares: what code would use it by.
struct OptionalPreludeHeader {
  std::string_view name;
  std::vector<std::string_view> names;
};
const std::vector<OptionalPreludeHeader>& optional_prelude_headers();

// The headers a stub for `request` includes, in prelude order. `stub_code` is the
// stub's own code (everything the generator writes but the prelude and the user's
// code); the user's code is read from the request.
std::vector<PreludeHeader> prelude_for(const StubRequest& request, std::string_view stub_code);

}  // namespace stubjit::detail
