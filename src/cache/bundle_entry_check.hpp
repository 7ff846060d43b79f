// The checks an entry file passes to enter or leave a cache bundle: those a cache makes
// on load, and those `stubjit cache verify` adds (the key hashes to the file name and
// names the directory), on bytes already read.
#pragma once

#include <string>
#include <vector>

namespace stubjit::detail {

// What an entry file's bytes say, once they pass every check.
struct EntryFacts {
  std::string problem;  // "" when valid, else why not ("checksum mismatch", ...)
  std::string kernel, backend, target, compiler, generator, format;
};

// `relative_path`: where the entry sits under a root,
// <backend>/<target>/<mode>-r<rank>/<32 hex digits>.bin.
EntryFacts check_entry_file(const std::vector<char>& bytes, const std::string& relative_path);

// 16 lowercase hex digits of XXH3-64 of the whole file.
std::string entry_checksum(const std::vector<char>& bytes);

}  // namespace stubjit::detail
