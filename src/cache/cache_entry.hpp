// One disk-cache entry as bytes. Pure: no I/O, so every corruption case is testable.
//
//   offset  size  field
//        0     8  magic "STUBJITC"
//        8     4  format version (disk_format_version), little-endian
//       12     4  key size K
//       16     4  binary-format name size F ("elf-shared-object", "cubin", ...)
//       20     4  reserved, 0
//       24     8  payload size P
//       32     8  checksum: XXH3-64 of key + format name + payload
//       40     K  full key text
//     40+K     F  binary-format name
//   40+K+F     P  payload (what the backend's loader takes)
//
// The file must be exactly 40+K+F+P bytes long.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/binary.hpp"

namespace stubjit::detail {

enum class EntryProblem : std::uint8_t {
  none,
  empty,        // zero-length file
  truncated,    // shorter than its header or its recorded sizes
  bad_magic,    // not a stubjit cache entry
  bad_version,  // written by another cache-format version
  bad_size,     // longer than its recorded sizes, or sizes out of range
  bad_checksum,
  wrong_key,  // intact, but stored for another key
};

const char* describe(EntryProblem problem) noexcept;

struct DecodedEntry {
  EntryProblem problem = EntryProblem::none;
  std::string key;  // the stored key text (when the header could be read)
  Binary binary;    // only filled when problem == none
};

// Limits of one entry file. The key holds the kernel's whole source, hence its room.
// A stub whose entry would exceed them is not stored (it stays in memory); a file
// longer than max_entry_bytes is rejected before it is read.
inline constexpr std::uint64_t max_entry_key_bytes = std::uint64_t(16) << 20;  // 16 MiB
inline constexpr std::uint64_t max_entry_bytes = std::uint64_t(64) << 20;      // 64 MiB

// "" when an entry of this key and binary fits the limits, else why not.
std::string entry_size_problem(const std::string& key, const Binary& binary);

std::vector<char> encode_entry(const std::string& key, const Binary& binary);

// Checks magic, version, sizes, checksum and, when `expected_key` is given, that the
// stored key equals it byte for byte. The payload is copied out only if all pass.
DecodedEntry decode_entry(const std::vector<char>& bytes, const std::string* expected_key);

}  // namespace stubjit::detail
