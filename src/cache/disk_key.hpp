// The disk cache's key: the in-memory key plus what a persisted binary additionally
// depends on (the cache-format version and the exact generated source), and where
// the entry lives under the cache root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cache/stub_identity.hpp"

namespace stubjit::detail {

// Version of the on-disk entry format and key text. Bump on any change to either:
// entries of another version are then never found (their names differ) and, if met
// under a colliding name, rejected by the version field.
// 2: the key holds the kernel's source text and length-prefixed compiler options.
// 3: the key is a StubIdentity's text (pattern, group shape, specialized values).
inline constexpr std::uint32_t disk_format_version = 3;

struct DiskKey {
  std::string text;  // full key, stored in the entry and compared on load
  std::string name;  // 32 hex digits of XXH3-128 of text: the entry's file stem
  // Where the entry lives: <backend>/<target>/<mode>-r<rank>, each a safe path part.
  std::string directory;
};

// `stub_source` is the complete generated source: hashing it means a change of the
// generator or prelude can never reuse a stale binary, even if nobody bumped a version.
DiskKey make_disk_key(const StubIdentity& identity, const std::string& stub_source);

// The directory a stored key text belongs in, read back from the text; nullopt when
// the text is not a well-formed disk key. `stubjit cache verify` uses it to check that
// an entry sits where its key says.
std::optional<std::string> directory_of_key_text(const std::string& text);
// Why a key text received from elsewhere (StubExchange) is not one this toolchain makes
// for `stub_source`: its "stub" line names another source, or its generator, backend,
// target, compiler or options line another toolchain; "" when it is. The lines read are
// the first of each name, which come before the key's free text (stub_identity.cpp).
std::string key_text_mismatch(const std::string& text, const ToolchainIdentity& toolchain,
                              const std::string& stub_source);
// The value of the first line of a key text that starts with `prefix` ("backend ",
// "target ", ...), if any. A key's lines of facts come before its free text (the
// kernel's source), so the first such line is the real one.
std::optional<std::string> key_line(const std::string& text, const std::string& prefix);
// The kernel name recorded in a key text ("" when absent).
std::string kernel_of_key_text(const std::string& text);

// 32 lowercase hex digits of XXH3-128.
std::string hash128_hex(const std::string& bytes);

// `text` with every character outside [A-Za-z0-9._-] replaced by '_', and '_' put
// before a leading '.': never empty, never hidden, never "." or "..", so safe as one
// path component, and one that is_name_component (cache_layout.hpp) accepts.
std::string path_component(const std::string& text);

}  // namespace stubjit::detail
