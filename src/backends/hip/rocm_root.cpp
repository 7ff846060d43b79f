#include "backends/hip/rocm_root.hpp"

#include <algorithm>
#include <filesystem>

namespace stubjit::detail::hip {
namespace {

namespace fs = std::filesystem;

// The numbers of "rocm-6.4.0" (6, 4, 0); empty for a name without a version.
std::vector<int> version_of(const std::string& name) {
  std::vector<int> numbers;
  const std::string prefix = "rocm-";
  if (name.rfind(prefix, 0) != 0) return numbers;
  std::size_t at = prefix.size();
  while (at < name.size()) {
    std::size_t end = at;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end == at) return {};  // not a version ("rocm-dev")
    numbers.push_back(std::stoi(name.substr(at, std::min<std::size_t>(end - at, 9))));
    if (end < name.size() && name[end] != '.') return {};
    at = end + 1;
  }
  return numbers;
}

std::string canonical_or_empty(const fs::path& path) {
  std::error_code error;
  const fs::path resolved = fs::canonical(path, error);
  return error ? "" : resolved.string();
}

}  // namespace

std::vector<RocmRoot> rocm_roots(const std::string& rocm_path, const std::string& opt_dir) {
  std::vector<RocmRoot> roots;
  if (!rocm_path.empty()) roots.push_back({rocm_path + "/lib", "$ROCM_PATH=" + rocm_path});

  std::vector<std::pair<std::vector<int>, std::string>> versioned;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(opt_dir, error)) {
    const std::string name = entry.path().filename().string();
    const std::vector<int> version = version_of(name);
    if (!version.empty()) versioned.emplace_back(version, entry.path().string());
  }
  std::sort(versioned.begin(), versioned.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [version, dir] : versioned) roots.push_back({dir + "/lib", dir});
  roots.push_back({opt_dir + "/rocm/lib", opt_dir + "/rocm"});

  // Once each: /opt/rocm is usually a link to one of the versioned directories.
  std::vector<RocmRoot> unique;
  std::vector<std::string> seen;
  for (const RocmRoot& root : roots) {
    const std::string where = canonical_or_empty(root.lib_dir);
    if (where.empty()) continue;  // no such directory
    if (std::find(seen.begin(), seen.end(), where) != seen.end()) continue;
    seen.push_back(where);
    unique.push_back(root);
  }
  unique.push_back({"", "the system's library path"});
  return unique;
}

RocmRoot choose_rocm_root(const std::vector<RocmRoot>& roots,
                          const std::vector<std::string>& runtime_names,
                          const std::vector<std::string>& rtc_names) {
  for (const RocmRoot& root : roots) {
    if (root.lib_dir.empty()) return root;
    for (const std::vector<std::string>* names : {&runtime_names, &rtc_names}) {
      for (const std::string& name : *names) {
        std::error_code error;
        if (fs::exists(fs::path(root.lib_dir) / name, error)) return root;
      }
    }
  }
  return {"", "the system's library path"};
}

std::vector<std::string> in_root(const RocmRoot& root, const std::vector<std::string>& names) {
  if (root.lib_dir.empty()) return names;
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back(root.lib_dir + "/" + name);
  return paths;
}

}  // namespace stubjit::detail::hip
