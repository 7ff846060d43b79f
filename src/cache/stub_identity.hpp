// What identifies a stub: everything its binary depends on, in one value.
//
//   kernel     name, signature, block constraints, body and helpers (KernelIdentity,
//              computed once when the kernel is made)
//   toolchain  backend, target, compiler, options, stub generator (ToolchainIdentity,
//              computed once when the runtime is made)
//   variant    pattern, mode, rank, index width, bindings, launch bounds, warp width,
//              group shape, specialized values (StubVariant, per launch: fixed size, no
//              heap)
//
// A StubIdentity points at the first two and holds the third; it is hashed once when
// made and compared in full. Its canonical text (key_text) is what the disk cache
// stores and compares byte for byte.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"
#include "support/binding_list.hpp"
#include "support/pattern.hpp"
#include "support/scalar_words.hpp"

namespace stubjit::detail {

struct KernelIdentity {
  std::string name;
  std::string signature;  // canonical text of the parameters
  std::string block;      // block constraints
  std::string source;     // body and helpers, each length-prefixed (see length_prefixed)
  std::uint64_t hash = 0;

  bool operator==(const KernelIdentity& other) const {
    return hash == other.hash && name == other.name && signature == other.signature &&
           block == other.block && source == other.source;
  }
};

KernelIdentity identify(const KernelSource& source);

struct ToolchainIdentity {
  std::string backend;               // the registry's name, e.g. "cpu", "cuda"
  std::string target;                // host CPU, sm_XY, gfxNNN
  std::string compiler;              // compiler name and version
  std::vector<std::string> options;  // extra compiler options, one per argument
  // The stub generator's version and a hash of the device-side prelude: a binary
  // from another generator is never reused.
  std::string generator;
  std::uint64_t hash = 0;

  bool operator==(const ToolchainIdentity& other) const {
    return hash == other.hash && backend == other.backend && target == other.target &&
           compiler == other.compiler && options == other.options && generator == other.generator;
  }
};

// Fills in `identity.hash`; call once every other field is set.
void seal(ToolchainIdentity& identity);

// Run-time values compiled into a stub as constants. bits[0]: the innermost count of
// the stub's domain, where the toolchain compiles short rows in (TargetTraits::
// short_row_limit), 0 for longer rows; bits[1]: the stride along the innermost loop
// that the launch's broadcast views share (BoundArgs::view_stride), where it is 2 to
// stubjit::max_view_stride (count 2; count 1: rows only, 0: neither). scalars: the launch's values
// of the kernel's specialized scalar parameters, in signature order, as words
// (support/scalar_words.hpp: one per value, two for a complex<double>).
struct SpecializedValues {
  static constexpr std::size_t capacity = 8;
  std::array<std::uint64_t, capacity> bits{};
  std::uint8_t count = 0;
  std::array<std::uint64_t, max_specialized_words> scalars{};
  std::uint8_t scalar_count = 0;
  bool operator==(const SpecializedValues& other) const {
    return count == other.count && bits == other.bits && scalar_count == other.scalar_count &&
           scalars == other.scalars;
  }
};

struct StubVariant {
  Pattern pattern = Pattern::forall;
  Mode mode = Mode::direct;
  std::uint8_t rank = 1;
  std::uint8_t index_bits = 64;
  // GPU stubs: the most threads per group they are launched with (their launch
  // bounds); 0 where the target has none.
  std::uint32_t launch_bounds = 0;
  // GPU stubs: the warp (wavefront) width the plan assumed; 0 where unused.
  std::uint32_t warp_size = 0;
  // The group shape, where a stub is written for one (fixed shapes, tiles); zero
  // when any shape runs it.
  Extent3 group_shape{0, 0, 0};
  BindingList bindings;  // one per parameter
  SpecializedValues specialized;
  // Which dimension of the stub's domain holds each of the index token's dimensions
  // (bind.hpp's IndexOrder): the identity but for a reordered launch of a kernel that
  // takes its index.
  std::array<std::uint8_t, 8> index_order = {0, 1, 2, 3, 4, 5, 6, 7};
  // GPU stubs of a dense launch (bind/dense.hpp): the index is the position.
  bool dense = false;
  // Tiled stubs: the tile's extents over the domain's last tile_rank dimensions,
  // compiled in (zeros past tile_rank).
  std::uint8_t tile_rank = 0;
  std::array<std::uint32_t, 8> tile{};
  // Reduce stubs: the dimension of the domain the reduction eliminates, -1 for a
  // reduction of the whole domain.
  std::int8_t reduce_dimension = -1;

  bool operator==(const StubVariant& other) const {
    return pattern == other.pattern && mode == other.mode && rank == other.rank &&
           index_bits == other.index_bits && launch_bounds == other.launch_bounds &&
           warp_size == other.warp_size && group_shape == other.group_shape &&
           tile_rank == other.tile_rank && tile == other.tile && bindings == other.bindings &&
           specialized == other.specialized && index_order == other.index_order &&
           dense == other.dense && reduce_dimension == other.reduce_dimension;
  }
  bool operator!=(const StubVariant& other) const { return !(*this == other); }
  std::uint64_t hash() const noexcept;
};

struct StubIdentity {
  const KernelIdentity* kernel = nullptr;
  const ToolchainIdentity* toolchain = nullptr;
  StubVariant variant;
  std::uint64_t hash = 0;

  // Hashes once.
  static StubIdentity of(const KernelIdentity& kernel, const ToolchainIdentity& toolchain,
                         const StubVariant& variant) noexcept;

  // In full: the variant, then the kernel and toolchain (by address first: the same
  // kernel launched again compares two pointers).
  bool operator==(const StubIdentity& other) const {
    return hash == other.hash && variant == other.variant &&
           (kernel == other.kernel || *kernel == *other.kernel) &&
           (toolchain == other.toolchain || *toolchain == *other.toolchain);
  }
};

// A StubIdentity that owns what it points at: the key of a runtime's stub cache,
// which may keep a stub longer than the kernel that made it.
struct StubKey {
  std::shared_ptr<const KernelIdentity> kernel;
  std::shared_ptr<const ToolchainIdentity> toolchain;
  StubVariant variant;
  std::uint64_t hash = 0;

  StubIdentity identity() const { return {kernel.get(), toolchain.get(), variant, hash}; }
  bool operator==(const StubKey& other) const { return identity() == other.identity(); }
};

// "<size>:<bytes>": text of any content (spaces, newlines, digits) embedded so that
// no two different sequences of texts give the same key.
std::string length_prefixed(const std::string& text);

// The canonical text of an identity: one fact per line, the free text (options, body,
// helpers) last. Two identities are equal exactly when their texts are.
std::string key_text(const StubIdentity& identity);

}  // namespace stubjit::detail
