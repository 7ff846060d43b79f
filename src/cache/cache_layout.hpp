// The files stubjit writes under a cache root, and nothing else: their names, their
// depth, and a walk that finds exactly them. Eviction, `stubjit cache clear` and
// `stubjit cache verify --remove` only ever touch what this recognises, so a root
// that also holds other files (a mistaken STUBJIT_CACHE_DIR=$HOME) loses none of them.
//
//   <root>/.build.lock                                                  the compile locks
//   <root>/<backend>/<target>/<mode>-r<rank>/<32 hex>.bin               an entry
//   <root>/<backend>/<target>/<mode>-r<rank>/.tmp-<32 hex>.bin.XXXXXX   a write under way
//   <root>/<backend>/<target>/<mode>-r<rank>/<32 hex>.lock              an entry's compile
//                                                                       lock, as stubjit
//                                                                       wrote them before
//                                                                       .build.lock
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stubjit::detail {

inline constexpr const char* entry_suffix = ".bin";
inline constexpr const char* lock_suffix = ".lock";
// One file for every key's compile lock: the lock of the key named <32 hex> is the
// byte at offset build_lock_byte(<32 hex>), so a compile creates no file to lock.
inline constexpr const char* build_lock_name = ".build.lock";
// The number in an entry name's first 15 hex digits (below 2^60).
std::uint64_t build_lock_byte(std::string_view entry_stem);

bool is_entry_name(std::string_view name);      // <32 lowercase hex>.bin
bool is_lock_name(std::string_view name);       // <32 lowercase hex>.lock (older stubjit)
bool is_temporary_name(std::string_view name);  // .tmp-<32 hex>.bin.<6 letters or digits>
// A <backend> or <target> directory name, as path_component() writes them.
bool is_name_component(std::string_view name);
// <mode>-r<rank>: direct, spread or multi, rank 1 to 8.
bool is_variant_component(std::string_view name);
// Whether `relative` (to the root) is <backend>/<target>/<mode>-r<rank>/<entry name>.
bool is_entry_path(const std::string& relative);

// `root` made absolute (against the working directory now), without a trailing slash
// and with "." and ".." resolved lexically, so that every path built from it and every
// containment check agree, and a later chdir changes nothing ("" stays "").
std::string normalize_root(const std::string& root);

enum class LayoutFileKind : std::uint8_t { entry, lock, temporary };

struct LayoutFile {
  LayoutFileKind kind = LayoutFileKind::entry;
  std::string path;       // <root>/<directory>/<name>
  std::string directory;  // <backend>/<target>/<mode>-r<rank>
  std::string name;
  std::uint64_t bytes = 0;            // apparent size
  std::uint64_t allocated_bytes = 0;  // the blocks it takes (st_blocks * 512)
  std::int64_t modified_ns = 0;
};

// A layout directory the walk did not enter: unreadable, or not private.
struct SkippedDirectory {
  std::string path;
  std::string problem;  // a phrase that follows the path: "cannot be read: Permission denied"
};

struct LayoutScan {
  std::vector<LayoutFile> files;
  std::vector<SkippedDirectory> skipped;
  // Files of the layout that another user owns: neither counted nor removed, but
  // listed, so that `stubjit cache verify` can say they are there. The problem says
  // whose they are.
  std::vector<SkippedDirectory> foreign;
};

// Walks exactly the layout's three directory levels below `root`: only directories
// whose names fit their level, never a link, each owned by the user and writable by
// nobody else, and in the last level only regular files whose names fit. A directory
// that cannot be read or is not private is reported in `skipped`, and the walk goes
// on with the others. A missing root gives an empty scan.
LayoutScan scan_layout(const std::string& root);

}  // namespace stubjit::detail
