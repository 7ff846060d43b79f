#include "cache/bundle_entry_check.hpp"

#include "cache/cache_entry.hpp"
#include "cache/cache_layout.hpp"
#include "cache/disk_key.hpp"
#include "support/hash.hpp"

namespace stubjit::detail {
EntryFacts check_entry_file(const std::vector<char>& bytes, const std::string& relative_path) {
  EntryFacts facts;
  if (!is_entry_path(relative_path)) {
    facts.problem = "its path is not <backend>/<target>/<mode>-r<rank>/<32 hex digits>.bin";
    return facts;
  }
  const DecodedEntry decoded = decode_entry(bytes, nullptr);
  if (decoded.problem != EntryProblem::none) {
    facts.problem = describe(decoded.problem);
    return facts;
  }
  const std::size_t slash = relative_path.rfind('/');
  const std::string directory = relative_path.substr(0, slash);
  const std::string name = relative_path.substr(slash + 1);
  // As `stubjit cache verify` checks (cache_admin.cpp): an entry moved or renamed to
  // another key's place is caught without knowing any key.
  if (hash128_hex(decoded.key) + entry_suffix != name) {
    facts.problem = "its key does not match its file name";
    return facts;
  }
  if (directory_of_key_text(decoded.key) != directory) {
    facts.problem = "it is not in the directory its key names";
    return facts;
  }
  facts.kernel = kernel_of_key_text(decoded.key);
  facts.backend = key_line(decoded.key, "backend ").value_or("");
  facts.target = key_line(decoded.key, "target ").value_or("");
  facts.compiler = key_line(decoded.key, "compiler ").value_or("");
  facts.generator = key_line(decoded.key, "generator ").value_or("");
  facts.format = decoded.binary.format;
  return facts;
}

std::string entry_checksum(const std::vector<char>& bytes) {
  return hex64(hash64(std::string_view(bytes.data(), bytes.size())));
}

}  // namespace stubjit::detail
