#include "cache/disk_key.hpp"

#include <xxhash.h>

#include "support/hash.hpp"

namespace stubjit::detail {

std::optional<std::string> key_line(const std::string& text, const std::string& prefix) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    if (text.compare(begin, prefix.size(), prefix) == 0) {
      return text.substr(begin + prefix.size(), end - begin - prefix.size());
    }
    begin = end + 1;
  }
  return std::nullopt;
}

std::string hash128_hex(const std::string& bytes) {
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return hex64(hash.high64) + hex64(hash.low64);
}

std::string path_component(const std::string& text) {
  std::string safe = text;
  for (char& c : safe) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (safe.empty() || safe[0] == '.') safe = "_" + safe;
  return safe;
}

DiskKey make_disk_key(const StubIdentity& identity, const std::string& stub_source) {
  const ToolchainIdentity& toolchain = *identity.toolchain;
  const StubVariant& variant = identity.variant;
  DiskKey disk;
  disk.directory = path_component(toolchain.backend) + "/" + path_component(toolchain.target) +
                   "/" + name_of(variant.mode) + "-r" + std::to_string(variant.rank);
  // The lines `stubjit cache verify` reads come before the memory key, whose last
  // lines hold free text (the kernel's source): the first "layout " line is the real one.
  disk.text = "stubjit-disk-key " + std::to_string(disk_format_version) + "\n" + "layout " +
              disk.directory + "\n" + "stub " + hex64(hash64(stub_source)) + " " +
              std::to_string(stub_source.size()) + "\n" + key_text(identity);
  disk.name = hash128_hex(disk.text);
  return disk;
}

std::optional<std::string> directory_of_key_text(const std::string& text) {
  if (text.rfind("stubjit-disk-key ", 0) != 0) return std::nullopt;
  return key_line(text, "layout ");
}

std::string key_text_mismatch(const std::string& text, const ToolchainIdentity& toolchain,
                              const std::string& stub_source) {
  if (text.rfind("stubjit-disk-key ", 0) != 0) return "it is not a stubjit cache key";
  const auto differs = [&](const char* prefix, const std::string& want) {
    return key_line(text, prefix) != want;
  };
  if (differs("stub ", hex64(hash64(stub_source)) + " " + std::to_string(stub_source.size())))
    return "its source is not the one its key names";
  std::string options = std::to_string(toolchain.options.size());
  for (const std::string& option : toolchain.options) options += " " + length_prefixed(option);
  if (differs("generator ", toolchain.generator) || differs("backend ", toolchain.backend) ||
      differs("target ", toolchain.target) || differs("compiler ", toolchain.compiler) ||
      differs("options ", options))
    return "its key is for another toolchain";
  return "";
}

std::string kernel_of_key_text(const std::string& text) {
  const std::string line = key_line(text, "kernel ").value_or("");
  return line.substr(0, line.find(' '));
}

}  // namespace stubjit::detail
