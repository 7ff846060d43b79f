#include "cache/bundle_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <tuple>

#include "cache/bundle_entry_check.hpp"
#include "cache/bundle_format.hpp"
#include "cache/cache_entry.hpp"
#include "cache/disk_key.hpp"

namespace stubjit::detail {
namespace {

using ToolchainTuple = std::tuple<std::string, std::string, std::string, std::string>;

std::string describe_entry(std::size_t index, const CacheBundleEntry& entry) {
  return ": entry " + std::to_string(index + 1) + " (" + entry.path +
         (entry.kernel.empty() ? "" : ", kernel " + entry.kernel) + ") ";
}

}  // namespace

BundleReader::BundleReader(const std::string& path) : path_(path) {
  fd_ = FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd_.valid()) fail(std::string("cannot be opened: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_.get(), &info) != 0)
    fail(std::string("cannot be examined: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) fail("is not a regular file");
  const auto file_size = static_cast<std::uint64_t>(info.st_size);
  if (file_size == 0) fail("is empty");
  std::vector<char> header_bytes;
  const std::size_t header_read =
      std::size_t(std::min<std::uint64_t>(file_size, bundle_header_size));
  if (const std::string error = read_at(fd_.get(), 0, header_read, header_bytes); !error.empty())
    fail("cannot be read: " + error);
  BundleHeader header;
  if (const std::string problem = decode_bundle_header(header_bytes, file_size, header);
      !problem.empty())
    fail(problem);
  // First the checksum over every byte: a flipped bit anywhere is reported as what it
  // is, not as whatever the damaged manifest or entry would then seem to say.
  check_checksum(header_bytes, header.checksum, file_size);
  std::vector<char> manifest_bytes;
  if (const std::string error = read_at(fd_.get(), header.manifest_offset,
                                        std::size_t(header.manifest_size), manifest_bytes);
      !error.empty())
    fail("cannot be read: " + error);
  manifest_ = parse_manifest(std::string(manifest_bytes.begin(), manifest_bytes.end()),
                             "cache bundle " + path_);
  if (manifest_.format_version != header.entry_format)
    fail("has a manifest of cache format " + std::to_string(manifest_.format_version) +
         " and a header of format " + std::to_string(header.entry_format));
  if (manifest_.entries.size() != header.entry_count)
    fail("has a manifest of " + std::to_string(manifest_.entries.size()) +
         " entries and a header of " + std::to_string(header.entry_count));
  std::uint64_t offset = bundle_header_size;
  for (std::size_t i = 0; i < manifest_.entries.size(); ++i) {
    const CacheBundleEntry& entry = manifest_.entries[i];
    if (entry.bytes > max_entry_bytes)
      fail(describe_entry(i, entry) + "is " + std::to_string(entry.bytes) +
           " bytes long, more than the " + std::to_string(max_entry_bytes) + " an entry may have");
    offsets_.push_back(offset);
    offset += entry.bytes;
    if (offset > header.manifest_offset) break;
  }
  if (offset != header.manifest_offset)
    fail("has entries whose sizes do not add up to where its manifest begins");
  check_entries();
}

void BundleReader::fail(const std::string& what) const {
  throw CacheBundleError("cache bundle " + path_ + (what.rfind(':', 0) == 0 ? "" : " ") + what);
}

void BundleReader::check_checksum(const std::vector<char>& header_bytes, std::uint64_t expected,
                                  std::uint64_t file_size) const {
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                       &XXH3_freeState);
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  constexpr std::size_t chunk = std::size_t(1) << 20;
  std::vector<char> bytes;
  for (std::uint64_t offset = bundle_header_size; offset < file_size; offset += chunk) {
    const std::size_t size = std::size_t(std::min<std::uint64_t>(chunk, file_size - offset));
    if (const std::string error = read_at(fd_.get(), offset, size, bytes); !error.empty())
      fail("cannot be read: " + error);
    XXH3_64bits_update(state.get(), bytes.data(), bytes.size());
  }
  XXH3_64bits_update(state.get(), header_bytes.data(), 40);
  if (XXH3_64bits_digest(state.get()) != expected)
    fail("is damaged: its checksum does not match its bytes");
}

void BundleReader::check_entries() {
  std::set<std::string> paths;
  std::set<ToolchainTuple> from_entries;
  for (std::size_t i = 0; i < manifest_.entries.size(); ++i) {
    const CacheBundleEntry& entry = manifest_.entries[i];
    if (!paths.insert(entry.path).second) fail(describe_entry(i, entry) + "appears twice");
    std::vector<char> bytes;
    if (const std::string error = read_at(fd_.get(), offsets_[i], std::size_t(entry.bytes), bytes);
        !error.empty())
      fail("cannot be read: " + error);
    if (entry_checksum(bytes) != entry.checksum)
      fail(describe_entry(i, entry) + "does not match the checksum its manifest gives");
    const EntryFacts facts = check_entry_file(bytes, entry.path);
    if (!facts.problem.empty()) fail(describe_entry(i, entry) + "is refused: " + facts.problem);
    if (facts.kernel != entry.kernel || facts.backend != entry.backend ||
        facts.target != entry.target || facts.format != entry.format)
      fail(describe_entry(i, entry) +
           "is not what its manifest says (kernel, backend, target or format)");
    from_entries.emplace(facts.backend, facts.target, facts.compiler, facts.generator);
  }
  std::set<ToolchainTuple> listed;
  for (const CacheBundleToolchain& t : manifest_.toolchains)
    listed.emplace(t.backend, t.target, t.compiler, t.generator);
  if (listed != from_entries || listed.size() != manifest_.toolchains.size())
    fail("has a manifest whose toolchains are not those of its entries");
}

std::vector<char> BundleReader::entry_bytes(std::size_t index) const {
  const CacheBundleEntry& entry = manifest_.entries.at(index);
  std::vector<char> bytes;
  if (const std::string error =
          read_at(fd_.get(), offsets_[index], std::size_t(entry.bytes), bytes);
      !error.empty())
    fail("cannot be read: " + error);
  if (entry_checksum(bytes) != entry.checksum ||
      !check_entry_file(bytes, entry.path).problem.empty())
    fail("changed while it was being imported" + describe_entry(index, entry) +
         "no longer matches: import it again");
  return bytes;
}

}  // namespace stubjit::detail
