// Readers of the AMDGPU code objects hipRTC makes, for the group, reduce and scan compile
// tests: the processors' warp widths and machine flags, an ELF64 section by name, an
// unsigned value of the kernel's metadata note, whether code holds an s_barrier, and
// the checks every stub's code object passes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/elf_symbols.hpp"

namespace stubjit::test::amdgpu {

inline std::uint32_t warp_of(const std::string& arch) { return arch == "gfx90a" ? 64 : 32; }

// EF_AMDGPU_MACH (the low byte of e_flags) of the processors tested.
inline std::uint32_t amdgpu_mach(const std::string& arch) { return arch == "gfx90a" ? 0x3f : 0x36; }

template <class T>
inline bool read_at(const std::vector<char>& bytes, std::uint64_t at, T& out) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + at, sizeof(T));
  return true;
}

// The bytes of the ELF64 section named `name`; nullopt where there is none.
inline std::optional<std::vector<char>> section(const std::vector<char>& elf,
                                                const std::string& name) {
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!read_at(elf, 40, shoff) || !read_at(elf, 58, shentsize) || !read_at(elf, 60, shnum) ||
      !read_at(elf, 62, shstrndx) || shstrndx >= shnum)
    return std::nullopt;
  const auto header = [&](std::uint16_t i, std::uint32_t& name_at, std::uint64_t& offset,
                          std::uint64_t& size) {
    const std::uint64_t at = shoff + std::uint64_t(i) * shentsize;
    return read_at(elf, at, name_at) && read_at(elf, at + 24, offset) &&
           read_at(elf, at + 32, size) && offset <= elf.size() && elf.size() - offset >= size;
  };
  std::uint32_t unused = 0;
  std::uint64_t names = 0, names_size = 0;
  if (!header(shstrndx, unused, names, names_size)) return std::nullopt;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint32_t name_at = 0;
    std::uint64_t offset = 0, size = 0;
    if (!header(i, name_at, offset, size) || name_at >= names_size) continue;
    const char* text = elf.data() + names + name_at;
    if (std::string(text, strnlen(text, names_size - name_at)) != name) continue;
    return std::vector<char>(elf.begin() + std::ptrdiff_t(offset),
                             elf.begin() + std::ptrdiff_t(offset + size));
  }
  return std::nullopt;
}

// The unsigned integer that follows the MessagePack string `key` in the code object's
// metadata note (one kernel per code object); nullopt where there is none.
inline std::optional<std::uint32_t> metadata_uint(const std::vector<char>& elf,
                                                  const std::string& key) {
  std::string packed(1, char(key.size() < 32 ? 0xa0 | key.size() : 0xd9));
  if (key.size() >= 32) packed += char(key.size());
  packed += key;
  const std::string bytes(elf.begin(), elf.end());
  const std::size_t at = bytes.find(packed);
  if (at == std::string::npos || at + packed.size() >= bytes.size()) return std::nullopt;
  const auto byte = [&](std::size_t i) { return std::uint32_t(std::uint8_t(bytes.at(i))); };
  const std::size_t v = at + packed.size();
  const std::uint32_t first = byte(v);
  if (first < 0x80) return first;                            // positive fixint
  if (first == 0xcc) return byte(v + 1);                     // uint 8
  if (first == 0xcd) return byte(v + 1) << 8 | byte(v + 2);  // uint 16, big-endian
  if (first == 0xce) return byte(v + 1) << 24 | byte(v + 2) << 16 | byte(v + 3) << 8 | byte(v + 4);
  return std::nullopt;
}

// s_barrier, SOPP opcode 10 on GFX9 and GFX10 alike: 0xbf8a0000, little-endian, at an
// instruction boundary (every instruction is a multiple of 4 bytes).
inline bool has_s_barrier(const std::vector<char>& text) {
  for (std::size_t at = 0; at + 4 <= text.size(); at += 4) {
    std::uint32_t word = 0;
    std::memcpy(&word, text.data() + at, 4);
    if (word == 0xbf8a0000u) return true;
  }
  return false;
}

// Expects `bytes` (of a Binary in `format`) to be an AMDGPU code object for `arch` that
// defines `entry` and its kernel descriptor, with the processor's wavefront width in
// its metadata.
inline void expect_kernel_object(const std::string& format, const std::vector<char>& bytes,
                                 const std::string& entry, const std::string& arch) {
  EXPECT_EQ(format, "amdgpu-code-object");
  const auto elf = read_elf(bytes);
  ASSERT_TRUE(elf) << entry << ": not an ELF64 image";
  EXPECT_EQ(elf->machine, elf_machine_amdgpu);
  EXPECT_TRUE(elf->defines(entry)) << entry << " not defined";
  EXPECT_TRUE(elf->defines(entry + ".kd")) << entry << ": no kernel descriptor";
  std::uint32_t flags = 0;
  ASSERT_TRUE(read_at(bytes, 48, flags));
  EXPECT_EQ(flags & 0xff, amdgpu_mach(arch)) << entry << " not for " << arch;
  EXPECT_EQ(metadata_uint(bytes, ".wavefront_size"), warp_of(arch));
}

}  // namespace stubjit::test::amdgpu
