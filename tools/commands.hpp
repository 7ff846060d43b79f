// The subcommands of `stubjit`: what each takes (its flags) and runs. main.cpp declares
// them to the command-line parser; each command's file runs it. Only main.cpp sees
// CLI11, which is header-only and cost about 10 s of compile time in each file that
// included it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stubjit::tool {

// Exit statuses (docs/cli.md).
inline constexpr int exit_ok = 0;
inline constexpr int exit_problems_found = 1;  // verify left bad entries or unread directories
inline constexpr int exit_failure = 2;         // bad input or an error

// stubjit info (info_command.cpp).
int run_info(bool as_json);

// stubjit cache ls|stats|verify|clear (cache_command.cpp).
struct CacheFlags {
  std::string cache_dir;
  bool remove = false;
  std::string older_than;
};
int run_cache_list(const CacheFlags& flags, bool as_json);
int run_cache_stats(const CacheFlags& flags, bool as_json);
int run_cache_verify(const CacheFlags& flags, bool as_json);
int run_cache_clear(const CacheFlags& flags, bool as_json);

// stubjit cache prewarm (prewarm_command.cpp), under the cache command's --cache-dir.
struct PrewarmFlags {
  std::vector<std::string> files;
  std::string target;
  std::string emit_dir;
};
int run_prewarm(const PrewarmFlags& flags, const std::string& cache_dir, bool as_json);

// stubjit cache export|import|bundle-info (bundle_commands.cpp), likewise.
struct BundleFlags {
  std::string bundle;
  std::vector<std::string> kernels;
  std::vector<std::string> targets;
  std::string into;
  bool shared = false;
  bool dry_run = false;
};
int run_bundle_export(const BundleFlags& flags, const std::string& cache_dir, bool as_json);
int run_bundle_import(const BundleFlags& flags, const std::string& cache_dir, bool as_json);
int run_bundle_info(const BundleFlags& flags, bool as_json);

// stubjit dump-stub (dump_stub_command.cpp).
struct DumpFlags {
  std::string file;
  std::string mode = "direct";
  int rank = 1;
  std::string dialect = "cpp";
  int index_bits = 64;
  std::uint32_t launch_bounds = 0;
  std::optional<std::uint32_t> warp_size;
  std::int64_t rows = 0;
  std::int64_t view_stride = 1;
  bool dense = false;
  int dimension = -1;
  bool scan_partials = false;
  bool sort_merge = false;
  bool stub_only = false;
};
std::vector<std::string> dialect_names();  // --dialect's choices
int run_dump_stub(const DumpFlags& flags, bool as_json);

}  // namespace stubjit::tool
