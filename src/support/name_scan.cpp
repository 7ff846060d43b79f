#include "support/name_scan.hpp"

namespace stubjit::detail {
namespace {

// A backslash, blanks, then a newline: a line splice (compilers accept blanks between
// the two, with a warning), which can join the halves of a name.
bool has_line_splice(std::string_view text) {
  for (std::size_t at = text.find('\\'); at != std::string_view::npos;
       at = text.find('\\', at + 1)) {
    std::size_t next = at + 1;
    while (next < text.size() && (text[next] == ' ' || text[next] == '\t' || text[next] == '\r'))
      ++next;
    if (next < text.size() && text[next] == '\n') return true;
  }
  return false;
}

}  // namespace

bool text_may_name(std::string_view text, const std::vector<std::string_view>& names) {
  for (std::string_view name : names)
    if (text.find(name) != std::string_view::npos) return true;
  for (std::string_view unseen : {"##", "%:%:", "\\u", "\\U", "include", "import", "embed"})
    if (text.find(unseen) != std::string_view::npos) return true;
  return has_line_splice(text);
}

}  // namespace stubjit::detail
