// The bundle manifest's text (bundle_format.hpp): values of any bytes survive the
// round trip, the lines are what docs/cache.md shows, and a manifest that does not
// follow the format is refused with the line and the reason.
#include <gtest/gtest.h>

#include <string>

#include "cache/bundle_format.hpp"
#include "cache/disk_key.hpp"

namespace stubjit::detail {
namespace {

CacheBundleManifest sample() {
  CacheBundleManifest manifest;
  manifest.bundle_version = bundle_format_version;
  manifest.stubjit_version = "0.9.0";
  manifest.format_version = 3;
  manifest.created = "2026-11-27T15:30:00Z";
  // Spaces, '=', '%', a line break, a tab and UTF-8: every one must be escaped.
  manifest.toolchains.push_back(
      {"cpu", "x86_64/znver3/1c2d", "clang 14.0.6 (a=b, 100%)\nnext\tline", "12 2f65 \xc3\xa9"});
  manifest.entries.push_back(
      {"cpu/x86_64_znver3_1c2d/direct-r1/0123456789abcdef0123456789abcdef.bin", "saxpy", "cpu",
       "x86_64/znver3/1c2d", "elf-shared-object", 1234, "00112233aabbccdd"});
  return manifest;
}

void expect_same(const CacheBundleManifest& a, const CacheBundleManifest& b) {
  EXPECT_EQ(a.bundle_version, b.bundle_version);
  EXPECT_EQ(a.stubjit_version, b.stubjit_version);
  EXPECT_EQ(a.format_version, b.format_version);
  EXPECT_EQ(a.created, b.created);
  ASSERT_EQ(a.toolchains.size(), b.toolchains.size());
  for (std::size_t i = 0; i < a.toolchains.size(); ++i) {
    EXPECT_EQ(a.toolchains[i].backend, b.toolchains[i].backend);
    EXPECT_EQ(a.toolchains[i].target, b.toolchains[i].target);
    EXPECT_EQ(a.toolchains[i].compiler, b.toolchains[i].compiler);
    EXPECT_EQ(a.toolchains[i].generator, b.toolchains[i].generator);
  }
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].path, b.entries[i].path);
    EXPECT_EQ(a.entries[i].kernel, b.entries[i].kernel);
    EXPECT_EQ(a.entries[i].backend, b.entries[i].backend);
    EXPECT_EQ(a.entries[i].target, b.entries[i].target);
    EXPECT_EQ(a.entries[i].format, b.entries[i].format);
    EXPECT_EQ(a.entries[i].bytes, b.entries[i].bytes);
    EXPECT_EQ(a.entries[i].checksum, b.entries[i].checksum);
  }
}

TEST(BundleManifest, IsTheDocumentedTextAndReadsBackWhatWasWritten) {
  const std::string text = write_manifest(sample());
  EXPECT_EQ(text,
            "stubjit-cache-bundle 1\n"
            "stubjit version=0.9.0\n"
            "format version=3\n"
            "created time=2026-11-27T15:30:00Z\n"
            "toolchain backend=cpu target=x86_64/znver3/1c2d "
            "compiler=clang%2014.0.6%20(a%3Db,%20100%25)%0Anext%09line "
            "generator=12%202f65%20%C3%A9\n"
            "entry path=cpu/x86_64_znver3_1c2d/direct-r1/0123456789abcdef0123456789abcdef.bin "
            "bytes=1234 checksum=00112233aabbccdd kernel=saxpy backend=cpu "
            "target=x86_64/znver3/1c2d format=elf-shared-object\n");
  expect_same(parse_manifest(text, "b"), sample());
}

TEST(BundleManifest, IgnoresRecordsAndFieldsOfALaterVersion) {
  std::string text = write_manifest(sample());
  text.insert(text.find("entry "), "signature by=someone\n");
  text.insert(text.size() - 1, " compressed=no");
  expect_same(parse_manifest(text, "b"), sample());
}

TEST(BundleManifest, RefusesTextThatDoesNotFollowTheFormat) {
  const std::string good = write_manifest(sample());
  const std::string entry_line = good.substr(good.find("entry "));
  const std::string head = good.substr(0, good.find("entry "));
  const struct {
    std::string text;
    std::string phrase;
  } cases[] = {
      {"", "does not end with a line break"},
      {good.substr(0, good.size() - 1), "does not end with a line break"},
      {"stubjit-cache-bundle 2\n" + good.substr(good.find('\n') + 1), "line 1 is not"},
      {head + "entry path=a%2\n", "line 6 has a badly escaped value: 'path=a%2'"},
      {head + "entry path=a%zz\n", "badly escaped"},
      {head + "entry path\n", "line 6 has a word that is not name=value: 'path'"},
      {head + "entry path=a path=b\n", "names path twice"},
      {head + "\n", "line 6 has no record type"},
      {head + entry_line.substr(0, entry_line.find(" bytes=")) + "\n", "(entry) has no bytes"},
      {head + "entry path=a bytes=-1 checksum=0 kernel=k backend=b target=t format=f\n",
       "has bytes=-1, not a whole number"},
      {good.substr(0, good.find("created ")) + good.substr(good.find("toolchain ")),
       "lacks its stubjit, format or created line"},
  };
  for (const auto& c : cases) {
    try {
      parse_manifest(c.text, "cache bundle b.stjb");
      ADD_FAILURE() << "parsed: " << c.text;
    } catch (const CacheBundleError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind("cache bundle b.stjb: the manifest", 0), 0u) << message;
      EXPECT_NE(message.find(c.phrase), std::string::npos) << message;
    }
  }
}

TEST(BundleHeader, RefusesWrongMagicVersionsAndSizes) {
  BundleHeader header;
  header.entry_format = disk_format_version;
  header.entry_count = 1;
  header.manifest_offset = 100;
  header.manifest_size = 20;
  const auto encoded = encode_bundle_header(header);
  const std::vector<char> bytes(encoded.begin(), encoded.end());
  BundleHeader decoded;
  EXPECT_EQ(decode_bundle_header(bytes, 120, decoded), "");
  EXPECT_EQ(decoded.manifest_offset, 100u);
  EXPECT_EQ(decoded.manifest_size, 20u);
  EXPECT_EQ(decoded.entry_count, 1u);
  EXPECT_EQ(decode_bundle_header(bytes, 119, decoded),
            "is truncated: its header records more bytes than the file has");
  EXPECT_EQ(decode_bundle_header(bytes, 121, decoded), "is longer than its header records");
  EXPECT_EQ(decode_bundle_header({}, 0, decoded), "is empty");  // found by the fuzzer (UBSan)
  EXPECT_EQ(decode_bundle_header(std::vector<char>(bytes.begin(), bytes.begin() + 20), 20, decoded),
            "is truncated: shorter than its header");
  std::vector<char> other = bytes;
  other[7] = 'C';  // a cache entry's magic
  EXPECT_EQ(decode_bundle_header(other, 120, decoded),
            "is not a stubjit cache bundle (wrong magic)");
  header.entry_format = disk_format_version + 1;
  const auto newer = encode_bundle_header(header);
  EXPECT_NE(decode_bundle_header(std::vector<char>(newer.begin(), newer.end()), 120, decoded)
                .find("holds entries of cache format"),
            std::string::npos);
  header.entry_format = disk_format_version;
  header.manifest_size = max_manifest_bytes + 1;
  header.manifest_offset = 48;
  const auto huge = encode_bundle_header(header);
  EXPECT_EQ(decode_bundle_header(std::vector<char>(huge.begin(), huge.end()),
                                 48 + max_manifest_bytes + 1, decoded),
            "has a header whose sizes are out of range");
}

}  // namespace
}  // namespace stubjit::detail
