// A cache bundle opened for reading and verified whole before anything uses it: the
// header, the checksum over every byte, the manifest, and every entry against the
// manifest and against the checks a cache makes on load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/bundle_io.hpp"
#include "stubjit/cache_bundle.hpp"

namespace stubjit::detail {

class BundleReader {
 public:
  // Throws CacheBundleError, naming `path` and what is wrong, unless every check passes.
  explicit BundleReader(const std::string& path);

  const std::string& path() const { return path_; }
  const CacheBundleManifest& manifest() const { return manifest_; }

  // Entry `index`'s bytes, read again and checked again (the manifest's checksum and
  // the entry's own checks): throws CacheBundleError if the file changed since it
  // was verified.
  std::vector<char> entry_bytes(std::size_t index) const;

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void check_checksum(const std::vector<char>& header_bytes, std::uint64_t expected,
                      std::uint64_t file_size) const;
  void check_entries();

  std::string path_;
  FileDescriptor fd_;
  CacheBundleManifest manifest_;
  std::vector<std::uint64_t> offsets_;  // of each entry in the file
};

}  // namespace stubjit::detail
