#include "cache/cache_layout.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cache/private_files.hpp"

namespace stubjit::detail {
namespace {

constexpr std::size_t hash_digits = 32;

bool is_lower_hex(std::string_view text) {
  if (text.size() != hash_digits) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// <32 hex><suffix>
bool is_hash_name(std::string_view name, std::string_view suffix) {
  return ends_with(name, suffix) && is_lower_hex(name.substr(0, name.size() - suffix.size()));
}

std::int64_t modification_ns(const struct stat& info) {
  return std::int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

struct Listing {
  std::vector<std::string> names;
  std::string problem;  // why it could not be read
};

// The names in a directory; a link is followed only if `follow_link` (the root may be
// one, nothing inside it may).
Listing list_directory(const std::string& path, bool follow_link) {
  Listing listing;
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow_link ? 0 : O_NOFOLLOW));
  DIR* dir = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (!dir) {
    listing.problem = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return listing;
  }
  while (true) {
    errno = 0;
    const dirent* item = ::readdir(dir);
    if (!item) {
      if (errno != 0) listing.problem = std::strerror(errno);
      break;
    }
    const std::string name = item->d_name;
    if (name != "." && name != "..") listing.names.push_back(name);
  }
  ::closedir(dir);  // closes fd too
  return listing;
}

class LayoutWalker {
 public:
  explicit LayoutWalker(std::string root) : root_(std::move(root)) {}

  LayoutScan walk() {
    struct stat info {};
    if (::stat(root_.c_str(), &info) != 0 && errno == ENOENT) return std::move(scan_);
    walk_level(root_, "", 0);
    return std::move(scan_);
  }

 private:
  // level 0: the root; 1: <backend>; 2: <target>; 3: <mode>-r<rank>, holding files.
  void walk_level(const std::string& path, const std::string& relative, int level) {
    const Listing listing = list_directory(path, level == 0);
    if (!listing.problem.empty()) {
      scan_.skipped.push_back({path, "cannot be read: " + listing.problem});
      return;
    }
    for (const std::string& name : listing.names) {
      const std::string child = path + "/" + name;
      if (level == 3) {
        add_file(child, relative, name);
        continue;
      }
      const bool fits = level == 2 ? is_variant_component(name) : is_name_component(name);
      if (!fits || !is_real_directory(child)) continue;  // not stubjit's: never entered
      if (std::string problem = check_private_directory(child, false); !problem.empty()) {
        // "<child> is writable by group or others": the path is given apart.
        if (problem.rfind(child + " ", 0) == 0) problem.erase(0, child.size() + 1);
        scan_.skipped.push_back({child, problem});
        continue;
      }
      walk_level(child, relative.empty() ? name : relative + "/" + name, level + 1);
    }
  }

  static bool is_real_directory(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
  }

  void add_file(const std::string& path, const std::string& directory, const std::string& name) {
    LayoutFile file;
    if (is_entry_name(name)) {
      file.kind = LayoutFileKind::entry;
    } else if (is_lock_name(name)) {
      file.kind = LayoutFileKind::lock;
    } else if (is_temporary_name(name)) {
      file.kind = LayoutFileKind::temporary;
    } else {
      return;
    }
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
    // Another user's file (only a hand can put it in a private directory) is neither
    // counted nor removed: cleanup could not remove it, and the cap is the user's.
    if (info.st_uid != ::geteuid()) {
      scan_.foreign.push_back({path, "is owned by user " + std::to_string(info.st_uid) +
                                         ", not by user " + std::to_string(::geteuid()) +
                                         ": neither counted nor removed"});
      return;
    }
    file.path = path;
    file.directory = directory;
    file.name = name;
    file.bytes = static_cast<std::uint64_t>(info.st_size);
    file.allocated_bytes = static_cast<std::uint64_t>(info.st_blocks) * 512;
    file.modified_ns = modification_ns(info);
    scan_.files.push_back(std::move(file));
  }

  std::string root_;
  LayoutScan scan_;
};

}  // namespace

bool is_entry_name(std::string_view name) { return is_hash_name(name, entry_suffix); }

bool is_lock_name(std::string_view name) { return is_hash_name(name, lock_suffix); }

std::uint64_t build_lock_byte(std::string_view entry_stem) {
  // The stem is a hash: its digits spread the keys evenly, and two keys that share a
  // byte only wait for each other's compile.
  std::uint64_t byte = 0;
  for (char c : entry_stem.substr(0, 15)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
    byte = byte * 16 + std::uint64_t(digit);
  }
  return byte;
}

bool is_temporary_name(std::string_view name) {
  // publish_file: temporary_prefix + "<32 hex>.bin" + "." + mkstemp's 6 characters.
  const std::string_view prefix = temporary_prefix;
  constexpr std::size_t unique = 6;
  if (name.size() != prefix.size() + hash_digits + 4 + 1 + unique) return false;
  if (name.substr(0, prefix.size()) != prefix) return false;
  const std::string_view stem = name.substr(prefix.size(), hash_digits + 4);
  if (!is_entry_name(stem) || name[prefix.size() + stem.size()] != '.') return false;
  for (char c : name.substr(name.size() - unique))
    if (!is_alnum(c)) return false;
  return true;
}

bool is_name_component(std::string_view name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  for (char c : name)
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

bool is_variant_component(std::string_view name) {
  for (std::string_view mode : {"direct", "spread", "multi"}) {
    if (name.size() == mode.size() + 3 && name.substr(0, mode.size()) == mode &&
        name.substr(mode.size(), 2) == "-r" && name.back() >= '1' && name.back() <= '8') {
      return true;
    }
  }
  return false;
}

bool is_entry_path(const std::string& relative) {
  std::vector<std::string> parts;
  for (const auto& part : std::filesystem::path(relative)) parts.push_back(part.string());
  return parts.size() == 4 && is_name_component(parts[0]) && is_name_component(parts[1]) &&
         is_variant_component(parts[2]) && is_entry_name(parts[3]);
}

std::string normalize_root(const std::string& root) {
  if (root.empty()) return root;
  // Absolute once, now: a runtime that opened "cache" keeps using the directory it
  // inspected and tagged, whatever the working directory becomes.
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(root, error);
  if (error) path = root;
  std::string normal = path.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

LayoutScan scan_layout(const std::string& root) { return LayoutWalker(root).walk(); }

}  // namespace stubjit::detail
