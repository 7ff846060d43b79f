#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "cache/cache_key.hpp"

namespace stubjit::detail {
namespace {

KernelSource saxpy() {
  return {
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;", "", {}};
}

StubVariant variant() {
  return {Mode::direct, 2, 64, {Binding::scalar, Binding::projection, Binding::projection}, 0};
}

ToolchainIdentity toolchain() { return {"cpu", "x86_64/generic/abc", "clang 14.0.6", {}}; }

TEST(CacheKey, SameInputsGiveTheSameKey) {
  const CacheKey a = make_cache_key(identify(saxpy()), variant(), toolchain());
  const CacheKey b = make_cache_key(identify(saxpy()), variant(), toolchain());
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.hash, b.hash);
}

TEST(CacheKey, EveryComponentChangesTheKey) {
  // Each mutation alters one thing a binary depends on; all keys must differ.
  const std::vector<std::function<void(KernelSource&, StubVariant&, ToolchainIdentity&)>>
      mutations = {
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
            v.bindings[1] = Binding::broadcast;
          },
          [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.max_threads_per_group = 256; },
          [](KernelSource&, StubVariant& v, ToolchainIdentity&) { v.warp_size = 64; },
          [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.backend = "cuda"; },
          [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.target = "sm_90"; },
          [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.compiler = "clang 15.0.7"; },
          [](KernelSource&, StubVariant&, ToolchainIdentity& t) { t.options = {"-ffast-math"}; },
      };
  std::set<std::string> texts;
  std::set<std::uint64_t> hashes;
  for (const auto& mutate : mutations) {
    KernelSource k = saxpy();
    StubVariant v = variant();
    ToolchainIdentity t = toolchain();
    mutate(k, v, t);
    const CacheKey key = make_cache_key(identify(k), v, t);
    texts.insert(key.text);
    hashes.insert(key.hash);
  }
  EXPECT_EQ(texts.size(), mutations.size());
  EXPECT_EQ(hashes.size(), mutations.size());
}

CacheKey key_of(const KernelSource& kernel, const std::vector<std::string>& options = {}) {
  ToolchainIdentity t = toolchain();
  t.options = options;
  return make_cache_key(identify(kernel), variant(), t);
}

TEST(CacheKey, MovingTextBetweenBodyAndHelpersChangesTheKey) {
  KernelSource a = saxpy();
  a.body = "ab";
  a.helpers = "c";
  KernelSource b = saxpy();
  b.body = "a";
  b.helpers = "bc";
  EXPECT_NE(key_of(a).text, key_of(b).text);
}

// The key holds the source itself, not a hash of it: two kernels are one key only if
// their texts are equal, whatever a hash of them would say.
TEST(CacheKey, HoldsTheFullSourceText) {
  KernelSource kernel = saxpy();
  kernel.body = "y = a * x + y; // " + std::string(5000, 'b');
  kernel.helpers = "static inline float twice(float v) { return 2 * v; }\n";
  const CacheKey key = key_of(kernel);
  EXPECT_NE(key.text.find("body " + std::to_string(kernel.body.size()) + ":" + kernel.body),
            std::string::npos);
  EXPECT_NE(
      key.text.find("helpers " + std::to_string(kernel.helpers.size()) + ":" + kernel.helpers),
      std::string::npos);
  KernelSource one_byte_apart = kernel;
  one_byte_apart.body.back() = 'c';
  EXPECT_NE(key_of(one_byte_apart).text, key.text);
}

// Options are items, not words: every way of splitting or joining them is its own key.
TEST(CacheKey, CompilerOptionsAreKeptApart) {
  const std::vector<std::vector<std::string>> lists = {
      {},           {""},         {"", ""},        {"-DA=3 -DB"}, {"-DA=3", "-DB"},
      {"-DA=3-DB"}, {"a", "b c"}, {"a b", "c"},    {"1:a"},       {"1:a", ""},
      {"a\nb"},     {"a", "b"},   {"a\noptions 0"}};
  std::set<std::string> texts;
  for (const auto& options : lists) texts.insert(key_of(saxpy(), options).text);
  EXPECT_EQ(texts.size(), lists.size());
}

// Free text (options, body, helpers) comes after every fixed line, so a body that
// looks like key lines cannot pass for them.
TEST(CacheKey, FreeTextComesLast) {
  KernelSource kernel = saxpy();
  kernel.body = "y = a;\nkernel other\nbackend cuda\n";
  const CacheKey key = key_of(kernel, {"-O2\nkernel evil"});
  EXPECT_LT(key.text.find("kernel saxpy\n"), key.text.find("kernel other"));
  EXPECT_LT(key.text.find("compiler "), key.text.find("options "));
  EXPECT_LT(key.text.find("options "), key.text.find("body "));
}

}  // namespace
}  // namespace stubjit::detail
