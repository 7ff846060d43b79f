// The layer rules of docs/architecture.md, checked on the source tree: every quoted
// include of a file in a layer's folder resolves to a layer that the table in
// docs/architecture.md allows, and no backend folder includes another's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"

namespace stubjit::test {
namespace {

namespace fs = std::filesystem;

struct Layer {
  std::string name;
  std::string folder;  // relative to the source root, with a trailing '/'
  std::set<std::string> allowed;
};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" `");
  const auto last = text.find_last_not_of(" `");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream stream(row);
  std::string cell;
  std::getline(stream, cell, '|');  // before the first '|'
  while (std::getline(stream, cell, '|')) out.push_back(trim(cell));
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// The table between the layer markers; throws when there is none.
std::vector<Layer> read_layers(const fs::path& document) {
  std::ifstream in(document);
  if (!in) throw std::runtime_error("cannot read " + document.string());
  std::vector<Layer> layers;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("<!-- layers: begin -->") != std::string::npos) inside = true;
    if (line.find("<!-- layers: end -->") != std::string::npos) break;
    if (!inside || line.rfind("|", 0) != 0) continue;
    const std::vector<std::string> row = cells(line);
    if (row.size() != 3 || row[0] == "layer" || row[0].find("---") != std::string::npos) continue;
    Layer layer{row[0], row[1], {}};
    std::stringstream allowed(row[2]);
    std::string name;
    while (std::getline(allowed, name, ',')) layer.allowed.insert(trim(name));
    layers.push_back(layer);
  }
  if (layers.empty()) throw std::runtime_error("no layer table in " + document.string());
  return layers;
}

// The layer whose folder holds `relative` (the longest match), or nullptr.
const Layer* layer_of(const std::vector<Layer>& layers, const std::string& relative) {
  const Layer* best = nullptr;
  for (const Layer& layer : layers) {
    if (relative.rfind(layer.folder, 0) == 0 &&
        (!best || layer.folder.size() > best->folder.size()))
      best = &layer;
  }
  return best;
}

// "src/backends/cuda/x.cpp" -> "cuda"; "" outside a backend's own folder.
std::string backend_folder(const std::string& relative) {
  const std::string prefix = "src/backends/";
  if (relative.rfind(prefix, 0) != 0) return "";
  const std::string rest = relative.substr(prefix.size());
  const auto slash = rest.find('/');
  return slash == std::string::npos ? "" : rest.substr(0, slash);
}

// Where an include of a file at `from` (relative) resolves, relative to `root`, as the
// compiler looks: a quoted include in the including file's folder first, then (both
// forms) include/, src/ and kernels/, the library's include path. Empty when nowhere
// (system and third-party headers). `ambiguous` is set when more than one of the three
// holds it: an include that reads as one layer and compiles as another.
std::string resolve(const fs::path& root, const std::string& from, const std::string& include,
                    bool quoted, bool& ambiguous) {
  ambiguous = false;
  if (quoted) {
    const fs::path own = fs::path(from).parent_path() / include;
    if (fs::exists(root / own)) return own.lexically_normal().generic_string();
  }
  std::string found;
  for (const char* folder : {"include", "src", "kernels"}) {
    const fs::path candidate = fs::path(folder) / include;
    if (!fs::exists(root / candidate)) continue;
    if (found.empty()) {
      found = candidate.lexically_normal().generic_string();
    } else {
      ambiguous = true;
    }
  }
  return found;
}

bool is_source(const fs::path& path) {
  static const std::set<std::string> extensions = {".cpp", ".hpp", ".h",   ".c",
                                                   ".cc",  ".cxx", ".inl", ".ipp"};
  return extensions.count(path.extension().string()) != 0;
}

std::vector<std::string> violations(const fs::path& root) {
  const std::vector<Layer> layers = read_layers(root / "docs" / "architecture.md");
  std::vector<std::string> found;
  const std::regex include_line(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  for (const Layer& layer : layers) {
    const fs::path folder = root / layer.folder;
    if (!fs::exists(folder)) {
      found.push_back("the table names folder " + layer.folder + ", which does not exist");
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string from = fs::relative(entry.path(), root).generic_string();
      const Layer* from_layer = layer_of(layers, from);
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        std::smatch match;
        if (!std::regex_search(line, match, include_line)) continue;
        const bool quoted = match[1] == "\"";
        bool ambiguous = false;
        const std::string target = resolve(root, from, match[2], quoted, ambiguous);
        const std::string where = from + ":" + std::to_string(number) + ": ";
        if (target.empty()) {
          // Quoted includes are the project's own: each must be found.
          if (quoted)
            found.push_back(where + "includes \"" + std::string(match[2]) + "\", found nowhere");
          continue;
        }
        if (ambiguous)
          found.push_back(where + "includes " + std::string(match[2]) +
                          ", found in more than one of include/, src/ and kernels/");
        const Layer* to_layer = layer_of(layers, target);
        if (!to_layer) {
          found.push_back(where + "includes " + target + ", which is in no layer");
        } else if (from_layer->allowed.count(to_layer->name) == 0) {
          found.push_back(where + from_layer->name + " includes " + to_layer->name + " (" + target +
                          ")");
        }
        const std::string mine = backend_folder(from);
        const std::string theirs = backend_folder(target);
        if (!mine.empty() && !theirs.empty() && mine != theirs) {
          found.push_back(where + "backend " + mine + " includes backend " + theirs + " (" +
                          target + ")");
        }
      }
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += "  " + line + "\n";
  return text;
}

TEST(Layering, NoFileIncludesALayerItMayNotUse) {
  const std::vector<std::string> found = violations(STUBJIT_SOURCE_DIR);
  EXPECT_TRUE(found.empty()) << "layering violations (docs/architecture.md):\n" << joined(found);
}

TEST(Layering, TheTableCoversEveryLibraryFolder) {
  const std::vector<Layer> layers =
      read_layers(fs::path(STUBJIT_SOURCE_DIR) / "docs" / "architecture.md");
  for (const auto& entry : fs::directory_iterator(fs::path(STUBJIT_SOURCE_DIR) / "src")) {
    if (!entry.is_directory()) continue;
    const std::string folder = "src/" + entry.path().filename().string() + "/";
    EXPECT_NE(layer_of(layers, folder), nullptr) << folder << " is in no layer";
  }
}

// The check itself: a tree with planted violations is caught, each of them.
TEST(Layering, ThePlantedViolationsOfATestTreeAreFound) {
  TempDir dir;
  const fs::path root = dir.path();
  fs::create_directories(root / "docs");
  fs::copy_file(fs::path(STUBJIT_SOURCE_DIR) / "docs" / "architecture.md",
                root / "docs" / "architecture.md");
  for (const char* folder :
       {"include/stubjit", "kernels/stubjit", "src/support", "src/plan", "src/bind", "src/codegen",
        "src/cache", "src/capi", "src/mpi", "src/backends/alpha", "src/backends/beta",
        "src/runtime", "src/worker", "tools", "examples"})
    fs::create_directories(root / folder);
  const auto write = [&](const std::string& path, const std::string& text) {
    std::ofstream(root / path) << text;
  };
  write("include/stubjit/api.hpp", "#pragma once\n");
  write("kernels/stubjit/launch.h", "#pragma once\n");
  write("src/runtime/state.hpp", "#pragma once\n");
  write("src/backends/device.hpp", "#include \"stubjit/launch.h\"\n");
  write("src/backends/beta/beta.hpp", "#include \"backends/device.hpp\"\n");
  write("src/support/fine.cpp", "#include \"stubjit/api.hpp\"\n#include <vector>\n");
  write("src/cache/upward.cpp", "#include \"runtime/state.hpp\"\n");
  write("src/backends/alpha/sibling.cpp", "#include \"backends/beta/beta.hpp\"\n");
  write("tools/internal.cpp", "  #  include \"support/fine.cpp\"\n");
  write("examples/angle.cpp", "#include <runtime/state.hpp>\n#include <vector>\n");
  write("src/plan/missing.cpp", "#include \"plan/nowhere.hpp\"\n");
  write("include/stubjit/twice.hpp", "#pragma once\n");
  write("kernels/stubjit/twice.hpp", "#pragma once\n");
  write("src/support/twice.cpp", "#include \"stubjit/twice.hpp\"\n");
  const std::vector<std::string> found = violations(root);
  EXPECT_EQ(found.size(), 6u) << joined(found);
  const std::string text = joined(found);
  EXPECT_NE(text.find("src/cache/upward.cpp:1: cache includes runtime"), std::string::npos) << text;
  EXPECT_NE(text.find("src/backends/alpha/sibling.cpp:1: backend alpha includes backend beta"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tools/internal.cpp:1: tools includes support"), std::string::npos) << text;
  EXPECT_NE(text.find("examples/angle.cpp:1: examples includes runtime"), std::string::npos)
      << text;
  EXPECT_NE(text.find("src/plan/missing.cpp:1: includes \"plan/nowhere.hpp\", found nowhere"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("src/support/twice.cpp:1: includes stubjit/twice.hpp, found in more than one"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace stubjit::test
