// A string builder that knows the line it is on, for #line directives.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace stubjit::detail {

class SourceWriter {
 public:
  SourceWriter() = default;
  // A writer whose text will follow `lines_before` lines written elsewhere: its
  // numbering continues after them.
  explicit SourceWriter(std::size_t lines_before) : line_(lines_before) {}

  // Appends text verbatim.
  void raw(std::string_view text) {
    text_.append(text);
    line_ += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  // Appends one line at an indentation of `indent` levels.
  void line(int indent, std::string_view text) {
    text_.append(static_cast<std::size_t>(2 * indent), ' ');
    raw(text);
    raw("\n");
  }
  // Appends text as a block that ends with a newline.
  void block(std::string_view text) {
    raw(text);
    if (!text.empty() && text.back() != '\n') raw("\n");
  }
  // Emits `#line 1 "<file>"`: the next line counts as line 1 of `file`.
  void restart_numbering(std::string_view file) {
    raw("#line 1 \"");
    raw(file);
    raw("\"\n");
    line_ = 0;
  }
  // The 1-based number of the line the next character goes on.
  std::size_t next_line() const { return line_ + 1; }
  std::size_t size() const { return text_.size(); }
  std::string_view text() const { return text_; }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
  std::size_t line_ = 0;
};

}  // namespace stubjit::detail
