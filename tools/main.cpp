// stubjit: inspect backends and devices, manage the disk cache, print generated
// stubs. See docs/cli.md. This file declares the command line (the one file that
// includes CLI11); each subcommand runs in its own file (commands.hpp).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "commands.hpp"
#include "stubjit/error.hpp"

namespace stubjit::tool {
namespace {

struct GlobalFlags {
  bool json = false;
};

// What the parsed command line runs; set by the chosen subcommand's callback.
using Action = std::function<int()>;

void add_info_command(CLI::App& app, const GlobalFlags& global, Action& action) {
  CLI::App* info = app.add_subcommand(
      "info", "Backends found (or why not), devices, limits, toolchains, cache root");
  info->callback([&global, &action] { action = [&global] { return run_info(global.json); }; });
}

// `cache prewarm`, under the cache command whose --cache-dir `cache_dir` holds.
void add_prewarm_command(CLI::App& cache, const GlobalFlags& global,
                         std::shared_ptr<const std::string> cache_dir, Action& action) {
  auto flags = std::make_shared<PrewarmFlags>();  // owned by the callback below
  CLI::App* command = cache.add_subcommand(
      "prewarm", "Compile the stubs that kernel files' launches need, running nothing");
  command->add_option("files", flags->files, "Kernel description files (JSON) with \"launches\"")
      ->required();
  command->add_option("--target", flags->target,
                      "host, sm_XY, compute_XY or gfxNNN (default: this machine's backend)");
  command->add_option("--emit", flags->emit_dir, "Also write each stub's binary into DIR");
  command->callback([&global, &action, flags, cache_dir] {
    action = [&global, flags, cache_dir] { return run_prewarm(*flags, *cache_dir, global.json); };
  });
}

// `cache export`, `cache import` and `cache bundle-info`, likewise.
void add_bundle_commands(CLI::App& cache, const GlobalFlags& global,
                         std::shared_ptr<const std::string> cache_dir, Action& action) {
  auto flags = std::make_shared<BundleFlags>();  // owned by the callbacks below

  CLI::App* exporter =
      cache.add_subcommand("export", "Write the cache's valid entries to one verified bundle file");
  exporter->add_option("bundle", flags->bundle, "The bundle file to write")->required();
  exporter->add_option("--kernel", flags->kernels, "Only this kernel's entries (repeatable)");
  exporter->add_option("--target", flags->targets,
                       "Only this target's entries, e.g. sm_90; host: the CPU's (repeatable)");
  exporter->callback([&global, &action, flags, cache_dir] {
    action = [&global, flags, cache_dir] {
      return run_bundle_export(*flags, *cache_dir, global.json);
    };
  });

  CLI::App* importer = cache.add_subcommand(
      "import", "Verify a bundle, then add its entries to a cache (or a shared layer)");
  importer->add_option("bundle", flags->bundle, "The bundle file to read")->required();
  importer->add_option("--into", flags->into,
                       "Import into DIR (default: the cache root, as --cache-dir or a runtime "
                       "chooses it)");
  importer->add_flag("--shared", flags->shared,
                     "Entries and directories readable by every user: for a read-only layer");
  importer->add_flag("--dry-run", flags->dry_run, "Verify and report, writing nothing");
  importer->callback([&global, &action, flags, cache_dir] {
    action = [&global, flags, cache_dir] {
      return run_bundle_import(*flags, *cache_dir, global.json);
    };
  });

  CLI::App* info = cache.add_subcommand("bundle-info", "Verify a bundle and print its manifest");
  info->add_option("bundle", flags->bundle, "The bundle file to read")->required();
  info->callback([&global, &action, flags] {
    action = [&global, flags] { return run_bundle_info(*flags, global.json); };
  });
}

void add_cache_command(CLI::App& app, const GlobalFlags& global, Action& action) {
  // Owned by the callbacks below, so it lives as long as the app that fills it.
  auto flags = std::make_shared<CacheFlags>();
  CLI::App* cache = app.add_subcommand("cache", "The persistent disk cache (docs/cache.md)");
  cache->require_subcommand(1);
  cache->add_option("--cache-dir", flags->cache_dir,
                    "Cache root (default: as a runtime would choose it)");
  auto on = [&global, &action, flags](int (*command)(const CacheFlags&, bool)) {
    return [&global, &action, flags, command] {
      action = [&global, flags, command] { return command(*flags, global.json); };
    };
  };
  cache->add_subcommand("ls", "List the entries, most recently used first")
      ->callback(on(run_cache_list));
  cache->add_subcommand("stats", "Entries, bytes, size cap, per backend")
      ->callback(on(run_cache_stats));
  CLI::App* verify_command = cache->add_subcommand(
      "verify",
      "Check every entry (magic, version, sizes, checksum, key); exit 1 if bad ones remain");
  verify_command->add_flag("--remove", flags->remove, "Remove the bad entries");
  verify_command->callback(on(run_cache_verify));
  CLI::App* clear_command = cache->add_subcommand("clear", "Remove entries");
  clear_command->add_option("--older-than", flags->older_than,
                            "Only entries unused for this long: 30d, 12h, 90m, 45s");
  clear_command->callback(on(run_cache_clear));
  add_prewarm_command(*cache, global, std::shared_ptr<const std::string>(flags, &flags->cache_dir),
                      action);
  add_bundle_commands(*cache, global, std::shared_ptr<const std::string>(flags, &flags->cache_dir),
                      action);
}

void add_dump_stub_command(CLI::App& app, const GlobalFlags& global, Action& action) {
  auto flags = std::make_shared<DumpFlags>();  // owned by the callback below
  CLI::App* command = app.add_subcommand(
      "dump-stub", "Print the stub generated for a kernel description file (docs/cli.md)");
  command->add_option("file", flags->file, "Kernel description (JSON), or - for stdin")->required();
  command->add_option("--mode", flags->mode, "direct, spread or multi")
      ->check(CLI::IsMember({"direct", "spread", "multi"}))
      ->capture_default_str();
  command->add_option("--rank", flags->rank, "Rank of the compute domain")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  command->add_option("--dialect", flags->dialect, "cpp (CPU backend), cuda or hip")
      ->check(CLI::IsMember(dialect_names()))
      ->capture_default_str();
  command->add_option("--index-bits", flags->index_bits, "Width of positions and indices")
      ->check(CLI::IsMember({32, 64}))
      ->capture_default_str();
  command->add_option("--launch-bounds", flags->launch_bounds,
                      "GPU dialects: threads per group to declare (default: as for a device "
                      "with 1024 threads per group)");
  command
      ->add_option("--warp-size", flags->warp_size,
                   "GPU dialects: STUBJIT_WARP_SIZE (default: 32 for cuda, 64 for hip; "
                   "32 for RDNA targets, gfx10 and later)")
      ->check(CLI::IsMember({32, 64}));
  command
      ->add_option("--rows", flags->rows,
                   "cpp, rank 2 and up: the innermost extent compiled in, as a CPU launch "
                   "whose innermost extent is at most 16 gets it (default: none)")
      ->check(
          CLI::Range(std::int64_t(1), std::int64_t(1) << 62));  // above 16: the library says why
  command
      ->add_option("--view-stride", flags->view_stride,
                   "cpp: the stride along the innermost loop that the broadcast views share, "
                   "compiled in as a CPU launch gets it, with --rows or without "
                   "(default: 1)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 62));  // above 16: as --rows
  command->add_flag("--dense", flags->dense,
                    "GPU dialects: the stub of a dense launch (a domain from 0 with unit steps "
                    "over fields contiguous along its innermost dimension)");
  command
      ->add_option("--dimension", flags->dimension,
                   "Reduce, scan and sort kernels: the dimension combined or sorted along "
                   "(default -1: the last; a result of rank 0 takes the whole domain)")
      ->check(CLI::Range(-1, 7));
  command->add_flag("--scan-partials", flags->scan_partials,
                    "Scan kernels: the stub of the first stage (each part's combination), "
                    "which a CPU launch that splits a pencil runs first (the cpp dialect only)");
  command->add_flag("--sort-merge", flags->sort_merge,
                    "Sort kernels: the stub of the merge passes rather than of the first stage "
                    "(each part evaluated and sorted)");
  command->add_flag("--stub-only", flags->stub_only, "Leave out the embedded prelude");
  command->callback([&global, &action, flags] {
    action = [&global, flags] { return run_dump_stub(*flags, global.json); };
  });
}

}  // namespace
}  // namespace stubjit::tool

int main(int argc, char** argv) {
  using namespace stubjit::tool;
  CLI::App app{"stubjit: run-time kernel specialization (docs/cli.md)", "stubjit"};
  app.set_version_flag("--version", std::string("stubjit ") + STUBJIT_VERSION);
  app.fallthrough();  // --json is accepted after the subcommand too
  app.require_subcommand(1);
  GlobalFlags flags;
  app.add_flag("--json", flags.json, "Print JSON for machines instead of text");
  Action action;
  add_info_command(app, flags, action);
  add_cache_command(app, flags, action);
  add_dump_stub_command(app, flags, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    return status == 0 ? exit_ok : exit_failure;
  }
  try {
    return action ? action() : exit_failure;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "stubjit: %s\n", error.what());
    return exit_failure;
  }
}
