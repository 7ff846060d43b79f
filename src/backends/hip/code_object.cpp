#include "backends/hip/code_object.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "stubjit/error.hpp"

namespace stubjit::detail::hip {
namespace {

constexpr char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::size_t bundle_magic_size = sizeof(bundle_magic) - 1;

bool starts_with(const std::vector<char>& bytes, const char* prefix, std::size_t size) {
  return bytes.size() >= size && std::memcmp(bytes.data(), prefix, size) == 0;
}

bool read_u64(const std::vector<char>& bytes, std::size_t at, std::uint64_t& value) {
  if (at > bytes.size() || bytes.size() - at < sizeof(value)) return false;
  std::memcpy(&value, bytes.data() + at, sizeof(value));
  return true;
}

bool is_elf(const std::vector<char>& bytes) {
  return starts_with(bytes,
                     "\x7f"
                     "ELF",
                     4);
}

struct BundleEntry {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string triple;
};

std::vector<BundleEntry> read_bundle(const std::vector<char>& bytes) {
  auto corrupt = [](const std::string& what) {
    return BackendError("hip: corrupt clang offload bundle from hipRTC (" + what + ")");
  };
  std::uint64_t count = 0;
  std::size_t at = bundle_magic_size;
  if (!read_u64(bytes, at, count)) throw corrupt("no entry count");
  at += 8;
  std::vector<BundleEntry> entries;
  for (std::uint64_t i = 0; i < count; ++i) {
    BundleEntry entry;
    std::uint64_t triple_size = 0;
    if (!read_u64(bytes, at, entry.offset) || !read_u64(bytes, at + 8, entry.size) ||
        !read_u64(bytes, at + 16, triple_size)) {
      throw corrupt("entry " + std::to_string(i) + " truncated");
    }
    at += 24;
    if (triple_size > bytes.size() - std::min(at, bytes.size())) throw corrupt("triple truncated");
    entry.triple.assign(bytes.data() + at, triple_size);
    at += triple_size;
    if (entry.offset > bytes.size() || entry.size > bytes.size() - entry.offset) {
      throw corrupt("entry '" + entry.triple + "' lies outside the bundle");
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// "gfx90a:xnack-" from "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"; "" for a host entry.
// (Features end in '-', so the target is found by its "gfx", not by the last dash.)
std::string entry_target(const std::string& triple) {
  const std::size_t amdgcn = triple.find("-amdgcn-");
  if (amdgcn == std::string::npos) return "";
  const std::size_t target = triple.find("-gfx", amdgcn);
  return target == std::string::npos ? "" : triple.substr(target + 1);
}

}  // namespace

std::string processor_of(const std::string& target_id) {
  return target_id.substr(0, target_id.find(':'));
}

std::vector<char> extract_code_object(const std::vector<char>& bytes, const std::string& arch) {
  if (is_elf(bytes)) return bytes;
  if (starts_with(bytes, "CCOB", 4)) {
    throw BackendError(
        "hip: hipRTC returned a compressed offload bundle, which stubjit does not read; "
        "remove --offload-compress from the compiler options");
  }
  if (!starts_with(bytes, bundle_magic, bundle_magic_size)) {
    throw BackendError("hip: hipRTC returned " + std::to_string(bytes.size()) +
                       " bytes that are neither an ELF code object nor an offload bundle");
  }
  const std::string processor = processor_of(arch);
  std::string found;
  for (const BundleEntry& entry : read_bundle(bytes)) {
    const std::string target = entry_target(entry.triple);
    found += (found.empty() ? "" : ", ") + entry.triple;
    if (target.empty() || processor_of(target) != processor) continue;
    std::vector<char> object(
        bytes.begin() + static_cast<std::ptrdiff_t>(entry.offset),
        bytes.begin() + static_cast<std::ptrdiff_t>(entry.offset + entry.size));
    if (!is_elf(object)) {
      throw BackendError("hip: bundle entry '" + entry.triple + "' is not an ELF code object");
    }
    return object;
  }
  throw BackendError("hip: the offload bundle from hipRTC holds no code object for " + processor +
                     " (entries: " + (found.empty() ? "none" : found) + ")");
}

}  // namespace stubjit::detail::hip
