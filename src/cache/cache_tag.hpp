// The tag that marks a directory as a stubjit cache root: a CACHEDIR.TAG file
// (https://bford.info/cachedir/, so backup tools skip the cache) written by stubjit.
// A runtime only uses, and eviction and cleanup only remove from, a root that holds
// stubjit's tag, or that stubjit may tag because nothing else is in it.
#pragma once

#include <cstdint>
#include <string>

namespace stubjit::detail {

inline constexpr const char* cache_tag_name = "CACHEDIR.TAG";

// The tag's exact first lines; what follows them is free.
const std::string& cache_tag_text();

enum class RootKind : std::uint8_t {
  missing,    // does not exist yet: stubjit creates and tags it
  tagged,     // holds stubjit's tag
  claimable,  // exists without the tag, but holds nothing that is not stubjit's
              // (empty, or a cache an older stubjit wrote before tags)
  foreign,    // holds other things, or another program's tag: never used nor cleaned
};

struct RootInspection {
  RootKind kind = RootKind::missing;
  // For foreign: what is wrong, as a phrase that follows the root's path ("already
  // holds 'notes.txt' and no CACHEDIR.TAG from stubjit: ...").
  std::string problem;
};

// Reads only; the root's ownership and mode are checked elsewhere.
RootInspection inspect_cache_root(const std::string& root);

// Writes the tag into `root` atomically (a temporary file renamed into place);
// "" on success, else why not.
std::string write_cache_tag(const std::string& root);

// "" when `root` may be cleaned (tagged or claimable), else why not.
std::string cleanup_refusal(const std::string& root);

}  // namespace stubjit::detail
