#include "cache/cache_key.hpp"

#include <sstream>

#include "cache/hash.hpp"
#include "codegen/prelude.hpp"

namespace stubjit::detail {

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
  for (const Param& p : source.signature) id.signature += to_string(p) + ";";
  const BlockConstraints& b = source.block;
  id.block = "max_threads=" + std::to_string(b.max_threads) +
             " shape=" + std::to_string(b.shape[0]) + "x" + std::to_string(b.shape[1]) + "x" +
             std::to_string(b.shape[2]);
  return id;
}

CacheKey make_cache_key(const KernelIdentity& kernel, const StubVariant& variant,
                        const ToolchainIdentity& toolchain) {
  static const std::uint64_t prelude_hash = hash64(prelude_source());
  std::ostringstream text;
  // One fact per line; the lines with free text (options, body, helpers) come last,
  // so that whatever they hold, the first "kernel " line is the kernel's.
  text << "stubjit-key 2\n"
       << "generator " << generator_version << ' ' << hex64(prelude_hash) << '\n'
       << "kernel " << kernel.name << '\n'
       << "signature " << kernel.signature << '\n'
       << "block " << kernel.block << '\n'
       << "variant " << name_of(variant.mode) << " r" << variant.rank << " i" << variant.index_bits;
  for (Binding b : variant.bindings) text << ' ' << name_of(b);
  text << " bounds " << variant.max_threads_per_group << " warp " << variant.warp_size;
  text << '\n'
       << "backend " << toolchain.backend << '\n'
       << "target " << toolchain.target << '\n'
       << "compiler " << toolchain.compiler << '\n'
       << "options " << toolchain.options.size();
  for (const std::string& option : toolchain.options) text << ' ' << length_prefixed(option);
  text << '\n' << kernel.source << '\n';
  CacheKey key;
  key.text = text.str();
  key.hash = hash64(key.text);
  return key;
}

}  // namespace stubjit::detail
