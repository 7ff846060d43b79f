// The entry format: every kind of damage is detected before a payload is handed out.
#include <gtest/gtest.h>

#include <cstring>

#include "cache/cache_entry.hpp"
#include "cache/disk_key.hpp"

namespace stubjit::detail {
namespace {

Binary sample_binary() {
  Binary binary{"elf-object", {}};
  for (int i = 0; i < 300; ++i) binary.bytes.push_back(static_cast<char>(i * 7 + 3));
  return binary;
}

const std::string sample_key = "stubjit-disk-key 1\nkernel saxpy 0123\nlayout cpu/x/direct-r1\n";

TEST(EntryFormat, RoundTripsKeyFormatAndPayload) {
  const Binary binary = sample_binary();
  const std::vector<char> bytes = encode_entry(sample_key, binary);
  const DecodedEntry decoded = decode_entry(bytes, &sample_key);
  ASSERT_EQ(decoded.problem, EntryProblem::none);
  EXPECT_EQ(decoded.key, sample_key);
  EXPECT_EQ(decoded.binary.format, "elf-object");
  EXPECT_EQ(decoded.binary.bytes, binary.bytes);
  // The header is the documented 40 bytes, little-endian, magic first.
  EXPECT_EQ(bytes.size(), 40 + sample_key.size() + 10 + binary.bytes.size());
  EXPECT_EQ(std::string(bytes.data(), 8), "STUBJITC");
  EXPECT_EQ(static_cast<unsigned char>(bytes[8]), disk_format_version);
}

TEST(EntryFormat, EmptyPayloadRoundTrips) {
  const Binary empty{"cubin", {}};
  const DecodedEntry decoded = decode_entry(encode_entry(sample_key, empty), &sample_key);
  ASSERT_EQ(decoded.problem, EntryProblem::none);
  EXPECT_TRUE(decoded.binary.bytes.empty());
}

TEST(EntryFormat, ZeroLengthIsEmpty) {
  EXPECT_EQ(decode_entry({}, &sample_key).problem, EntryProblem::empty);
}

TEST(EntryFormat, EveryTruncationIsDetected) {
  const std::vector<char> bytes = encode_entry(sample_key, sample_binary());
  for (std::size_t length = 1; length < bytes.size(); ++length) {
    const std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<long>(length));
    const EntryProblem problem = decode_entry(cut, &sample_key).problem;
    EXPECT_EQ(problem, EntryProblem::truncated) << "length " << length;
  }
}

TEST(EntryFormat, TrailingBytesAreDetected) {
  std::vector<char> bytes = encode_entry(sample_key, sample_binary());
  bytes.push_back('x');
  EXPECT_EQ(decode_entry(bytes, &sample_key).problem, EntryProblem::bad_size);
}

TEST(EntryFormat, EverySingleBitFlipIsDetected) {
  const std::vector<char> bytes = encode_entry(sample_key, sample_binary());
  for (std::size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::vector<char> flipped = bytes;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    const DecodedEntry decoded = decode_entry(flipped, &sample_key);
    EXPECT_NE(decoded.problem, EntryProblem::none) << "bit " << bit;
    EXPECT_TRUE(decoded.binary.bytes.empty()) << "bit " << bit;
  }
}

TEST(EntryFormat, WrongMagicAndVersionAreNamed) {
  std::vector<char> bytes = encode_entry(sample_key, sample_binary());
  std::vector<char> magic = bytes;
  magic[0] = 'X';
  EXPECT_EQ(decode_entry(magic, &sample_key).problem, EntryProblem::bad_magic);
  std::vector<char> version = bytes;
  version[8] = static_cast<char>(disk_format_version + 1);
  EXPECT_EQ(decode_entry(version, &sample_key).problem, EntryProblem::bad_version);
  // Something short that is not ours at all.
  EXPECT_EQ(decode_entry({'E', 'L', 'F'}, &sample_key).problem, EntryProblem::bad_magic);
}

TEST(EntryFormat, AnIntactEntryOfAnotherKeyIsRefused) {
  const std::string other = sample_key + "options -ffast-math\n";
  const std::vector<char> bytes = encode_entry(other, sample_binary());
  const DecodedEntry decoded = decode_entry(bytes, &sample_key);
  EXPECT_EQ(decoded.problem, EntryProblem::wrong_key);
  EXPECT_TRUE(decoded.binary.bytes.empty());
  // Without an expected key (stubjit cache verify) the same entry is intact.
  EXPECT_EQ(decode_entry(bytes, nullptr).problem, EntryProblem::none);
}

TEST(EntryFormat, HugeSizeFieldsDoNotAllocate) {
  std::vector<char> bytes = encode_entry(sample_key, sample_binary());
  for (int i = 24; i < 32; ++i) bytes[static_cast<std::size_t>(i)] = '\xff';  // payload size
  EXPECT_EQ(decode_entry(bytes, &sample_key).problem, EntryProblem::truncated);
  bytes = encode_entry(sample_key, sample_binary());
  for (int i = 12; i < 16; ++i) bytes[static_cast<std::size_t>(i)] = '\xff';  // key size
  EXPECT_EQ(decode_entry(bytes, &sample_key).problem, EntryProblem::bad_size);
}

// The key holds the kernel's source: a kernel of a few megabytes still round-trips,
// and one beyond the limits is refused before it is written.
TEST(EntryFormat, LargeKeysRoundTripUpToTheLimit) {
  const std::string big_key = sample_key + "body " + std::string(3 << 20, 'k') + "\n";
  EXPECT_EQ(entry_size_problem(big_key, sample_binary()), "");
  const DecodedEntry decoded = decode_entry(encode_entry(big_key, sample_binary()), &big_key);
  EXPECT_EQ(decoded.problem, EntryProblem::none);
  const std::string too_big_key(max_entry_key_bytes + 1, 'k');
  EXPECT_NE(entry_size_problem(too_big_key, sample_binary()).find("key"), std::string::npos);
  const Binary too_big_binary{"cubin", std::vector<char>(max_entry_bytes, 'b')};
  EXPECT_NE(entry_size_problem(sample_key, too_big_binary).find("more than"), std::string::npos);
}

TEST(EntryFormat, ProblemsHaveReadableDescriptions) {
  EXPECT_STREQ(describe(EntryProblem::bad_checksum), "checksum mismatch");
  EXPECT_STREQ(describe(EntryProblem::empty), "empty file");
}

}  // namespace
}  // namespace stubjit::detail
