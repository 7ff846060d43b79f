#include "codegen/user_code_check.hpp"

#include <cctype>
#include <string_view>
#include <vector>

#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A problem found, at a line and column of one part.
struct Finding {
  int line;
  int column;
  std::string message;
};

// Reads one part (the body or the helpers) the way the preprocessor tokenizes it.
class Reader {
 public:
  Reader(std::string_view text, const UserCodeRules& rules) : text_(text), rules_(rules) {}

  // The first problem, or none (line 0).
  Finding read() {
    while (!failed() && at_ < text_.size()) {
      if (at_line_start_) {
        // Comments are blanks to the preprocessor: "/* note */ #define" is a directive.
        skip_blanks_and_comments();
        at_line_start_ = false;
        if (failed()) break;
        if (hash_length() != 0) {
          directive();
          continue;
        }
      }
      code_character(nesting_);
    }
    if (failed()) return finding_;
    if (!nesting_.empty()) {
      const Open& open = nesting_.back();
      return {open.line, open.column,
              std::string("'") + open.bracket + "' is never closed: the code must stay " +
                  "inside the place the stub gives it"};
    }
    if (!conditionals_.empty()) {
      return {conditionals_.back().line, 1, "#if without #endif"};
    }
    return {};
  }

 private:
  struct Open {
    char bracket;
    int line;
    int column;
  };
  struct Conditional {
    int line;
    std::vector<Open> at_start;  // the nesting when the #if began: each branch starts there
    long first_branch_end = -1;  // how deep the first branch ended
  };

  bool failed() const { return finding_.line != 0; }
  void fail(int line, int column, std::string message) {
    if (!failed()) finding_ = {line, column, std::move(message)};
  }
  char peek(std::size_t ahead = 0) const {
    return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0';
  }
  void advance() {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
      at_line_start_ = true;
    } else {
      ++column_;
    }
    ++at_;
  }
  // The character `ahead` characters on, line splices not counted: what the compiler
  // sees after it joins the lines, for tokens of two or more characters ("/*", "*/",
  // "//", digraphs), which a splice may split.
  char peek_joined(std::size_t ahead) const {
    std::size_t pos = at_;
    for (std::size_t k = 0;; ++k) {
      while (const std::size_t length = splice_length(pos)) pos += length;
      if (k == ahead) break;
      ++pos;
    }
    return pos < text_.size() ? text_[pos] : '\0';
  }
  // The characters of a line splice at `pos`, 0 for none: a backslash, then blanks or
  // a carriage return (which GCC and Clang join too, with a warning), then a newline.
  std::size_t splice_length(std::size_t pos) const {
    if (pos >= text_.size() || text_[pos] != '\\') return 0;
    std::size_t end = pos + 1;
    while (end < text_.size() && (text_[end] == ' ' || text_[end] == '\t' || text_[end] == '\r' ||
                                  text_[end] == '\f' || text_[end] == '\v'))
      ++end;
    return end < text_.size() && text_[end] == '\n' ? end + 1 - pos : 0;
  }
  // One character, and the line splices after it.
  void advance_joined() {
    advance();
    while (splice()) {
    }
  }
  // A backslash before a newline joins two lines (a line splice).
  bool splice() {
    const std::size_t length = splice_length(at_);
    if (length == 0) return false;
    for (std::size_t k = 0; k < length; ++k) advance();
    at_line_start_ = false;
    return true;
  }
  void skip_blanks() {
    while (at_ < text_.size() && (peek() == ' ' || peek() == '\t' || splice())) {
      if (peek() == ' ' || peek() == '\t') advance();
    }
  }

  // Blanks, splices and /* comments */, which the preprocessor reads as one blank each
  // (a comment that spans lines leaves the logical line where it was).
  void skip_blanks_and_comments() {
    for (;;) {
      skip_blanks();
      if (peek() != '/' || peek_joined(1) != '*') return;
      block_comment();
      if (failed()) return;
    }
  }

  // A /* comment */ from its opening '/'.
  void block_comment() {
    const int line = line_, column = column_;
    advance_joined();  // '/'
    advance_joined();  // '*'
    for (;;) {
      while (splice()) {
      }
      if (at_ >= text_.size()) return fail(line, column, "unterminated /* comment");
      if (peek() == '*' && peek_joined(1) == '/') {
        advance_joined();
        advance();
        return;
      }
      advance();
    }
  }

  // How many characters the '#' at the current position takes: 1 for '#', 2 for the
  // digraph '%:', 0 when there is none.
  std::size_t hash_length() const {
    if (peek() == '#') return 1;
    return peek() == '%' && peek_joined(1) == ':' ? 2 : 0;
  }

  // The bracket a digraph at the current position stands for ('\0' when none):
  // <% %> <: :> are { } [ ]. "<::" is '<' then "::" unless a ':' or '>' follows it
  // (C++11 [lex.pptoken]), so std::vector<::T> holds no bracket.
  char digraph() const {
    if (peek() == '<' && peek_joined(1) == '%') return '{';
    if (peek() == '%' && peek_joined(1) == '>') return '}';
    if (peek() == ':' && peek_joined(1) == '>') return ']';
    if (peek() == '<' && peek_joined(1) == ':') {
      if (peek_joined(2) == ':' && peek_joined(3) != ':' && peek_joined(3) != '>') return '\0';
      return '[';
    }
    return '\0';
  }

  // One character (or a whole comment or literal) of code; brackets go to `nesting`.
  void code_character(std::vector<Open>& nesting) {
    if (splice()) return;
    if (const char bracket = digraph()) {
      bracket_character(bracket, nesting);  // at the digraph's first character
      if (failed()) return;
      advance_joined();
      advance();
      return;
    }
    const char c = peek();
    if (c == '/' && peek_joined(1) == '/') {
      while (at_ < text_.size() && peek() != '\n') {
        if (!splice()) advance();
      }
      return;
    }
    if (c == '/' && peek_joined(1) == '*') return block_comment();
    if (c == '"') {
      if (raw_string_prefix()) return raw_string();
      return quoted('"');
    }
    if (c == '\'' && !digit_separator()) return quoted('\'');
    bracket_character(c, nesting);
    if (!failed()) advance();
  }

  // Records an opening bracket or matches a closing one, at the current line and
  // column; any other character is ignored.
  void bracket_character(char c, std::vector<Open>& nesting) {
    if (c == '{' || c == '(' || c == '[') {
      nesting.push_back({c, line_, column_});
    } else if (c == '}' || c == ')' || c == ']') {
      const char opener = c == '}' ? '{' : c == ')' ? '(' : '[';
      if (nesting.empty()) {
        return fail(line_, column_,
                    std::string("'") + c + "' closes what it did not open: the code must " +
                        "stay inside the place the stub gives it");
      }
      if (nesting.back().bracket != opener) {
        return fail(line_, column_,
                    std::string("'") + c + "' closes the '" + nesting.back().bracket +
                        "' opened at line " + std::to_string(nesting.back().line));
      }
      nesting.pop_back();
    }
  }

  // The identifier characters right before the current position, line splices
  // between them dropped (R\<newline>"...": a raw string all the same).
  std::string token_before() const {
    std::string token;
    std::size_t begin = at_;
    while (begin > 0) {
      const char c = text_[begin - 1];
      if (is_ident(c) || c == '\'' || c == '.') {
        token.insert(token.begin(), c);
        --begin;
        continue;
      }
      // A splice ends at a newline: find its backslash, past blanks and a CR.
      if (c != '\n') break;
      std::size_t back = begin - 1;
      while (back > 0 &&
             (text_[back - 1] == ' ' || text_[back - 1] == '\t' || text_[back - 1] == '\r' ||
              text_[back - 1] == '\f' || text_[back - 1] == '\v'))
        --back;
      if (back == 0 || text_[back - 1] != '\\' || splice_length(back - 1) != begin - (back - 1))
        break;
      begin = back - 1;
    }
    return token;
  }
  // A ' inside a number (1'000'000) is a digit separator, not a character literal.
  bool digit_separator() const {
    const std::string token = token_before();
    return !token.empty() && std::isdigit(static_cast<unsigned char>(token[0]));
  }
  bool raw_string_prefix() const {
    const std::string token = token_before();
    return token == "R" || token == "u8R" || token == "uR" || token == "UR" || token == "LR";
  }

  void quoted(char quote) {
    const int line = line_, column = column_;
    advance();
    while (at_ < text_.size() && peek() != quote) {
      if (peek() == '\n') break;
      if (peek() == '\\') {
        if (splice()) continue;
        advance();
        if (at_ >= text_.size()) break;
      }
      advance();
    }
    if (peek() != quote) {
      return fail(line, column,
                  quote == '"' ? "unterminated string literal" : "unterminated character literal");
    }
    advance();
  }

  // R"delimiter( ... )delimiter"
  void raw_string() {
    const int line = line_, column = column_;
    advance();  // the quote
    std::string delimiter;
    while (at_ < text_.size() && peek() != '(' && delimiter.size() <= 16 && peek() != '\n') {
      delimiter += peek();
      advance();
    }
    if (peek() != '(') return fail(line, column, "malformed raw string literal");
    const std::string end = ")" + delimiter + "\"";
    const std::size_t close = text_.find(end, at_);
    if (close == std::string_view::npos)
      return fail(line, column, "unterminated raw string literal");
    while (at_ < close + end.size()) advance();
  }

  // The rest of a logical line (splices joined), from the current position. A /* comment
  // */ is one blank of it, even where it spans lines.
  std::string logical_line() {
    std::string line;
    while (at_ < text_.size() && peek() != '\n') {
      if (splice()) continue;
      if (peek() == '/' && peek_joined(1) == '*') {
        block_comment();
        if (failed()) return line;
        at_line_start_ = false;
        line += ' ';
        continue;
      }
      line += peek();
      advance();
    }
    return line;
  }

  void directive() {
    const int line = line_, column = column_;
    for (std::size_t n = hash_length(); n > 0; --n) advance_joined();  // '#' or '%:'
    skip_blanks_and_comments();
    if (failed()) return;
    std::string name;
    for (;;) {  // a splice may split the name: #def\<newline>ine
      while (splice()) {
      }
      if (at_ >= text_.size() || !is_ident(peek())) break;
      name += peek();
      advance();
    }
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      conditionals_.push_back({line, nesting_});
    } else if (name == "elif" || name == "else" || name == "elifdef" || name == "elifndef") {
      if (conditionals_.empty()) return fail(line, column, "#" + name + " without #if");
      Conditional& open = conditionals_.back();
      if (!branch_ends_alike(open)) return;
      nesting_ = open.at_start;
    } else if (name == "endif") {
      if (conditionals_.empty()) return fail(line, column, "#endif without #if");
      if (!branch_ends_alike(conditionals_.back())) return;
      conditionals_.pop_back();
    } else if (name == "include" || name == "include_next" || name == "import" || name == "embed") {
      return include(line, column, name);
    } else if (name == "define") {
      return define(line, column);
    }
    logical_line();
  }

  // The branches of one conditional are alternatives: each must leave the brackets
  // nested as deep as the first one did, or the code after #endif would depend on which
  // branch the compiler takes.
  bool branch_ends_alike(Conditional& open) {
    const long depth = static_cast<long>(nesting_.size());
    if (open.first_branch_end < 0) open.first_branch_end = depth;
    if (depth == open.first_branch_end) return true;
    fail(open.line, 1,
         "the branches of this #if leave the brackets nested differently: the code must stay "
         "inside the place the stub gives it");
    return false;
  }

  void include(int line, int column, const std::string& name) {
    skip_blanks();
    const std::string rest = logical_line();
    const char first = rest.empty() ? '\0' : rest[0];
    const char last = first == '<' ? '>' : '"';
    const std::size_t end = first == '<' || first == '"' ? rest.find(last, 1) : std::string::npos;
    if (end == std::string::npos) {
      return fail(line, column,
                  "#" + name + " through a macro or of a malformed name is refused: it " +
                      "cannot be checked");
    }
    const std::string path = rest.substr(1, end - 1);
    bool climbs = path.empty() || path[0] == '/';
    for (std::size_t at = 0; at < path.size(); at = path.find('/', at) + 1) {
      if (path.compare(at, 3, "../") == 0 || path.substr(at) == "..") climbs = true;
      if (path.find('/', at) == std::string::npos) break;
    }
    if (climbs) {
      return fail(line, column,
                  "#" + name + " of " + first + path + last +
                      " is refused: only headers of the toolchain, named by a relative path " +
                      "without '..', may be included");
    }
    if (first == '"' && !rules_.quoted_includes) {
      return fail(line, column,
                  "#" + name + " \"" + path + "\" is refused: a quoted include names a " +
                      "file of yours, and this runtime has no include directories " +
                      "(RuntimeOptions::include_directories)");
    }
  }

  // The replacement of a macro must balance its brackets: a macro that expands to a
  // lone '}' would close the kernel's function behind the check's back.
  void define(int line, int column) {
    const std::string rest = logical_line();
    Reader inner(rest, rules_);
    inner.at_line_start_ = false;
    std::vector<Open> nesting;
    while (!inner.failed() && inner.at_ < inner.text_.size()) inner.code_character(nesting);
    if (inner.failed()) return fail(line, column, "in this #define: " + inner.finding_.message);
    if (!nesting.empty()) {
      return fail(line, column,
                  std::string("this #define leaves '") + nesting.back().bracket +
                      "' open: a macro's replacement must balance its brackets");
    }
  }

  std::string_view text_;
  const UserCodeRules& rules_;
  std::size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool at_line_start_ = true;
  std::vector<Open> nesting_;
  std::vector<Conditional> conditionals_;
  Finding finding_{0, 0, {}};
};

}  // namespace

namespace {

void check_part(const KernelSource& kernel, const UserCodeRules& rules,
                const std::string& stub_source, const char* part, const std::string& text) {
  const Finding finding = Reader(text, rules).read();
  if (finding.line == 0) return;
  throw CompileError(kernel.name,
                     kernel.name + "." + part + ":" + std::to_string(finding.line) + ":" +
                         std::to_string(finding.column) + ": error: " + finding.message + "\n",
                     stub_source);
}

}  // namespace

void check_user_code(const KernelSource& kernel, const UserCodeRules& rules,
                     const std::string& stub_source) {
  for (const auto& [part, text] :
       {std::pair<const char*, const std::string*>{"helpers", &kernel.helpers},
        {"body", &kernel.body},
        {"filter", &kernel.filter}}) {
    check_part(kernel, rules, stub_source, part, *text);
  }
  // A custom combiner's expressions (result<T>) and a custom order's (sort<T>) are user
  // code too.
  for (const Param& param : kernel.signature) {
    if (param.sort == SortOrder::custom) check_part(kernel, rules, stub_source, "less", param.less);
    if (param.combiner != Combiner::custom) continue;
    check_part(kernel, rules, stub_source, "combine", param.combine);
    check_part(kernel, rules, stub_source, "identity", param.identity);
  }
}

}  // namespace stubjit::detail
