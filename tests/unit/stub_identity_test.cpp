// The stub identity: everything a binary depends on, hashed once, compared in full,
// and written as one canonical text.
#include <gtest/gtest.h>

#include <functional>
#include <locale>
#include <set>

#include "cache/stub_identity.hpp"

namespace stubjit::detail {
namespace {

KernelSource saxpy() {
  return {
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}};
}

StubVariant variant() {
  StubVariant v;
  v.mode = Mode::direct;
  v.rank = 2;
  v.index_bits = 64;
  v.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  return v;
}

ToolchainIdentity toolchain() {
  ToolchainIdentity t;
  t.backend = "cpu";
  t.target = "x86_64/generic/abc";
  t.compiler = "clang 14.0.6";
  t.generator = "2 0123456789abcdef";
  seal(t);
  return t;
}

// Everything a test varies, owned together so that identities can point into it.
struct Parts {
  KernelIdentity kernel = identify(saxpy());
  ToolchainIdentity toolchain = ::stubjit::detail::toolchain();
  StubVariant variant = ::stubjit::detail::variant();
  StubIdentity identity() const { return StubIdentity::of(kernel, toolchain, variant); }
};

TEST(StubIdentity, SameInputsGiveTheSameIdentity) {
  const Parts a;
  const Parts b;  // equal content at other addresses
  EXPECT_EQ(a.identity().hash, b.identity().hash);
  EXPECT_TRUE(a.identity() == b.identity());
  EXPECT_EQ(key_text(a.identity()), key_text(b.identity()));
}

TEST(StubIdentity, EveryComponentChangesTheIdentity) {
  // Each mutation alters one thing a binary depends on; all identities must differ, in
  // their hash, their comparison and their text.
  using Mutation = std::function<void(KernelSource&, StubVariant&, ToolchainIdentity&)>;
  const std::vector<Mutation> mutations = {
      [](KernelSource&, StubVariant&, ToolchainIdentity&) {},
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) { k.body = "y = a * x;"; },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) { k.helpers = "// helper"; },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) { k.name = "saxpy2"; },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) {
        k.signature[0] = scalar<double>("a");
      },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) { k.signature[1].rank = 1; },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) {
        k.signature[1].access = Access::read_write;
      },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) { k.block.max_threads = 128; },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) {
        k.block.shape = {8, 8, 1};
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.mode = Mode::spread; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.mode = Mode::multi; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.rank = 3; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.index_bits = 32; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.bindings.set(1, Binding::broadcast);
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.bindings.set(2, Binding::broadcast);
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.launch_bounds = 256; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.warp_size = 64; },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.group_shape = {8, 4, 1};
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.specialized.count = 1;
        v.specialized.bits[0] = 3;
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.specialized.count = 1;
        v.specialized.bits[0] = 4;
      },
      [](KernelSource& k, StubVariant&, ToolchainIdentity&) {
        k.signature[0] = specialized<float>("a");
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.specialized.scalar_count = 1;
        v.specialized.scalars[0] = 3;
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.specialized.scalar_count = 1;
        v.specialized.scalars[0] = 4;
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) {
        v.specialized.scalar_count = 2;
        v.specialized.scalars[0] = 3;
      },
      [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.dense = true; },
      [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.backend = "cuda"; },
      [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.target = "sm_90"; },
      [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.compiler = "clang 15.0.7"; },
      [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.options = {"-ffast-math"}; },
      [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.generator = "3 0123"; },
  };
  std::vector<Parts> parts(mutations.size());
  std::set<std::string> texts;
  std::set<std::uint64_t> hashes;
  for (std::size_t i = 0; i < mutations.size(); ++i) {
    KernelSource k = saxpy();
    mutations[i](k, parts[i].variant, parts[i].toolchain);
    parts[i].kernel = identify(k);
    seal(parts[i].toolchain);
    texts.insert(key_text(parts[i].identity()));
    hashes.insert(parts[i].identity().hash);
  }
  EXPECT_EQ(texts.size(), mutations.size());
  EXPECT_EQ(hashes.size(), mutations.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (std::size_t j = 0; j < parts.size(); ++j) {
      EXPECT_EQ(parts[i].identity() == parts[j].identity(), i == j) << i << " vs " << j;
    }
  }
}

// Equal hashes are not enough: the comparison is in full.
TEST(StubIdentity, EqualHashesWithDifferentContentAreDifferent) {
  const Parts a;
  Parts b;
  b.variant.index_bits = 32;
  StubIdentity forged = b.identity();
  forged.hash = a.identity().hash;
  EXPECT_FALSE(a.identity() == forged);
  Parts c;
  c.kernel.source += "x";  // same hash field as a's kernel, other text
  StubIdentity same_hash_other_kernel = StubIdentity::of(c.kernel, a.toolchain, a.variant);
  same_hash_other_kernel.hash = a.identity().hash;
  EXPECT_FALSE(a.identity() == same_hash_other_kernel);
}

TEST(StubIdentity, BindingsBeyondTheFirstWordCount) {
  Parts a;
  Parts b;
  a.variant.bindings.resize(100);
  b.variant.bindings.resize(100);
  b.variant.bindings.set(99, Binding::projection);
  EXPECT_FALSE(a.identity() == b.identity());
  EXPECT_NE(a.identity().hash, b.identity().hash);
  b.variant.bindings.set(99, Binding::scalar);
  EXPECT_TRUE(a.identity() == b.identity());
  b.variant.bindings.resize(99);  // one fewer parameter
  EXPECT_FALSE(a.identity() == b.identity());
}

std::string text_of(const KernelSource& kernel, const std::vector<std::string>& options = {}) {
  Parts parts;
  parts.kernel = identify(kernel);
  parts.toolchain.options = options;
  seal(parts.toolchain);
  return key_text(parts.identity());
}

TEST(StubIdentity, MovingTextBetweenBodyAndHelpersChangesTheKey) {
  KernelSource a = saxpy();
  a.body = "ab";
  a.helpers = "c";
  KernelSource b = saxpy();
  b.body = "a";
  b.helpers = "bc";
  EXPECT_NE(text_of(a), text_of(b));
  EXPECT_FALSE(identify(a) == identify(b));
}

// A result's combiner, rank and custom expressions are part of the kernel's identity.
TEST(StubIdentity, ResultsCombinerRankAndExpressionsChangeTheKey) {
  const auto with = [](Param result) {
    KernelSource k = saxpy();
    k.signature.push_back(std::move(result));
    return identify(k);
  };
  const KernelIdentity sum = with(result<float>("v", Combiner::sum));
  EXPECT_TRUE(sum == with(result<float>("v", Combiner::sum)));
  EXPECT_FALSE(sum == with(result<float>("v", Combiner::max)));
  EXPECT_FALSE(sum == with(result<float>("v", Combiner::sum, 1)));
  EXPECT_FALSE(sum == with(inout<float>("v")));
  EXPECT_FALSE(with(result<float>("v", "a + b", "0")) == with(result<float>("v", "a+b", "0")));
  EXPECT_FALSE(with(result<float>("v", "a", "b, 1:c")) == with(result<float>("v", "a, 1:b", "c")));
}

// The key holds the source itself, not a hash of it: two kernels are one key only if
// their texts are equal, whatever a hash of them would say.
TEST(StubIdentity, HoldsTheFullSourceText) {
  KernelSource kernel = saxpy();
  kernel.body = "y = a * x + y; // " + std::string(5000, 'b');
  kernel.helpers = "static inline float twice(float v) { return 2 * v; }\n";
  const std::string text = text_of(kernel);
  EXPECT_NE(text.find("body " + std::to_string(kernel.body.size()) + ":" + kernel.body),
            std::string::npos);
  EXPECT_NE(text.find("helpers " + std::to_string(kernel.helpers.size()) + ":" + kernel.helpers),
            std::string::npos);
  KernelSource one_byte_apart = kernel;
  one_byte_apart.body.back() = 'c';
  EXPECT_NE(text_of(one_byte_apart), text);
}

// Options are items, not words: every way of splitting or joining them is its own key.
TEST(StubIdentity, CompilerOptionsAreKeptApart) {
  const std::vector<std::vector<std::string>> lists = {
      {},           {""},         {"", ""},        {"-DA=3 -DB"}, {"-DA=3", "-DB"},
      {"-DA=3-DB"}, {"a", "b c"}, {"a b", "c"},    {"1:a"},       {"1:a", ""},
      {"a\nb"},     {"a", "b"},   {"a\noptions 0"}};
  std::set<std::string> texts;
  std::set<std::uint64_t> hashes;
  for (const auto& options : lists) {
    texts.insert(text_of(saxpy(), options));
    ToolchainIdentity t = toolchain();
    t.options = options;
    seal(t);
    hashes.insert(t.hash);
  }
  EXPECT_EQ(texts.size(), lists.size());
  EXPECT_EQ(hashes.size(), lists.size());
}

// Free text (options, body, helpers) comes after every fixed line, so a body that
// looks like key lines cannot pass for them.
TEST(StubIdentity, FreeTextComesLast) {
  KernelSource kernel = saxpy();
  kernel.body = "y = a;\nkernel other\nbackend cuda\n";
  const std::string text = text_of(kernel, {"-O2\nkernel evil"});
  EXPECT_LT(text.find("kernel saxpy\n"), text.find("kernel other"));
  EXPECT_LT(text.find("compiler "), text.find("options "));
  EXPECT_LT(text.find("options "), text.find("body "));
}

}  // namespace
}  // namespace stubjit::detail

namespace stubjit::detail {
namespace {

// Specialized values appear in the key only where there are any, so the keys of every
// other stub (and the disk entries under them) stay what they were.
TEST(StubIdentity, SpecializedValuesAreWrittenOnlyWhenThereAreAny) {
  Parts plain;
  const std::string text = key_text(plain.identity());
  EXPECT_EQ(text.find(" values "), std::string::npos) << text;
  Parts valued;
  valued.variant.specialized.scalar_count = 2;
  valued.variant.specialized.scalars[0] = 7;
  valued.variant.specialized.scalars[1] = 0x3dcccccd;  // 0.1f's bits
  EXPECT_NE(key_text(valued.identity()).find(" values 2 7 1036831949 "), std::string::npos)
      << key_text(valued.identity());
}

// Digits grouped by the global locale would make another key of the same stub.
struct GroupsThousands : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

TEST(StubIdentity, KeyTextIgnoresTheGlobalLocale) {
  Parts parts;
  parts.variant.launch_bounds = 1024;
  parts.variant.specialized.scalar_count = 1;
  parts.variant.specialized.scalars[0] = 1036831949;
  const std::string classic = key_text(parts.identity());
  EXPECT_NE(classic.find(" bounds 1024 "), std::string::npos) << classic;
  // std::locale takes ownership of the facet (it counts references to it).
  const std::locale previous =
      std::locale::global(std::locale(std::locale::classic(), new GroupsThousands));
  const std::string grouped = key_text(parts.identity());
  std::locale::global(previous);
  EXPECT_EQ(grouped, classic);
}

}  // namespace
}  // namespace stubjit::detail
