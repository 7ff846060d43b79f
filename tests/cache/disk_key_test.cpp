// The disk key: everything the in-memory key holds plus the format version and the
// generated source; the layout it names.
#include <gtest/gtest.h>

#include "cache/disk_key.hpp"
#include "common/kernels.hpp"

namespace stubjit::detail {
namespace {

struct Inputs {
  KernelIdentity kernel = identify(test::saxpy_kernel());
  StubVariant variant = spread_rank2();
  ToolchainIdentity toolchain = cpu_toolchain();
  std::string source = "// generated stub\n";

  static StubVariant spread_rank2() {
    StubVariant v;
    v.mode = Mode::spread;
    v.rank = 2;
    v.index_bits = 64;
    v.bindings = {Binding::scalar, Binding::projection, Binding::projection};
    return v;
  }
  static ToolchainIdentity cpu_toolchain() {
    ToolchainIdentity t;
    t.backend = "cpu";
    t.target = "x86_64-pc-linux-gnu/skylake/1234abcd";
    t.compiler = "clang 14.0.6";
    seal(t);
    return t;
  }

  StubIdentity identity() const { return StubIdentity::of(kernel, toolchain, variant); }
  DiskKey key() const {
    ToolchainIdentity sealed = toolchain;
    seal(sealed);
    return make_disk_key(StubIdentity::of(kernel, sealed, variant), source);
  }
};

TEST(DiskKey, ContainsTheIdentityTextVersionAndSourceHash) {
  Inputs in;
  const DiskKey key = in.key();
  EXPECT_NE(key.text.find(key_text(in.identity())), std::string::npos);
  EXPECT_EQ(key.text.rfind("stubjit-disk-key " + std::to_string(disk_format_version) + "\n", 0),
            0u);
  EXPECT_NE(key.text.find("\nstub "), std::string::npos);
  EXPECT_EQ(key.name, hash128_hex(key.text));
  EXPECT_EQ(key.name.size(), 32u);
}

TEST(DiskKey, LayoutIsBackendTargetModeRank) {
  const DiskKey key = Inputs{}.key();
  EXPECT_EQ(key.directory, "cpu/x86_64-pc-linux-gnu_skylake_1234abcd/spread-r2");
  EXPECT_EQ(directory_of_key_text(key.text), key.directory);
  EXPECT_EQ(kernel_of_key_text(key.text), "saxpy");
  EXPECT_FALSE(directory_of_key_text("not a key").has_value());
}

// What `stubjit cache verify` reads back from a key cannot be forged by the kernel's
// source or the compiler options, which the key holds as free text.
TEST(DiskKey, SourceThatLooksLikeKeyLinesIsNotReadAsThem) {
  Inputs in;
  KernelSource kernel = test::saxpy_kernel();
  kernel.body = "y = x;\nlayout cpu/elsewhere/direct-r1\nkernel impostor\n";
  in.kernel = identify(kernel);
  in.toolchain.options = {"-O2\nlayout ../../victim\nkernel evil"};
  const DiskKey key = in.key();
  EXPECT_EQ(directory_of_key_text(key.text), key.directory);
  EXPECT_EQ(kernel_of_key_text(key.text), "saxpy");
  EXPECT_NE(key.text.find("kernel impostor"), std::string::npos);  // still part of the key
}

TEST(DiskKey, EveryInputChangesTheKey) {
  const Inputs base;
  const std::string reference = base.key().name;
  std::vector<Inputs> changed(9, base);
  changed[0].source += " ";
  changed[1].variant.mode = Mode::multi;
  changed[2].variant.rank = 3;
  changed[3].variant.index_bits = 32;
  changed[4].variant.bindings.set(1, Binding::broadcast);
  changed[5].toolchain.target = "x86_64-pc-linux-gnu/znver3/1234abcd";
  changed[6].toolchain.compiler = "clang 15.0.7";
  changed[7].toolchain.options = {"-ffast-math"};
  KernelSource other = test::saxpy_kernel();
  other.body = "y = a * x - y;";
  changed[8].kernel = identify(other);
  for (std::size_t i = 0; i < changed.size(); ++i) {
    EXPECT_NE(changed[i].key().name, reference) << "input " << i;
  }
  EXPECT_EQ(Inputs{}.key().name, reference);  // and it is deterministic
}

TEST(DiskKey, PathComponentsAreSafe) {
  EXPECT_EQ(path_component("gfx90a:sramecc+:xnack-"), "gfx90a_sramecc__xnack-");
  EXPECT_EQ(path_component("../.."), "_.._..");  // one component: no traversal
  EXPECT_EQ(path_component(".."), "_..");
  EXPECT_EQ(path_component("."), "_.");
  EXPECT_EQ(path_component(".hidden"), "_.hidden");  // never a hidden name
  EXPECT_EQ(path_component(""), "_");
  EXPECT_EQ(path_component("sm_90"), "sm_90");
}

}  // namespace
}  // namespace stubjit::detail
