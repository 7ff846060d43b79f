#include "cache/bundle_format.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "cache/disk_key.hpp"

namespace stubjit::detail {
namespace {

constexpr char bundle_magic[8] = {'S', 'T', 'U', 'B', 'J', 'I', 'T', 'B'};
constexpr const char* manifest_first_line = "stubjit-cache-bundle 1";

void put(char* out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t get(const std::vector<char>& in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= std::uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

// Bytes a manifest value cannot hold as they are: the separators, controls, non-ASCII.
bool needs_escape(unsigned char c) { return c <= 0x20 || c >= 0x7f || c == '%' || c == '='; }

std::string escape(const std::string& value) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (!needs_escape(byte)) {
      out += c;
      continue;
    }
    out += '%';
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::string> unescape(std::string_view value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      out += value[i];
      continue;
    }
    if (i + 2 >= value.size()) return std::nullopt;  // '%' needs two digits after it
    const int high = hex_digit(value[i + 1]);
    const int low = hex_digit(value[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// One manifest line: its record type and fields.
struct Record {
  std::string type;
  std::map<std::string, std::string> fields;
};

class ManifestParser {
 public:
  ManifestParser(const std::string& text, std::string bundle)
      : text_(text), bundle_(std::move(bundle)) {}

  CacheBundleManifest parse() {
    if (text_.empty() || text_.back() != '\n') fail(0, "does not end with a line break");
    CacheBundleManifest manifest;
    bool seen_version = false, seen_format = false, seen_created = false;
    std::size_t begin = 0;
    for (std::size_t line = 1; begin < text_.size(); ++line) {
      const std::size_t end = text_.find('\n', begin);
      const std::string_view content(text_.data() + begin, end - begin);
      begin = end + 1;
      if (line == 1) {
        if (content != manifest_first_line)
          fail(line, "is not \"" + std::string(manifest_first_line) + "\"");
        manifest.bundle_version = bundle_format_version;
        continue;
      }
      const Record record = split(content, line);
      if (record.type == "stubjit") {
        manifest.stubjit_version = field(record, "version", line);
        seen_version = true;
      } else if (record.type == "format") {
        const std::uint64_t version = number(record, "version", line);
        if (version > UINT32_MAX)
          fail(line, "has version=" + std::to_string(version) + ", beyond 32 bits");
        manifest.format_version = static_cast<std::uint32_t>(version);
        seen_format = true;
      } else if (record.type == "created") {
        manifest.created = field(record, "time", line);
        seen_created = true;
      } else if (record.type == "toolchain") {
        manifest.toolchains.push_back(
            {field(record, "backend", line), field(record, "target", line),
             field(record, "compiler", line), field(record, "generator", line)});
      } else if (record.type == "entry") {
        CacheBundleEntry entry;
        entry.path = field(record, "path", line);
        entry.bytes = number(record, "bytes", line);
        entry.checksum = field(record, "checksum", line);
        entry.kernel = field(record, "kernel", line);
        entry.backend = field(record, "backend", line);
        entry.target = field(record, "target", line);
        entry.format = field(record, "format", line);
        manifest.entries.push_back(std::move(entry));
      }  // other records: a later version's additions, which this one need not know
    }
    if (!seen_version || !seen_format || !seen_created)
      fail(0, "lacks its stubjit, format or created line");
    return manifest;
  }

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw CacheBundleError(bundle_ + ": the manifest" +
                           (line ? " line " + std::to_string(line) : std::string()) + " " + what);
  }

  Record split(std::string_view content, std::size_t line) const {
    Record record;
    std::size_t begin = 0;
    while (begin <= content.size()) {
      std::size_t end = content.find(' ', begin);
      if (end == std::string_view::npos) end = content.size();
      const std::string_view word = content.substr(begin, end - begin);
      begin = end + 1;
      if (record.type.empty()) {
        if (word.empty()) fail(line, "has no record type");
        record.type = std::string(word);
        continue;
      }
      const std::size_t equals = word.find('=');
      if (equals == std::string_view::npos || equals == 0)
        fail(line, "has a word that is not name=value: '" + std::string(word) + "'");
      const std::optional<std::string> value = unescape(word.substr(equals + 1));
      if (!value) fail(line, "has a badly escaped value: '" + std::string(word) + "'");
      if (!record.fields.emplace(std::string(word.substr(0, equals)), *value).second)
        fail(line, "names " + std::string(word.substr(0, equals)) + " twice");
    }
    return record;
  }

  std::string field(const Record& record, const std::string& name, std::size_t line) const {
    const auto found = record.fields.find(name);
    if (found == record.fields.end()) fail(line, "(" + record.type + ") has no " + name);
    return found->second;
  }

  std::uint64_t number(const Record& record, const std::string& name, std::size_t line) const {
    const std::string text = field(record, name, line);
    std::uint64_t value = 0;
    bool ok = !text.empty() && text.size() <= 19;
    for (const char c : text) {
      ok = ok && c >= '0' && c <= '9';
      value = value * 10 + std::uint64_t(c - '0');
    }
    if (!ok) fail(line, "has " + name + "=" + text + ", not a whole number");
    return value;
  }

  const std::string& text_;
  std::string bundle_;
};

}  // namespace

std::array<char, bundle_header_size> encode_bundle_header(const BundleHeader& header) {
  std::array<char, bundle_header_size> out{};
  std::memcpy(out.data(), bundle_magic, sizeof bundle_magic);
  put(out.data() + 8, header.version, 4);
  put(out.data() + 12, header.entry_format, 4);
  put(out.data() + 16, header.entry_count, 8);
  put(out.data() + 24, header.manifest_offset, 8);
  put(out.data() + 32, header.manifest_size, 8);
  put(out.data() + 40, header.checksum, 8);
  return out;
}

std::string decode_bundle_header(const std::vector<char>& bytes, std::uint64_t file_size,
                                 BundleHeader& header) {
  if (bytes.empty()) return "is empty";  // (memcmp takes no null pointer, even for 0 bytes)
  const std::size_t magic_bytes = std::min(bytes.size(), sizeof bundle_magic);
  if (std::memcmp(bytes.data(), bundle_magic, magic_bytes) != 0)
    return "is not a stubjit cache bundle (wrong magic)";
  if (bytes.size() < bundle_header_size) return "is truncated: shorter than its header";
  header.version = static_cast<std::uint32_t>(get(bytes, 8, 4));
  header.entry_format = static_cast<std::uint32_t>(get(bytes, 12, 4));
  header.entry_count = get(bytes, 16, 8);
  header.manifest_offset = get(bytes, 24, 8);
  header.manifest_size = get(bytes, 32, 8);
  header.checksum = get(bytes, 40, 8);
  if (header.version != bundle_format_version) {
    return "is of bundle format " + std::to_string(header.version) + "; this stubjit reads " +
           std::to_string(bundle_format_version);
  }
  if (header.entry_format != disk_format_version) {
    return "holds entries of cache format " + std::to_string(header.entry_format) +
           "; this stubjit's cache is format " + std::to_string(disk_format_version) +
           " (export the bundle again with this version)";
  }
  if (header.manifest_offset < bundle_header_size || header.manifest_size > max_manifest_bytes ||
      header.manifest_offset > file_size || header.manifest_size > file_size) {
    return header.manifest_offset > file_size || header.manifest_size > file_size
               ? "is truncated: its header records more bytes than the file has"
               : "has a header whose sizes are out of range";
  }
  const std::uint64_t total = header.manifest_offset + header.manifest_size;
  if (total > file_size) return "is truncated: its header records more bytes than the file has";
  if (total < file_size) return "is longer than its header records";
  return {};
}

std::string write_manifest(const CacheBundleManifest& manifest) {
  std::string text = std::string(manifest_first_line) + "\n";
  text += "stubjit version=" + escape(manifest.stubjit_version) + "\n";
  text += "format version=" + std::to_string(manifest.format_version) + "\n";
  text += "created time=" + escape(manifest.created) + "\n";
  for (const CacheBundleToolchain& t : manifest.toolchains) {
    text += "toolchain backend=" + escape(t.backend) + " target=" + escape(t.target) +
            " compiler=" + escape(t.compiler) + " generator=" + escape(t.generator) + "\n";
  }
  for (const CacheBundleEntry& e : manifest.entries) {
    text += "entry path=" + escape(e.path) + " bytes=" + std::to_string(e.bytes) +
            " checksum=" + escape(e.checksum) + " kernel=" + escape(e.kernel) +
            " backend=" + escape(e.backend) + " target=" + escape(e.target) +
            " format=" + escape(e.format) + "\n";
  }
  return text;
}

CacheBundleManifest parse_manifest(const std::string& text, const std::string& bundle) {
  return ManifestParser(text, bundle).parse();
}

}  // namespace stubjit::detail
