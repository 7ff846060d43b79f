// The reader that turns hipRTC's output into a loadable AMDGPU ELF: a bare ELF passes
// through, a clang offload bundle yields the entry of the requested processor, and
// anything else is refused with a reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "backends/hip/code_object.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail::hip {
namespace {

std::vector<char> fake_elf(char tag) {
  std::vector<char> bytes(64, tag);
  std::memcpy(bytes.data(),
              "\x7f"
              "ELF",
              4);
  return bytes;
}

void put_u64(std::vector<char>& out, std::uint64_t value) {
  const char* bytes = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(value));
}

// Writes a bundle in clang-offload-bundler's layout: header, then the entries' data.
std::vector<char> bundle(const std::vector<std::pair<std::string, std::vector<char>>>& entries) {
  std::size_t header = 24 + 8;
  for (const auto& entry : entries) header += 24 + entry.first.size();
  std::vector<char> out(std::begin("__CLANG_OFFLOAD_BUNDLE__"),
                        std::end("__CLANG_OFFLOAD_BUNDLE__") - 1);
  put_u64(out, entries.size());
  std::uint64_t offset = header;
  for (const auto& [triple, data] : entries) {
    put_u64(out, offset);
    put_u64(out, data.size());
    put_u64(out, triple.size());
    out.insert(out.end(), triple.begin(), triple.end());
    offset += data.size();
  }
  for (const auto& entry : entries) out.insert(out.end(), entry.second.begin(), entry.second.end());
  return out;
}

TEST(HipCodeObject, BareElfPassesThrough) {
  const std::vector<char> elf = fake_elf('a');
  EXPECT_EQ(extract_code_object(elf, "gfx90a"), elf);
}

TEST(HipCodeObject, BundleYieldsTheEntryOfTheRequestedProcessor) {
  const std::vector<char> bytes =
      bundle({{"host-x86_64-unknown-linux-gnu", {}},
              {"hipv4-amdgcn-amd-amdhsa--gfx1030", fake_elf('r')},
              {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", fake_elf('c')}});
  EXPECT_EQ(extract_code_object(bytes, "gfx90a"), fake_elf('c'));
  EXPECT_EQ(extract_code_object(bytes, "gfx90a:xnack-"), fake_elf('c'));
  EXPECT_EQ(extract_code_object(bytes, "gfx1030"), fake_elf('r'));
}

TEST(HipCodeObject, OlderTripleSpellingIsRead) {
  const std::vector<char> bytes = bundle({{"hip-amdgcn-amd-amdhsa-gfx906", fake_elf('o')}});
  EXPECT_EQ(extract_code_object(bytes, "gfx906"), fake_elf('o'));
}

TEST(HipCodeObject, BundleWithoutTheProcessorNamesWhatItHolds) {
  const std::vector<char> bytes = bundle({{"hipv4-amdgcn-amd-amdhsa--gfx1030", fake_elf('r')}});
  try {
    extract_code_object(bytes, "gfx90a");
    FAIL() << "returned an entry for another processor";
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("gfx90a"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("--gfx1030"), std::string::npos) << error.what();
  }
}

TEST(HipCodeObject, EntryThatIsNotAnElfIsRefused) {
  const std::vector<char> bytes =
      bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", std::vector<char>(64, 'x')}});
  EXPECT_THROW(extract_code_object(bytes, "gfx90a"), BackendError);
}

TEST(HipCodeObject, TruncatedOrOutOfRangeBundlesAreRefused) {
  std::vector<char> bytes = bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", fake_elf('c')}});
  // Cut inside the entry's data, inside its header, and right after the magic.
  for (std::size_t keep : {bytes.size() - 10, std::size_t(40), std::size_t(24)}) {
    EXPECT_THROW(
        extract_code_object(std::vector<char>(bytes.begin(), bytes.begin() + keep), "gfx90a"),
        BackendError)
        << keep;
  }
  // An entry count far beyond the data.
  std::vector<char> huge = bytes;
  const std::uint64_t count = 1ull << 40;
  std::memcpy(huge.data() + 24, &count, sizeof(count));
  EXPECT_THROW(extract_code_object(huge, "gfx90a"), BackendError);
}

TEST(HipCodeObject, CompressedBundleAndUnknownBytesAreRefusedWithAReason) {
  try {
    extract_code_object({'C', 'C', 'O', 'B', 1, 0, 0, 0}, "gfx90a");
    FAIL();
  } catch (const BackendError& error) {
    EXPECT_NE(std::string(error.what()).find("compressed"), std::string::npos);
  }
  EXPECT_THROW(extract_code_object(std::vector<char>(100, 'z'), "gfx90a"), BackendError);
  EXPECT_THROW(extract_code_object({}, "gfx90a"), BackendError);
}

TEST(HipCodeObject, ProcessorOfDropsTargetFeatures) {
  EXPECT_EQ(processor_of("gfx90a:sramecc+:xnack-"), "gfx90a");
  EXPECT_EQ(processor_of("gfx1030"), "gfx1030");
}

}  // namespace
}  // namespace stubjit::detail::hip
