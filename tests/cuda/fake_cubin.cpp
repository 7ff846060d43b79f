#include "cuda/fake_cubin.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace stubjit::test::fake_cuda {
namespace {

constexpr unsigned em_cuda = 190;
// .nv.info entries: {u8 format, u8 attribute, u16 size-or-value}, then `size` payload
// bytes for the format that has one.
constexpr unsigned char format_sized = 0x04;
constexpr unsigned char attribute_param_info = 0x17;    // per parameter: ordinal, offset, size
constexpr unsigned char attribute_max_threads = 0x05;   // x, y, z of __launch_bounds__
constexpr unsigned char attribute_cuda_version = 0x37;  // e.g. 130 for CUDA 13.0

template <class T>
bool read_at(const unsigned char* bytes, std::size_t size, std::size_t offset, T& out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes + offset, sizeof(T));
  return true;
}

bool read_nv_info(const unsigned char* data, std::size_t size, KernelInfo& kernel, int& version) {
  std::size_t at = 0;
  while (at + 4 <= size) {
    const unsigned char format = data[at];
    const unsigned char attribute = data[at + 1];
    std::uint16_t length = 0;
    std::memcpy(&length, data + at + 2, 2);
    at += 4;
    if (format != format_sized) continue;  // the value was in the length field
    if (at + length > size) return false;
    const unsigned char* payload = data + at;
    if (attribute == attribute_param_info && length >= 12) {
      std::uint32_t ordinal_word = 0, size_word = 0;
      std::memcpy(&ordinal_word, payload + 4, 4);
      std::memcpy(&size_word, payload + 8, 4);
      const std::size_t ordinal = ordinal_word & 0xffff;
      if (kernel.param_sizes.size() <= ordinal) kernel.param_sizes.resize(ordinal + 1, 0);
      kernel.param_sizes[ordinal] = (size_word >> 18) & 0x3fff;
    } else if (attribute == attribute_max_threads && length >= 12) {
      std::uint32_t xyz[3];
      std::memcpy(xyz, payload, 12);
      kernel.max_threads = xyz[0] * xyz[1] * xyz[2];
    } else if (attribute == attribute_cuda_version && length >= 4) {
      std::uint32_t value = 0;
      std::memcpy(&value, payload, 4);
      version = static_cast<int>(value);
    }
    at += length;
  }
  return true;
}

}  // namespace

bool read_image(const void* image, std::size_t size, ImageInfo& info, std::string& why) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  info = ImageInfo{};
  if (size >= 4 && std::memcmp(bytes, ELFMAG, SELFMAG) != 0) {
    // Not an ELF: PTX is text that names its version.
    const std::string head(reinterpret_cast<const char*>(bytes), std::min<std::size_t>(size, 4096));
    if (head.find(".version") == std::string::npos || head.find(".target") == std::string::npos) {
      why = "neither a CUBIN nor PTX";
      return false;
    }
    info.ptx = true;
    return true;
  }
  Elf64_Ehdr header;
  if (!read_at(bytes, size, 0, header) || header.e_ident[EI_CLASS] != ELFCLASS64) {
    why = "not a 64-bit ELF";
    return false;
  }
  if (header.e_machine != em_cuda) {
    why = "an ELF for machine " + std::to_string(header.e_machine) + ", not CUDA";
    return false;
  }
  info.arch = static_cast<int>((header.e_flags >> 8) & 0xff);
  Elf64_Shdr names;
  if (header.e_shstrndx >= header.e_shnum ||
      !read_at(bytes, size, header.e_shoff + header.e_shstrndx * sizeof(Elf64_Shdr), names)) {
    why = "no section names";
    return false;
  }
  const std::string prefix = ".nv.info.";
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!read_at(bytes, size, header.e_shoff + i * sizeof(Elf64_Shdr), section) ||
        section.sh_offset > size || section.sh_size > size - section.sh_offset ||
        names.sh_offset + section.sh_name >= size) {
      why = "a section outside the image";
      return false;
    }
    const char* name = reinterpret_cast<const char*>(bytes + names.sh_offset + section.sh_name);
    const std::string section_name(name, strnlen(name, size - names.sh_offset - section.sh_name));
    if (section_name != ".nv.info" && section_name.rfind(prefix, 0) != 0) continue;
    KernelInfo kernel;
    if (!read_nv_info(bytes + section.sh_offset, section.sh_size, kernel, info.cuda_version)) {
      why = "a malformed " + section_name;
      return false;
    }
    if (section_name != ".nv.info") info.kernels[section_name.substr(prefix.size())] = kernel;
  }
  return true;
}

}  // namespace stubjit::test::fake_cuda
