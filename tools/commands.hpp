// The subcommands of `stubjit`; each registers its options on the parsed app and
// returns the action to run once parsing succeeded. Actions return the exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

namespace stubjit::tool {

// Exit statuses (docs/cli.md).
inline constexpr int exit_ok = 0;
inline constexpr int exit_problems_found = 1;  // verify left bad entries or unread directories
inline constexpr int exit_failure = 2;         // bad input or an error

struct GlobalFlags {
  bool json = false;
};

using Action = std::function<int()>;

void add_info_command(CLI::App& app, const GlobalFlags& flags, Action& action);
void add_cache_command(CLI::App& app, const GlobalFlags& flags, Action& action);
// `cache prewarm`, under the cache command whose --cache-dir `cache_dir` holds.
void add_prewarm_command(CLI::App& cache, const GlobalFlags& flags,
                         std::shared_ptr<const std::string> cache_dir, Action& action);
// `cache export`, `cache import` and `cache bundle-info`, likewise.
void add_bundle_commands(CLI::App& cache, const GlobalFlags& flags,
                         std::shared_ptr<const std::string> cache_dir, Action& action);
void add_dump_stub_command(CLI::App& app, const GlobalFlags& flags, Action& action);

}  // namespace stubjit::tool
