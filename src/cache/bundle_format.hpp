// A cache bundle as bytes (docs/cache.md, "Bundle format"). Pure: no I/O, so every
// damage case is testable.
//
//   offset  size  field
//        0     8  magic "STUBJITB"
//        8     4  bundle format version (bundle_format_version), little-endian
//       12     4  the entries' format version (disk_format_version)
//       16     8  entry count N
//       24     8  manifest offset O (= 48 + the entries' sizes)
//       32     8  manifest size M
//       40     8  checksum: XXH3-64 of bytes 48 to the end, then bytes 0 to 40
//       48        the N entry files, one after the other, in the manifest's order
//        O     M  the manifest (text, see write_manifest)
//
// The file must be exactly O+M bytes long. The entries come before the manifest so
// that an export writes each entry as it verifies it, in one pass.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stubjit/cache_bundle.hpp"

namespace stubjit::detail {

inline constexpr std::uint32_t bundle_format_version = 1;
inline constexpr std::size_t bundle_header_size = 48;
// A manifest line is about 250 bytes: room for a quarter of a million entries.
inline constexpr std::uint64_t max_manifest_bytes = std::uint64_t(64) << 20;

struct BundleHeader {
  std::uint32_t version = bundle_format_version;
  std::uint32_t entry_format = 0;
  std::uint64_t entry_count = 0;
  std::uint64_t manifest_offset = 0;
  std::uint64_t manifest_size = 0;
  std::uint64_t checksum = 0;
};

std::array<char, bundle_header_size> encode_bundle_header(const BundleHeader& header);

// Checks magic, versions and that the sizes add up to `file_size`; "" when they do,
// else what is wrong, as a phrase ("is truncated: ...").
std::string decode_bundle_header(const std::vector<char>& bytes, std::uint64_t file_size,
                                 BundleHeader& header);

// The manifest as text: one record per line, its fields as name=value words, values
// percent-encoded (docs/cache.md):
//   stubjit-cache-bundle 1
//   stubjit version=0.10.0
//   format version=3
//   created time=2026-11-27T15:30:00Z
//   toolchain backend=cuda target=sm_90 compiler=nvrtc%2013.0 generator=...
//   entry path=cuda/sm_90/direct-r1/<32 hex>.bin bytes=1234 checksum=<16 hex>
//         kernel=saxpy backend=cuda target=sm_90 format=cubin        (one line)
std::string write_manifest(const CacheBundleManifest& manifest);
// Throws CacheBundleError (naming `bundle`) when the text does not follow the format.
CacheBundleManifest parse_manifest(const std::string& text, const std::string& bundle);

}  // namespace stubjit::detail
