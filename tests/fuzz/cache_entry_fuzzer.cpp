// Fuzzes the disk cache's entry reader (decode_entry) with arbitrary file contents. It
// must never read outside the bytes or crash, and its verdict must be consistent:
//   - an entry it accepts is exactly what encode_entry writes for the key and binary it
//     returned (the format has one encoding), and checks again against its own key;
//   - checked against any other key, an accepted entry is wrong_key;
//   - a rejected entry hands out no payload.
// The first byte picks whether the rest is read as a file, or split into a key, format
// name and payload that are encoded first (so the fuzzer also reaches valid entries
// and their one-byte corruptions).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cache/cache_entry.hpp"
#include "fuzz/fuzz_input.hpp"

namespace stubjit::fuzz {
namespace {

using detail::Binary;
using detail::DecodedEntry;
using detail::EntryProblem;

[[noreturn]] void fail(const char* what, const std::vector<char>& bytes) {
  std::fprintf(stderr, "cache entry fuzzer: %s (entry of %zu bytes)\n", what, bytes.size());
  std::abort();
}

void check_decoding(const std::vector<char>& bytes) {
  const DecodedEntry decoded = detail::decode_entry(bytes, nullptr);
  if (decoded.problem != EntryProblem::none) {
    if (!decoded.binary.bytes.empty() || !decoded.binary.format.empty())
      fail("a rejected entry handed out a payload", bytes);
    if (detail::describe(decoded.problem) == nullptr)
      fail("a problem without a description", bytes);
    return;
  }
  if (detail::encode_entry(decoded.key, decoded.binary) != bytes)
    fail("an accepted entry is not what encode_entry writes for its contents", bytes);
  if (detail::decode_entry(bytes, &decoded.key).problem != EntryProblem::none)
    fail("an accepted entry fails against its own key", bytes);
  const std::string other = decoded.key + "x";
  if (detail::decode_entry(bytes, &other).problem != EntryProblem::wrong_key)
    fail("an accepted entry is not wrong_key for another key", bytes);
}

}  // namespace
}  // namespace stubjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stubjit::fuzz;
  FuzzInput in(data, size);
  const std::uint8_t how = in.u8();
  if ((how & 1) == 0) {
    const std::string rest = in.rest();
    check_decoding(std::vector<char>(rest.begin(), rest.end()));
    return 0;
  }
  // Encoded from parts, then one byte changed (or none).
  const std::size_t key_size = in.below(64);
  const std::size_t format_size = in.below(16);
  const std::uint32_t flip_at = in.u32();
  const std::uint8_t flip_with = in.u8();
  std::string rest = in.rest();
  const std::string key = rest.substr(0, key_size);
  rest.erase(0, key.size());
  stubjit::detail::Binary binary;
  binary.format = rest.substr(0, format_size);
  rest.erase(0, binary.format.size());
  binary.bytes.assign(rest.begin(), rest.end());
  if (!stubjit::detail::entry_size_problem(key, binary).empty()) return 0;
  std::vector<char> bytes = stubjit::detail::encode_entry(key, binary);
  const DecodedEntry decoded = stubjit::detail::decode_entry(bytes, &key);
  if (decoded.problem != EntryProblem::none || decoded.key != key ||
      decoded.binary.format != binary.format || decoded.binary.bytes != binary.bytes)
    fail("an entry as encode_entry wrote it does not read back", bytes);
  if ((how & 2) != 0 && !bytes.empty()) {
    bytes[flip_at % bytes.size()] ^= static_cast<char>(flip_with | 1);  // a real change
    const DecodedEntry corrupted = stubjit::detail::decode_entry(bytes, &key);
    if (corrupted.problem == EntryProblem::none)
      fail("an entry with one byte changed was accepted", bytes);
  }
  check_decoding(bytes);
  return 0;
}
