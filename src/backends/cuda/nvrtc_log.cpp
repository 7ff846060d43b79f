#include "backends/cuda/nvrtc_log.hpp"

#include <cctype>
#include <sstream>
#include <vector>

namespace stubjit::detail {
namespace {

// NVRTC indents the quoted source line and its caret by two spaces.
constexpr std::size_t quote_indent = 2;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "file(line): rest" -> file, line, rest; false when the line is not a diagnostic.
bool parse_location(const std::string& line, std::string& file, std::string& number,
                    std::string& rest) {
  const std::size_t close = line.find("): ");
  if (close == std::string::npos) return false;
  const std::size_t open = line.rfind('(', close);
  if (open == std::string::npos || open == 0 || open + 1 == close) return false;
  for (std::size_t k = open + 1; k < close; ++k)
    if (!std::isdigit(static_cast<unsigned char>(line[k]))) return false;
  file = line.substr(0, open);
  if (file.find(' ') != std::string::npos) return false;
  number = line.substr(open + 1, close - open - 1);
  rest = line.substr(close + 3);
  return true;
}

// Column of the caret in `caret_line` (1-based, relative to the quoted source), or 0.
std::size_t caret_column(const std::string& caret_line) {
  const std::size_t at = caret_line.find('^');
  if (at == std::string::npos || at < quote_indent) return 0;
  for (std::size_t k = 0; k < at; ++k)
    if (caret_line[k] != ' ') return 0;
  return at - quote_indent + 1;
}

}  // namespace

std::string normalize_nvrtc_log(const std::string& log) {
  if (log.empty()) return log;  // the common case: nothing to read
  const std::vector<std::string> lines = split_lines(log);
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string file, number, rest;
    if (parse_location(lines[i], file, number, rest)) {
      const std::size_t column = i + 2 < lines.size() ? caret_column(lines[i + 2]) : 0;
      out += file + ":" + number + (column ? ":" + std::to_string(column) : "") + ": " + rest;
    } else {
      out += lines[i];
    }
    out += '\n';
  }
  return out;
}

}  // namespace stubjit::detail
