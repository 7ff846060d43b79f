#include "cache/cache_entry.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "cache/disk_key.hpp"

namespace stubjit::detail {
namespace {

constexpr char magic[8] = {'S', 'T', 'U', 'B', 'J', 'I', 'T', 'C'};
constexpr std::size_t header_size = 40;
// Sanity bound, so a corrupt size field can never make us allocate wildly.
constexpr std::uint64_t max_format_size = 256;

void put(std::vector<char>& out, std::size_t offset, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t get(const std::vector<char>& in, std::size_t offset, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= std::uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

std::uint64_t checksum(const char* key, std::size_t key_size, const char* format,
                       std::size_t format_size, const char* payload, std::size_t payload_size) {
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                       &XXH3_freeState);
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  XXH3_64bits_update(state.get(), key, key_size);
  XXH3_64bits_update(state.get(), format, format_size);
  XXH3_64bits_update(state.get(), payload, payload_size);
  return XXH3_64bits_digest(state.get());
}

}  // namespace

const char* describe(EntryProblem problem) noexcept {
  switch (problem) {
    case EntryProblem::none:
      return "valid";
    case EntryProblem::empty:
      return "empty file";
    case EntryProblem::truncated:
      return "truncated";
    case EntryProblem::bad_magic:
      return "not a stubjit cache entry (wrong magic)";
    case EntryProblem::bad_version:
      return "written by another cache-format version";
    case EntryProblem::bad_size:
      return "sizes do not match the file";
    case EntryProblem::bad_checksum:
      return "checksum mismatch";
    case EntryProblem::wrong_key:
      return "stored for another key";
  }
  return "?";
}

std::string entry_size_problem(const std::string& key, const Binary& binary) {
  if (key.size() > max_entry_key_bytes) {
    return "its key (the kernel's source) is " + std::to_string(key.size()) +
           " bytes, more than the " + std::to_string(max_entry_key_bytes) + " an entry may hold";
  }
  const std::uint64_t total = header_size + key.size() + binary.format.size() + binary.bytes.size();
  if (binary.format.size() > max_format_size || total > max_entry_bytes) {
    return "its entry would be " + std::to_string(total) + " bytes, more than the " +
           std::to_string(max_entry_bytes) + " an entry may have";
  }
  return {};
}

std::vector<char> encode_entry(const std::string& key, const Binary& binary) {
  std::vector<char> out(header_size + key.size() + binary.format.size() + binary.bytes.size());
  std::memcpy(out.data(), magic, sizeof magic);
  put(out, 8, disk_format_version, 4);
  put(out, 12, key.size(), 4);
  put(out, 16, binary.format.size(), 4);
  put(out, 20, 0, 4);
  put(out, 24, binary.bytes.size(), 8);
  put(out, 32,
      checksum(key.data(), key.size(), binary.format.data(), binary.format.size(),
               binary.bytes.data(), binary.bytes.size()),
      8);
  char* cursor = out.data() + header_size;
  std::memcpy(cursor, key.data(), key.size());
  cursor += key.size();
  std::memcpy(cursor, binary.format.data(), binary.format.size());
  cursor += binary.format.size();
  if (!binary.bytes.empty()) std::memcpy(cursor, binary.bytes.data(), binary.bytes.size());
  return out;
}

DecodedEntry decode_entry(const std::vector<char>& bytes, const std::string* expected_key) {
  DecodedEntry entry;
  auto fail = [&](EntryProblem problem) {
    entry.problem = problem;
    return entry;
  };
  if (bytes.empty()) return fail(EntryProblem::empty);
  if (bytes.size() < header_size) {
    return fail(std::memcmp(bytes.data(), magic, std::min(bytes.size(), sizeof magic)) == 0
                    ? EntryProblem::truncated
                    : EntryProblem::bad_magic);
  }
  if (std::memcmp(bytes.data(), magic, sizeof magic) != 0) return fail(EntryProblem::bad_magic);
  if (get(bytes, 8, 4) != disk_format_version) return fail(EntryProblem::bad_version);
  const std::uint64_t key_size = get(bytes, 12, 4);
  const std::uint64_t format_size = get(bytes, 16, 4);
  const std::uint64_t payload_size = get(bytes, 24, 8);
  if (get(bytes, 20, 4) != 0 || key_size > max_entry_key_bytes || format_size > max_format_size ||
      payload_size > bytes.size()) {
    return fail(payload_size > bytes.size() ? EntryProblem::truncated : EntryProblem::bad_size);
  }
  const std::uint64_t total = header_size + key_size + format_size + payload_size;
  if (bytes.size() < total) return fail(EntryProblem::truncated);
  if (bytes.size() > total) return fail(EntryProblem::bad_size);
  const char* key = bytes.data() + header_size;
  const char* format = key + key_size;
  const char* payload = format + format_size;
  entry.key.assign(key, key_size);
  if (checksum(key, key_size, format, format_size, payload, payload_size) != get(bytes, 32, 8)) {
    return fail(EntryProblem::bad_checksum);
  }
  if (expected_key && entry.key != *expected_key) return fail(EntryProblem::wrong_key);
  entry.binary.format.assign(format, format_size);
  entry.binary.bytes.assign(payload, payload + payload_size);
  return entry;
}

}  // namespace stubjit::detail
