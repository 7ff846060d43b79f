#include "hip/fake_code_object.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <memory>

namespace stubjit::test::fake_hip {
namespace {

constexpr unsigned em_amdgpu = 224;
constexpr std::uint32_t nt_amdgpu_metadata = 32;

// A MessagePack value: what the metadata uses (maps, arrays, strings, integers,
// booleans; floats and binaries are skipped).
struct Value {
  enum class Kind { other, integer, string, array, map } kind = Kind::other;
  std::int64_t integer = 0;
  std::string text;
  std::vector<Value> items;                      // array
  std::vector<std::pair<Value, Value>> entries;  // map

  const Value* at(const std::string& key) const {
    for (const auto& [k, v] : entries)
      if (k.kind == Kind::string && k.text == key) return &v;
    return nullptr;
  }
};

class Reader {
 public:
  Reader(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}

  bool read(Value& out, int depth = 0) {
    if (depth > 32 || at_ >= size_) return false;
    const unsigned char tag = data_[at_++];
    if (tag <= 0x7f) return integer(out, tag);
    if (tag >= 0xe0) return integer(out, static_cast<std::int8_t>(tag));
    if ((tag & 0xf0) == 0x80) return map(out, tag & 0x0f, depth);
    if ((tag & 0xf0) == 0x90) return array(out, tag & 0x0f, depth);
    if ((tag & 0xe0) == 0xa0) return string(out, tag & 0x1f);
    std::uint64_t n = 0;
    switch (tag) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        return true;  // nil, false, true
      case 0xcc:
        return unsigned_of(1, n) && integer(out, static_cast<std::int64_t>(n));
      case 0xcd:
        return unsigned_of(2, n) && integer(out, static_cast<std::int64_t>(n));
      case 0xce:
        return unsigned_of(4, n) && integer(out, static_cast<std::int64_t>(n));
      case 0xcf:
        return unsigned_of(8, n) && integer(out, static_cast<std::int64_t>(n));
      case 0xd0:
        return unsigned_of(1, n) && integer(out, static_cast<std::int8_t>(n));
      case 0xd1:
        return unsigned_of(2, n) && integer(out, static_cast<std::int16_t>(n));
      case 0xd2:
        return unsigned_of(4, n) && integer(out, static_cast<std::int32_t>(n));
      case 0xd3:
        return unsigned_of(8, n) && integer(out, static_cast<std::int64_t>(n));
      case 0xca:
        return skip(4);
      case 0xcb:
        return skip(8);
      case 0xd9:
        return unsigned_of(1, n) && string(out, n);
      case 0xda:
        return unsigned_of(2, n) && string(out, n);
      case 0xdb:
        return unsigned_of(4, n) && string(out, n);
      case 0xc4:
        return unsigned_of(1, n) && skip(n);
      case 0xc5:
        return unsigned_of(2, n) && skip(n);
      case 0xc6:
        return unsigned_of(4, n) && skip(n);
      case 0xdc:
        return unsigned_of(2, n) && array(out, n, depth);
      case 0xdd:
        return unsigned_of(4, n) && array(out, n, depth);
      case 0xde:
        return unsigned_of(2, n) && map(out, n, depth);
      case 0xdf:
        return unsigned_of(4, n) && map(out, n, depth);
      default:
        return false;
    }
  }

 private:
  bool skip(std::uint64_t n) {
    if (n > size_ - at_) return false;
    at_ += n;
    return true;
  }
  // Big-endian, as MessagePack stores it.
  bool unsigned_of(int bytes, std::uint64_t& n) {
    if (static_cast<std::size_t>(bytes) > size_ - at_) return false;
    n = 0;
    for (int i = 0; i < bytes; ++i) n = n << 8 | data_[at_++];
    return true;
  }
  static bool integer(Value& out, std::int64_t n) {
    out.kind = Value::Kind::integer;
    out.integer = n;
    return true;
  }
  bool string(Value& out, std::uint64_t n) {
    if (n > size_ - at_) return false;
    out.kind = Value::Kind::string;
    out.text.assign(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return true;
  }
  bool array(Value& out, std::uint64_t n, int depth) {
    out.kind = Value::Kind::array;
    for (std::uint64_t i = 0; i < n; ++i) {
      out.items.emplace_back();
      if (!read(out.items.back(), depth + 1)) return false;
    }
    return true;
  }
  bool map(Value& out, std::uint64_t n, int depth) {
    out.kind = Value::Kind::map;
    for (std::uint64_t i = 0; i < n; ++i) {
      out.entries.emplace_back();
      if (!read(out.entries.back().first, depth + 1) || !read(out.entries.back().second, depth + 1))
        return false;
    }
    return true;
  }

  const unsigned char* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

template <class T>
bool read_at(const unsigned char* bytes, std::size_t size, std::size_t offset, T& out) {
  if (offset > size || size - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes + offset, sizeof(T));
  return true;
}

std::size_t aligned4(std::size_t n) { return (n + 3) & ~std::size_t(3); }

bool read_metadata(const Value& root, CodeObject& out, std::string& why) {
  if (const Value* target = root.at("amdhsa.target")) out.target = target->text;
  const Value* kernels = root.at("amdhsa.kernels");
  if (!kernels || kernels->kind != Value::Kind::array) {
    why = "no amdhsa.kernels in the metadata";
    return false;
  }
  for (const Value& entry : kernels->items) {
    const Value* name = entry.at(".name");
    if (!name) continue;
    Kernel kernel;
    if (const Value* bound = entry.at(".max_flat_workgroup_size"))
      kernel.max_flat_workgroup_size = static_cast<unsigned>(bound->integer);
    if (const Value* arguments = entry.at(".args")) {
      for (const Value& argument : arguments->items) {
        const Value* kind = argument.at(".value_kind");
        if (kind && kind->text.rfind("hidden_", 0) == 0) continue;
        const Value* offset = argument.at(".offset");
        const Value* size = argument.at(".size");
        if (!offset || !size) {
          why = "an argument of " + name->text + " without .offset or .size";
          return false;
        }
        kernel.arguments.push_back(
            {static_cast<std::size_t>(offset->integer), static_cast<std::size_t>(size->integer)});
      }
    }
    out.kernels[name->text] = kernel;
  }
  return true;
}

}  // namespace

std::size_t elf_size(const void* bytes) {
  Elf64_Ehdr header;
  std::memcpy(&header, bytes, sizeof header);
  return header.e_shoff + std::size_t(header.e_shentsize) * header.e_shnum;
}

bool read_code_object(const void* image, std::size_t size, CodeObject& out, std::string& why) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  out = CodeObject{};
  Elf64_Ehdr header;
  if (!read_at(bytes, size, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64) {
    why = "not a 64-bit ELF";
    return false;
  }
  if (header.e_machine != em_amdgpu) {
    why = "an ELF for machine " + std::to_string(header.e_machine) + ", not AMDGPU";
    return false;
  }
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!read_at(bytes, size, header.e_shoff + i * sizeof(Elf64_Shdr), section) ||
        section.sh_offset > size || section.sh_size > size - section.sh_offset) {
      why = "a section outside the image";
      return false;
    }
    if (section.sh_type != SHT_NOTE) continue;
    std::size_t at = section.sh_offset;
    const std::size_t end = section.sh_offset + section.sh_size;
    while (at + sizeof(Elf64_Nhdr) <= end) {
      Elf64_Nhdr note;
      std::memcpy(&note, bytes + at, sizeof note);
      const std::size_t name_at = at + sizeof note;
      const std::size_t desc_at = name_at + aligned4(note.n_namesz);
      if (desc_at > end || note.n_descsz > end - desc_at) break;
      const std::string name(reinterpret_cast<const char*>(bytes + name_at),
                             note.n_namesz ? note.n_namesz - 1 : 0);
      if (note.n_type == nt_amdgpu_metadata && name == "AMDGPU") {
        Value root;
        Reader reader(bytes + desc_at, note.n_descsz);
        if (!reader.read(root) || root.kind != Value::Kind::map) {
          why = "unreadable metadata";
          return false;
        }
        return read_metadata(root, out, why);
      }
      at = desc_at + aligned4(note.n_descsz);
    }
  }
  why = "no AMDGPU metadata note";
  return false;
}

}  // namespace stubjit::test::fake_hip
