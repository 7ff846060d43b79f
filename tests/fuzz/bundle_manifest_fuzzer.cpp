// Fuzzes the cache bundle's header and manifest readers (bundle_format.hpp), which read
// a file that comes from another machine. They must never read outside the bytes or
// crash, fail only with a CacheBundleError, and be consistent:
//   - a header decode_bundle_header accepts has sizes that add up to the file's size,
//     a manifest offset past the header and a manifest within its limit;
//   - a manifest parse_manifest accepts, written again, reads back to the same fields,
//     and writing that gives the same text (one meaning per text);
//   - a manifest of any values (any bytes: spaces, '=', '%', line breaks) written by
//     write_manifest reads back to exactly those values.
// The first byte picks which; the rest is the header, the manifest text, or the values.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cache/bundle_format.hpp"
#include "cache/disk_key.hpp"
#include "fuzz/fuzz_input.hpp"

namespace stubjit::fuzz {
namespace {

using detail::BundleHeader;

[[noreturn]] void fail(const char* what, const std::string& input) {
  std::fprintf(stderr, "bundle manifest fuzzer: %s (input of %zu bytes)\n", what, input.size());
  std::abort();
}

bool same(const CacheBundleManifest& a, const CacheBundleManifest& b) {
  if (a.bundle_version != b.bundle_version || a.stubjit_version != b.stubjit_version ||
      a.format_version != b.format_version || a.created != b.created ||
      a.toolchains.size() != b.toolchains.size() || a.entries.size() != b.entries.size())
    return false;
  for (std::size_t i = 0; i < a.toolchains.size(); ++i) {
    const CacheBundleToolchain &x = a.toolchains[i], &y = b.toolchains[i];
    if (x.backend != y.backend || x.target != y.target || x.compiler != y.compiler ||
        x.generator != y.generator)
      return false;
  }
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const CacheBundleEntry &x = a.entries[i], &y = b.entries[i];
    if (x.path != y.path || x.kernel != y.kernel || x.backend != y.backend ||
        x.target != y.target || x.format != y.format || x.bytes != y.bytes ||
        x.checksum != y.checksum)
      return false;
  }
  return true;
}

void check_header(FuzzInput& in) {
  const std::uint64_t file_size = in.u64();
  const std::string rest = in.rest();
  const std::vector<char> bytes(rest.begin(), rest.end());
  BundleHeader header;
  if (!detail::decode_bundle_header(bytes, file_size, header).empty()) return;
  if (bytes.size() < detail::bundle_header_size || header.manifest_offset < 48 ||
      header.manifest_size > detail::max_manifest_bytes ||
      header.manifest_offset + header.manifest_size != file_size ||
      header.version != detail::bundle_format_version ||
      header.entry_format != detail::disk_format_version)
    fail("a header was accepted whose fields do not hold", rest);
}

void check_text(const std::string& text) {
  CacheBundleManifest manifest;
  try {
    manifest = detail::parse_manifest(text, "fuzz");
  } catch (const CacheBundleError&) {
    return;
  }
  const std::string written = detail::write_manifest(manifest);
  const CacheBundleManifest again = detail::parse_manifest(written, "fuzz");
  if (!same(manifest, again)) fail("an accepted manifest does not read back the same", text);
  if (detail::write_manifest(again) != written) fail("an accepted manifest writes two ways", text);
}

void check_values(FuzzInput& in) {
  // Values of any bytes, cut from the input at lengths it gives.
  std::string rest = in.rest();
  const auto next = [&rest](std::size_t length) {
    std::string value = rest.substr(0, length);
    rest.erase(0, value.size());
    return value;
  };
  FuzzInput lengths(reinterpret_cast<const std::uint8_t*>(rest.data()),
                    rest.size() < 8 ? rest.size() : 8);
  std::size_t sizes[8];
  for (std::size_t& size : sizes) size = lengths.below(24);
  rest.erase(0, rest.size() < 8 ? rest.size() : 8);
  CacheBundleManifest manifest;
  manifest.bundle_version = detail::bundle_format_version;
  manifest.stubjit_version = next(sizes[0]);
  manifest.format_version = 3;
  manifest.created = next(sizes[1]);
  manifest.toolchains.push_back({next(sizes[2]), next(sizes[3]), next(sizes[4]), next(sizes[5])});
  manifest.entries.push_back(
      {next(sizes[6]), next(sizes[7]), "cpu", "t", "elf-shared-object", sizes[0], next(24)});
  const std::string written = detail::write_manifest(manifest);
  CacheBundleManifest read;
  try {
    read = detail::parse_manifest(written, "fuzz");
  } catch (const CacheBundleError&) {
    fail("a written manifest is refused", written);
  }
  if (!same(manifest, read)) fail("a written manifest reads back other values", written);
}

}  // namespace
}  // namespace stubjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stubjit::fuzz;
  FuzzInput in(data, size);
  switch (in.u8() % 3) {
    case 0:
      check_header(in);
      break;
    case 1:
      check_text(in.rest());
      break;
    default:
      check_values(in);
      break;
  }
  return 0;
}
