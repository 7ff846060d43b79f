// The checks on a kernel's body and helpers before compiling (user_code_check.hpp):
// what a compiler would accept inside the kernel's function is accepted, and code that
// would leave it, or include what it may not, is refused with the line and column.
#include <gtest/gtest.h>

#include "codegen/user_code_check.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

KernelSource kernel(const std::string& body, const std::string& helpers = "") {
  return {"k", {inout<float>("y")}, body, helpers, {}};
}

// The log of the CompileError, or "" when the code is accepted.
std::string refusal(const KernelSource& source, UserCodeRules rules = {}) {
  try {
    check_user_code(source, rules, "generated source");
  } catch (const CompileError& error) {
    EXPECT_EQ(error.kernel(), "k");
    EXPECT_EQ(error.source(), "generated source");
    return error.log();
  }
  return "";
}

TEST(UserCodeCheck, AcceptsWhatAKernelBodyHolds) {
  for (const char* body : {
           "y = 1;",
           "if (y > 0) { y = 2; } else { y = (3 + 4) * 2; }",
           "const char* s = \"}{)(\"; (void)s; y = 1;",            // brackets in a string
           "const char c = '}'; (void)c; y = 1;",                  // in a character literal
           "const char q = '\\''; (void)q; y = 1;",                // an escaped quote
           "// } a comment\ny = 1; /* { another */",               // in comments
           "const char* r = R\"x(})\")x\"; (void)r; y = 1;",       // in a raw string
           "const long n = 1'000'000; y = float(n);",              // digit separators
           "const wchar_t w = L'{'; (void)w; y = 1;",              // a prefixed character literal
           "#if 1\nif (y) {\n#else\nif (!y) {\n#endif\ny = 1; }",  // branches alike
           "#define TWICE(v) ((v) * 2)\ny = TWICE(y);",            // a balanced macro
           "#define LONG_MACRO(a, b) \\\n  ((a) + (b))\ny = LONG_MACRO(1, 2);",  // a splice
           "#include <cmath>\ny = 1;",                            // a toolchain header
           "y = 1; <% y = 2; %> float a<:2:> = {}; (void)a;",     // digraphs that balance
           "struct T {}; std::vector<::T> v; (void)v; y = 1;",    // "<::" is not a digraph
           "/* note */ #define ONE 1\ny = ONE;",                  // a directive behind a comment
           "y = 1; /\\\n* } a comment split after its slash */",  // a spliced "/*"
           "y = 1; /\\\n/ } a line comment split after its slash\n",
           "#define M(a) ( \\\r\n  (a) + 1)\r\ny = M(1);\r\n",  // a splice before CR LF
           "const char* s = \"a\\\r\nb\"; (void)s; y = 1;",
       }) {
    EXPECT_EQ(refusal(kernel(body)), "") << body;
  }
}

TEST(UserCodeCheck, RefusesCodeThatLeavesTheKernelsFunction) {
  const struct {
    const char* body;
    const char* where;  // "<part>:<line>:<column>"
    const char* why;
  } cases[] = {
      {"} void evil() {", "k.body:1:1", "closes what it did not open"},
      {"y = 1;\n  if (y) {", "k.body:2:10", "is never closed"},
      {"y = (1 + 2];", "k.body:1:11", "closes the '('"},
      {"#define CLOSE }\nCLOSE void f() {", "k.body:1:1", "in this #define"},
      {"#define OPEN {\ny = 1;", "k.body:1:1", "leaves '{' open"},
      {"#if 1\ny = 1;", "k.body:1:1", "#if without #endif"},
      {"#endif\ny = 1;", "k.body:1:1", "#endif without #if"},
      {"#if X\n{\n#else\n#endif\n}", "k.body:1:1", "nested differently"},
      {"y = 1; /* never closed", "k.body:1:8", "unterminated /* comment"},
      // Digraphs are brackets to the compiler: <% %> <: :> are { } [ ].
      {"y = 1; %> void evil() <% y = 2;", "k.body:1:8", "closes what it did not open"},
      {"y = 1; <% y = 2;", "k.body:1:8", "'{' is never closed"},
      {"y = (1 + 2:>;", "k.body:1:11", "closes the '('"},
      // A directive behind a comment or spelled %: is still a directive.
      {"/* note */ #define CLOSE }\nCLOSE", "k.body:1:12", "in this #define"},
      {"/* a\n note */ #if 1\ny = 1;", "k.body:2:1", "#if without #endif"},
      {"%:define CLOSE }\nCLOSE", "k.body:1:1", "in this #define"},
      {"# /* c */ endif\n", "k.body:1:1", "#endif without #if"},
      {"const char* s = \"open;\ny = 1;", "k.body:1:17", "unterminated string"},
      // A line splice inside a two-character token: the compiler joins the lines first,
      // so "*\<newline>/" ends a comment and "<\<newline>%" is a '{'.
      {"y = 1; /* *\\\n/ } void evil() { /* */", "k.body:2:3", "closes what it did not open"},
      {"y = 1; <\\\n% y = 2;", "k.body:1:8", "'{' is never closed"},
      // Splices the compilers also join: before a CR LF, or after blanks.
      {"y = 1; /* *\\\r\n/ } void evil() { /* */", "k.body:2:3", "closes what it did not open"},
      {"y = 1; /* *\\ \n/ } void evil() { /* */", "k.body:2:3", "closes what it did not open"},
      // A directive's name split by a splice is still that directive.
      {"#def\\\nine C }\nC void evil() {", "k.body:1:1", "in this #define"},
      // A raw string's prefix split by a splice: the string still hides its quote.
      {"f(R\\\n\"x(\")x\"); } void evil() { /* \" */", "k.body:2:11",
       "closes what it did not open"},
      // A comment that spans lines inside a directive keeps the lines after it in it.
      {"#pragma foo /*\n*/ {\n} void evil() {\n#pragma foo /*\n*/ }\n", "k.body:3:1",
       "closes what it did not open"},
  };
  for (const auto& c : cases) {
    const std::string log = refusal(kernel(c.body));
    EXPECT_EQ(log.rfind(std::string(c.where) + ": error: ", 0), 0u) << c.body << "\n" << log;
    EXPECT_NE(log.find(c.why), std::string::npos) << c.body << "\n" << log;
  }
  // The filter is checked too: it may not leave its expression.
  KernelSource filtered = kernel("y = 1;");
  filtered.filter = "true /* *\\\n/ ); } static bool x() { return (true /* */";
  EXPECT_NE(refusal(filtered).find("k.filter:2:3: error: ')' closes what it did not open"),
            std::string::npos)
      << refusal(filtered);
  // The helpers are checked too, in their own coordinates.
  const std::string log = refusal(kernel("y = 1;", "static void f() {\n}\n}"));
  EXPECT_EQ(log.rfind("k.helpers:3:1: error: ", 0), 0u) << log;
}

TEST(UserCodeCheck, IncludesOnlyToolchainHeadersUnlessAllowed) {
  for (const char* body :
       {"#include \"/etc/passwd\"\ny = 1;", "#include </etc/passwd>\ny = 1;",
        "#include <../../etc/passwd>\ny = 1;", "#include <a/../../b.h>\n",
        "#define FILE \"/etc/passwd\"\n#include FILE\n", "#include_next <x/../../y>\n",
        "#embed \"data.bin\"\n", "#  include \"local.h\"\n",
        // A directive behind a comment, with one inside it, or spelled %: is one still.
        "/* c */ #include \"/etc/passwd\"\n", "#/**/include \"/etc/passwd\"\n",
        "%:include \"/etc/passwd\"\n", "/* a\nb */ # include </etc/passwd>\n",
        // Its name split by a line splice.
        "#incl\\\nude \"/etc/passwd\"\n"}) {
    const std::string log = refusal(kernel(body));
    EXPECT_NE(log.find("is refused"), std::string::npos) << body << "\n" << log;
  }
  // With include directories, quoted relative names are the user's own files.
  UserCodeRules allowed;
  allowed.quoted_includes = true;
  EXPECT_EQ(refusal(kernel("#include \"my/header.h\"\ny = 1;"), allowed), "");
  EXPECT_NE(refusal(kernel("#include \"../outside.h\"\n"), allowed), "");
  EXPECT_NE(refusal(kernel("#include \"/etc/passwd\"\n"), allowed), "");
}

}  // namespace
}  // namespace stubjit::detail
