// Group and tiled stubs as the writer makes them (generate_stub_source) and as the
// caches key them (StubIdentity): the Group reaches group stubs only, the options that
// do not fit these patterns are refused, and the tile and pattern are part of the key.
#include <gtest/gtest.h>

#include <string>

#include "cache/stub_identity.hpp"
#include "stubjit/error.hpp"
#include "stubjit/stub.hpp"

namespace stubjit {
namespace {

KernelSource column() {
  return {
      "column",
      {group("g"), scalar<std::int64_t>("nz"), inout<double>("w", 1), shared<double>("s", {"nz"})},
      "g.inner(nz, [&](stubjit::i64 k) { s(k) = w(k); });\ng.fence();\n"
      "g.inner(nz, [&](stubjit::i64 k) { w(k) = s(nz - 1 - k); });"};
}

KernelSource tiled() {
  return {"tiled",
          {tile_index("t"), local_index("l"), inout<std::int64_t>("out")},
          "out = t[0] * 100 + l[1];"};
}

StubOptions options_for(const std::string& dialect, const KernelSource& kernel) {
  StubOptions options;
  options.dialect = dialect;
  options.mode = Mode::spread;
  options.rank = 2;
  for (const Param& p : kernel.signature) {
    options.bindings.push_back(p.kind == ParamKind::scalar  ? Binding::scalar
                               : p.kind == ParamKind::field ? Binding::projection
                                                            : Binding::index);
  }
  if (dialect != "cpp") {
    options.launch_bounds = 256;
    options.warp_size = dialect == "hip" ? 64 : 32;
  }
  return options;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(GroupStubs, GroupKernelsGetGroupStubsInEveryDialect) {
  for (const std::string dialect : {"cpp", "cuda", "hip"}) {
    SCOPED_TRACE(dialect);
    const StubSource stub = generate_stub_source(column(), options_for(dialect, column()));
    EXPECT_EQ(stub.entry, "stubjit_column_group_r2");
    EXPECT_TRUE(has(stub.source, "// prelude: config.h index.h view.h launch.h group.h"))
        << stub.source.substr(stub.stub_offset, 400);
    EXPECT_TRUE(has(stub.source, "stubjit::shared_view<double, 1,"));
    EXPECT_TRUE(has(stub.source, ", group, rank 2"));
    // A block past the last group leaves as a whole on a GPU; the CPU walks a range.
    EXPECT_EQ(has(stub.source, "if (stubjit_gid >= stubjit::u64(stubjit_lp.linear_end)) return;"),
              dialect != "cpp");
  }
}

TEST(GroupStubs, OnlyGroupStubsIncludeTheGroupHeader) {
  // A per-element kernel whose code names the Group still gets no group.h.
  const KernelSource forall{"names_group", {inout<double>("x")}, "x = 1; // stubjit::Group"};
  StubOptions options = options_for("cuda", forall);
  options.mode = Mode::direct;
  options.rank = 1;
  EXPECT_FALSE(has(generate_stub_source(forall, options).source, "group.h"));
  options.tile = Tile{4};
  EXPECT_FALSE(has(generate_stub_source(forall, options).source, "group.h"));
}

TEST(GroupStubs, TiledStubsCompileTheTileIn) {
  StubOptions options = options_for("cuda", tiled());
  options.tile = Tile{8, 32};
  const StubSource stub = generate_stub_source(tiled(), options);
  EXPECT_EQ(stub.entry, "stubjit_tiled_tiled_r2");
  EXPECT_TRUE(has(stub.source, ", tiled tile 8x32, rank 2"));
  EXPECT_TRUE(has(stub.source, "stubjit_k < 256u"));
  EXPECT_TRUE(has(stub.source, "continue;  // a partial tile"));
}

TEST(GroupStubs, OptionsThatDoNotFitThePatternAreRefused) {
  const auto refused = [](const KernelSource& kernel, const StubOptions& options,
                          const std::string& part) {
    try {
      generate_stub_source(kernel, options);
      ADD_FAILURE() << "not refused: " << part;
    } catch (const Error& error) {
      EXPECT_TRUE(has(error.what(), part)) << error.what();
    }
  };
  StubOptions no_warp = options_for("cuda", column());
  no_warp.warp_size = 0;
  refused(column(), no_warp, "needs a warp size");
  StubOptions tile_for_group = options_for("cpp", column());
  tile_for_group.tile = Tile{2};
  refused(column(), tile_for_group, "is a group kernel");
  refused(tiled(), options_for("cpp", tiled()), "needs a tile");
  StubOptions deep = options_for("cpp", tiled());
  deep.tile = Tile{2, 2, 2};
  refused(tiled(), deep, "at most the domain's");
  StubOptions zero = options_for("cpp", tiled());
  zero.tile = Tile{2, 0};
  refused(tiled(), zero, "tile extent 1 is 0");
  StubOptions dense = options_for("cuda", column());
  dense.dense = true;
  refused(column(), dense, "per-element stubs");
  StubOptions wrong = options_for("cpp", column());
  wrong.bindings[0] = Binding::scalar;
  refused(column(), wrong, "takes no argument");
}

TEST(GroupStubs, PatternAndTileArePartOfTheKey) {
  using namespace detail;
  const KernelIdentity kernel = identify(tiled());
  ToolchainIdentity toolchain;
  toolchain.backend = "cpu";
  seal(toolchain);
  StubVariant forall;
  StubVariant tiled_8x32 = forall;
  tiled_8x32.pattern = Pattern::tiled;
  tiled_8x32.tile_rank = 2;
  tiled_8x32.tile = {8, 32};
  StubVariant tiled_32x8 = tiled_8x32;
  tiled_32x8.tile = {32, 8};
  StubVariant group = forall;
  group.pattern = Pattern::group;
  const StubIdentity a = StubIdentity::of(kernel, toolchain, forall);
  const StubIdentity b = StubIdentity::of(kernel, toolchain, tiled_8x32);
  const StubIdentity c = StubIdentity::of(kernel, toolchain, tiled_32x8);
  const StubIdentity d = StubIdentity::of(kernel, toolchain, group);
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(b == c);
  EXPECT_FALSE(a == d);
  EXPECT_NE(b.hash, c.hash);
  EXPECT_TRUE(has(key_text(b), "variant tiled direct r1"));
  EXPECT_TRUE(has(key_text(b), " tile 8 32\n"));
  EXPECT_TRUE(has(key_text(d), "variant group direct r1"));
  // Other stubs' keys as they were: no tile on their variant line.
  const std::string text = key_text(a);
  const std::size_t variant = text.find("\nvariant ");
  ASSERT_NE(variant, std::string::npos);
  EXPECT_FALSE(has(text.substr(variant, text.find('\n', variant + 1) - variant), " tile"));
  EXPECT_TRUE(has(kernel.signature, "tile_index t;local_index l;"));
  EXPECT_TRUE(has(identify(column()).signature, "group g;") &&
              has(identify(column()).signature, "shared<double>[nz] s;"))
      << identify(column()).signature;
}

}  // namespace
}  // namespace stubjit
