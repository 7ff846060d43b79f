// Helpers of the disk-cache unit tests: files written and dated as a test needs them,
// entry names, and a tagged root with one layout directory.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "cache/binary.hpp"
#include "cache/cache_tag.hpp"
#include "cache/disk_key.hpp"
#include "cache/private_files.hpp"
#include "common/temp_dir.hpp"

namespace stubjit::detail {

// A disk key of the layout's first form and a binary of `size` bytes of `fill`: what the
// store tests keep, find and damage.
inline DiskKey fake_key(const std::string& kernel) {
  DiskKey key;
  key.directory = "cpu/target/direct-r1";
  key.text = "stubjit-disk-key 1\nkernel " + kernel + " 0\nlayout " + key.directory + "\n";
  key.name = hash128_hex(key.text);
  return key;
}

inline Binary fake_binary(std::size_t size, char fill) {
  return Binary{"elf-object", std::vector<char>(size, fill)};
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Dates a file `seconds_ago` (negative: in the future), without following a link.
inline void set_age(const std::string& path, long long seconds_ago) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const timespec when{
      static_cast<time_t>(std::chrono::duration_cast<std::chrono::seconds>(now).count() -
                          seconds_ago),
      0};
  const timespec times[2] = {when, when};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

// A name as stubjit gives entries: 32 lowercase hex digits.
inline std::string hex_name(int i) { return hash128_hex("entry " + std::to_string(i)); }

// A tagged root with one layout directory: what a runtime creates.
inline std::string tagged_root(const test::TempDir& dir) {
  EXPECT_EQ(write_cache_tag(dir.path()), "");
  const std::string sub = dir / "cpu/t/direct-r1";
  EXPECT_EQ(make_private_directory(sub, true), "");
  return sub;
}

}  // namespace stubjit::detail
