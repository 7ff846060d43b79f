#include "cache/stub_identity.hpp"

#include <cstring>
#include <locale>
#include <sstream>

#include "support/hash.hpp"

namespace stubjit::detail {
namespace {

// Folds `value` into `seed` (the 64-bit mix of boost::hash_combine's successors).
std::uint64_t mix(std::uint64_t seed, std::uint64_t value) noexcept {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4);
  return seed;
}

}  // namespace

std::string length_prefixed(const std::string& text) {
  return std::to_string(text.size()) + ":" + text;
}

KernelIdentity identify(const KernelSource& source) {
  KernelIdentity id;
  id.name = source.name;
  // The text itself, not a hash of it: a 64-bit hash is no proof of equality, and
  // XXH3 collisions can be crafted. Length-prefixed, so that moving text between
  // body and helpers changes the key.
  id.source =
      "body " + length_prefixed(source.body) + "\nhelpers " + length_prefixed(source.helpers);
  // Only where there is one, so that the keys of kernels without a filter stay as they were.
  if (!source.filter.empty()) id.source += "\nfilter " + length_prefixed(source.filter);
  for (const Param& p : source.signature) id.signature += to_string(p) + ";";
  const BlockConstraints& b = source.block;
  id.block = "max_threads=" + std::to_string(b.max_threads) +
             " shape=" + std::to_string(b.shape[0]) + "x" + std::to_string(b.shape[1]) + "x" +
             std::to_string(b.shape[2]);
  id.hash = hash64(length_prefixed(id.name) + length_prefixed(id.signature) +
                   length_prefixed(id.block) + id.source);
  return id;
}

void seal(ToolchainIdentity& identity) {
  std::string text = length_prefixed(identity.backend) + length_prefixed(identity.target) +
                     length_prefixed(identity.compiler) + length_prefixed(identity.generator);
  for (const std::string& option : identity.options) text += length_prefixed(option);
  identity.hash = hash64(text);
}

std::uint64_t StubVariant::hash() const noexcept {
  std::uint64_t h = mix(0, (std::uint64_t(pattern) << 24) | (std::uint64_t(mode) << 16) |
                               (std::uint64_t(rank) << 8) | index_bits);
  h = mix(h, (std::uint64_t(launch_bounds) << 32) | warp_size);
  h = mix(h, (std::uint64_t(group_shape[0]) << 32) | group_shape[1]);
  h = mix(h, group_shape[2]);
  h = mix(h, tile_rank);
  h = mix(h, static_cast<std::uint8_t>(reduce_dimension));
  for (std::size_t d = 0; d < tile_rank && d < tile.size(); ++d) h = mix(h, tile[d]);
  h = mix(h, bindings.size());
  for (std::uint64_t word : bindings.words()) h = mix(h, word);
  h = mix(h, specialized.count);
  for (std::size_t i = 0; i < specialized.count; ++i) h = mix(h, specialized.bits[i]);
  h = mix(h, specialized.scalar_count);
  for (std::size_t i = 0; i < specialized.scalar_count; ++i) h = mix(h, specialized.scalars[i]);
  std::uint64_t order = 0;
  for (std::uint8_t d : index_order) order = (order << 8) | d;
  return mix(mix(h, order), dense ? 1 : 0);
}

StubIdentity StubIdentity::of(const KernelIdentity& kernel, const ToolchainIdentity& toolchain,
                              const StubVariant& variant) noexcept {
  StubIdentity identity;
  identity.kernel = &kernel;
  identity.toolchain = &toolchain;
  identity.variant = variant;
  identity.hash = mix(mix(kernel.hash, toolchain.hash), variant.hash());
  return identity;
}

std::string key_text(const StubIdentity& identity) {
  const KernelIdentity& kernel = *identity.kernel;
  const ToolchainIdentity& toolchain = *identity.toolchain;
  const StubVariant& v = identity.variant;
  std::ostringstream text;
  // Digits without a locale's grouping, whatever std::locale::global says.
  text.imbue(std::locale::classic());
  // One fact per line; the lines with free text (options, body, helpers) come last,
  // so that whatever they hold, the first "kernel " line is the kernel's.
  text << "stubjit-key 4\n"
       << "generator " << toolchain.generator << '\n'
       << "kernel " << kernel.name << '\n'
       << "signature " << kernel.signature << '\n'
       << "block " << kernel.block << '\n'
       << "variant " << name_of(v.pattern) << ' ' << name_of(v.mode) << " r" << int(v.rank) << " i"
       << int(v.index_bits);
  for (std::size_t i = 0; i < v.bindings.size(); ++i) text << ' ' << name_of(v.bindings[i]);
  text << " bounds " << v.launch_bounds << " warp " << v.warp_size << " group " << v.group_shape[0]
       << 'x' << v.group_shape[1] << 'x' << v.group_shape[2] << " specialized "
       << int(v.specialized.count);
  for (std::size_t i = 0; i < v.specialized.count; ++i) text << ' ' << v.specialized.bits[i];
  // Only when there are any: the keys of other stubs stay as they were.
  if (v.specialized.scalar_count > 0) {
    text << " values " << int(v.specialized.scalar_count);
    for (std::size_t i = 0; i < v.specialized.scalar_count; ++i)
      text << ' ' << v.specialized.scalars[i];
  }
  text << " order";
  for (int d = 0; d < v.rank; ++d) text << ' ' << int(v.index_order[std::size_t(d)]);
  if (v.dense) text << " dense";  // only when set: the keys of other stubs stay as they were
  if (v.tile_rank > 0) {          // likewise
    text << " tile";
    for (std::size_t d = 0; d < v.tile_rank && d < v.tile.size(); ++d) text << ' ' << v.tile[d];
  }
  if (works_along(v.pattern)) text << " along " << int(v.reduce_dimension);  // likewise
  text << '\n'
       << "backend " << toolchain.backend << '\n'
       << "target " << toolchain.target << '\n'
       << "compiler " << toolchain.compiler << '\n'
       << "options " << toolchain.options.size();
  for (const std::string& option : toolchain.options) text << ' ' << length_prefixed(option);
  text << '\n' << kernel.source << '\n';
  return text.str();
}

}  // namespace stubjit::detail
