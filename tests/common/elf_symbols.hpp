// A minimal ELF64 reader for tests: is a compiled stub a well-formed ELF object for
// the expected machine, and which symbols does it define? (cubins and AMDGPU code
// objects are ELF64; so are the CPU backend's objects.)
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace stubjit::test {

inline constexpr std::uint16_t elf_machine_x86_64 = 62;
inline constexpr std::uint16_t elf_machine_cuda = 190;
inline constexpr std::uint16_t elf_machine_amdgpu = 224;

inline constexpr std::uint16_t elf_type_relocatable = 1;
inline constexpr std::uint16_t elf_type_shared_object = 3;

struct ElfInfo {
  std::uint16_t type = 0;  // e_type: relocatable, shared object, ...
  std::uint16_t machine = 0;
  std::vector<std::string> symbols;  // names from .symtab and .dynsym
  bool defines(const std::string& name) const {
    for (const std::string& s : symbols)
      if (s == name) return true;
    return false;
  }
};

namespace elf_detail {
template <class T>
bool read(const std::vector<char>& bytes, std::uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}
}  // namespace elf_detail

// Parses a little-endian ELF64 image; nullopt when it is not one or is truncated.
inline std::optional<ElfInfo> read_elf(const std::vector<char>& bytes) {
  using elf_detail::read;
  if (bytes.size() < 64 || std::memcmp(bytes.data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0)
    return std::nullopt;
  if (bytes[4] != 2 || bytes[5] != 1) return std::nullopt;  // ELFCLASS64, little-endian
  ElfInfo info;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  if (!read(bytes, 16, info.type) || !read(bytes, 18, info.machine) || !read(bytes, 40, shoff) ||
      !read(bytes, 58, shentsize) || !read(bytes, 60, shnum) || shentsize < 64) {
    return std::nullopt;
  }
  struct Section {
    std::uint32_t type;
    std::uint64_t offset, size, entsize;
    std::uint32_t link;
  };
  std::vector<Section> sections(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + std::uint64_t(i) * shentsize;
    Section& s = sections[i];
    if (!read(bytes, at + 4, s.type) || !read(bytes, at + 24, s.offset) ||
        !read(bytes, at + 32, s.size) || !read(bytes, at + 40, s.link) ||
        !read(bytes, at + 56, s.entsize)) {
      return std::nullopt;
    }
    if (s.type != 8 /* SHT_NOBITS */ &&
        (s.offset > bytes.size() || bytes.size() - s.offset < s.size))
      return std::nullopt;
  }
  for (const Section& s : sections) {
    if (s.type != 2 /* SHT_SYMTAB */ && s.type != 11 /* SHT_DYNSYM */) continue;
    if (s.entsize < 24 || s.link >= sections.size()) return std::nullopt;
    const Section& strings = sections[s.link];
    for (std::uint64_t at = s.offset; at + 24 <= s.offset + s.size; at += s.entsize) {
      std::uint32_t name = 0;
      std::uint16_t section_index = 0;
      if (!read(bytes, at, name) || !read(bytes, at + 6, section_index)) return std::nullopt;
      if (name == 0 || section_index == 0 /* undefined */ || name >= strings.size) continue;
      const char* text = bytes.data() + strings.offset + name;
      info.symbols.emplace_back(text, strnlen(text, strings.size - name));
    }
  }
  return info;
}

}  // namespace stubjit::test
